/* The TCG plugin's state that its two files share: lace_tcg_plugin.c
 * (translation, execution, windows) defines it, tcg_setup.c (arguments,
 * installation, the report at exit) sets it up and reports it.  Hidden:
 * the plugin is built with -fvisibility=hidden, QEMU sees its two entry
 * points only. */
#ifndef LACE_TCG_PLUGIN_H
#define LACE_TCG_PLUGIN_H

#include <stdint.h>
#include <stdio.h>

#include "measure/model/model.h"
#include "measure/qemu/plugin/qemu_plugin_v1.h"
#include "measure/qemu/symmap.h"
#include "measure/qemu/tcg_core.h"

/* The profiles modelled beside the first (profile=): each its own model
 * and window split; their events only (no functions, no paths). */
struct tcg_xprof {
	const char *name;
	struct sim_model m;
	struct sim_totals last;
	struct tcg_split win;
};

extern struct sim_model model;   /* the first profile's */
extern struct tcg_xprof xprof[TCG_MAX_PROFILES - 1];
extern size_t nxprof;
/* $LACE_TCG_NULL_EXEC set: every block's callback does nothing (the
 * translation is as always), for bench/bench_qemu.sh's floor of a plugin
 * called once per block; the counts are then all 0. */
extern bool null_exec;
extern unsigned window_no;
extern uint64_t switch_addr;     /* switch=: the context-switch function */
extern uint64_t user_limit;      /* the user pages lie below */
extern FILE *out;
extern struct symmap map;
extern struct sim_fn_stats *fn_stats;   /* map.n, by symbol index */
extern uint64_t switches;
extern enum tcg_arch arch;
extern struct tcg_paths paths;
extern long *path_sym;           /* paths.n symbol indices */
extern uint64_t *irq_vec;        /* tcg_is_async_vector's addresses, with path= only */
extern size_t nirq;
extern uint64_t exc_addr[TCG_MAX_EXC];   /* exc=: where synchronous exceptions enter the kernel */
extern size_t nexc;
extern qemu_plugin_id_t plugin_id;

/* tcg_classify.c, at translation: an interrupt vector's address as
 * blocks are compared with it; does a block at va start at one (irq_vec);
 * does the instruction at va (host copy ha) enter symbol s; is
 * instruction i of tb's n (insn, len bytes) a window marker. */
uint64_t vec_key(uint64_t va);
int tcg_is_irq_vector(uint64_t va);
int tcg_is_entry(const struct symmap_sym *s, uint64_t va, const void *ha);
enum tcg_mark tcg_mark_at(struct qemu_plugin_tb *tb, size_t i, size_t n,
			  struct qemu_plugin_insn *insn, size_t len);
/* The translation until the first window: the markers only. */
void tb_trans_boot(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
/* Close a window left open and settle every block's counts. */
void tcg_finish(void);
/* The atexit callback: tcg_finish(), then the report. */
void tcg_at_exit(qemu_plugin_id_t id, void *ud);

#endif
