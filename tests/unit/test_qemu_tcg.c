/* The pure parts of the TCG plugin (measure/qemu/tcg_core.c, symmap.c)
 * and the TLB flush it uses: window markers, the user/kernel split and
 * its file line, System.map lookups, flushing only the user pages. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "measure/qemu/cpio.h"
#include "measure/qemu/guest.h"
#include "measure/qemu/symmap.h"
#include "measure/qemu/tcg_core.h"
#include "measure/model/cache.h"
#include "util/array.h"
#include "util/error.h"

static void test_markers(void **state)
{
	const uint8_t nop7[7] = { 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 };

	assert_int_equal(tcg_mark_kind(tcg_mark_open_x86, 7), TCG_MARK_OPEN);
	assert_int_equal(tcg_mark_kind(tcg_mark_close_x86, 7), TCG_MARK_CLOSE);
	/* the ordinary 7-byte nop compilers pad with is not a marker */
	assert_int_equal(tcg_mark_kind(nop7, 7), TCG_MARK_NONE);
	/* the bytes inside a longer instruction are not a marker */
	assert_int_equal(tcg_mark_kind(tcg_mark_open_x86, 6), TCG_MARK_NONE);
	assert_int_equal(tcg_mark_kind(NULL, 7), TCG_MARK_NONE);
}

static void test_kernel_side(void **state)
{
	assert_true(tcg_is_kernel(0xffffffff81000000ull));
	assert_true(tcg_is_kernel(0xc000000000000000ull));
	assert_false(tcg_is_kernel(0x00007fffffffe000ull));
	assert_false(tcg_is_kernel(0x400000));
	/* 4 KiB pages: page numbers of the user half are below 2^51 */
	assert_true(tcg_user_page_limit(4096) == (uint64_t)1 << 51);
	assert_true((0xffffffff81000000ull >> 12) >= tcg_user_page_limit(4096));
	assert_true((0x00007fffffffe000ull >> 12) < tcg_user_page_limit(4096));
}

static void test_split_account_and_line(void **state)
{
	struct tcg_split w, back;
	struct sim_totals last = { 0 }, now = { 0 };
	char line[1024];
	unsigned n;

	memset(&w, 0, sizeof(w));
	now.instructions = 10;
	now.l1i_misses = 2;
	tcg_split_account(&w, 0, &now, &last);
	now.instructions = 25;
	now.l1i_misses = 3;
	now.stlb_misses = 7;
	now.fetch_late = 4;
	tcg_split_account(&w, 1, &now, &last);
	assert_true(w.u.instructions == 10 && w.u.l1i_misses == 2);
	assert_true(w.k.instructions == 15 && w.k.l1i_misses == 1 && w.k.stlb_misses == 7);
	assert_true(w.k.fetch_late == 4 && w.u.fetch_late == 0);
	assert_true(last.instructions == 25);

	tcg_split_format(line, sizeof(line), 3, &w);
	assert_int_equal(tcg_split_parse(line, &n, &back), 0);
	assert_int_equal(n, 3);
	assert_memory_equal(&w, &back, sizeof(w));
	assert_int_equal(tcg_split_parse("window 1 x.instructions=3\n", &n, &back), -1);
	assert_int_equal(tcg_split_parse("window 1 u.instructions=\n", &n, &back), -1);
	assert_int_equal(tcg_split_parse("fn foo instructions=3\n", &n, &back), -1);
}

static void test_symmap(void **state)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81003270 T __switch_to_asm\n"
		"ffffffff81001000 t helper\n"          /* out of order: sorted */
		"ffffffff82000000 D some_data\n"       /* data: ignored */
		"ffffffff81004000 T _etext\n"
		"garbage line\n";
	struct symmap m;
	long i;

	assert_int_equal(symmap_parse(&m, text, sizeof(text) - 1), 0);
	assert_int_equal(m.n, 4);
	assert_true(symmap_addr(&m, "__switch_to_asm") == 0xffffffff81003270ull);
	assert_true(symmap_addr(&m, "some_data") == 0);
	i = symmap_lookup(&m, 0xffffffff81001010ull);
	assert_true(i >= 0);
	assert_string_equal(m.syms[i].name, "helper");
	i = symmap_lookup(&m, 0xffffffff81003270ull);
	assert_string_equal(m.syms[i].name, "__switch_to_asm");
	assert_int_equal(symmap_lookup(&m, 0xffffffff80000000ull), -1);
	/* the last symbol has no end: nothing is attributed to it */
	assert_int_equal(symmap_lookup(&m, 0xffffffff81004000ull), -1);
	symmap_free(&m);
}

static void test_flush_below_keeps_kernel_lru(void **state)
{
	uint64_t tags[9];   /* sim_cache_ntags(): tags and stamps of 1 set, its MRU copy */
	struct sim_cache c;
	uint64_t user = 5, k1 = (uint64_t)1 << 52, k2 = k1 + 1;

	/* one set of 4 ways, line = page */
	assert_int_equal(sim_cache_ntags(4 * 4096, 4, 4096), 9);
	sim_cache_init(&c, 4 * 4096, 4, 4096, tags);
	sim_cache_ref_block(&c, k1);
	sim_cache_ref_block(&c, user);
	sim_cache_ref_block(&c, k2);    /* MRU order: k2 user k1 */
	sim_cache_flush_below(&c, tcg_user_page_limit(4096));
	assert_int_equal(sim_cache_ref_block(&c, k2), 0);
	assert_int_equal(sim_cache_ref_block(&c, k1), 0);
	assert_int_equal(sim_cache_ref_block(&c, user), 1);   /* gone */
}

/* The kernel's initramfs unpacker wants newc headers of 110 bytes, the
 * name NUL-terminated and padded so the data starts on 4 bytes, the data
 * padded to 4, and a TRAILER!!! entry last. */
static void test_cpio_newc(void **state)
{
	char path[] = "/tmp/lace-test-cpio.XXXXXX", buf[1024];
	struct cpio c;
	FILE *f;
	size_t n;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(cpio_open(&c, path), 0);
	assert_int_equal(cpio_add(&c, "bin", S_IFDIR | 0755, NULL, 0), 0);
	assert_int_equal(cpio_add(&c, "bin/sh", S_IFLNK | 0777, "busybox", 7), 0);
	assert_int_equal(cpio_add(&c, "init", S_IFREG | 0755, "#!/bin/sh\n", 10), 0);
	assert_int_equal(cpio_close(&c), 0);
	f = fopen(path, "rb");
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	unlink(path);
	/* "bin": header 110 + name 4 = 114 -> padded to 116, no data */
	assert_memory_equal(buf, "070701", 6);
	assert_memory_equal(buf + 110, "bin", 4);
	/* mode field (second) of the directory */
	assert_memory_equal(buf + 14, "000041ED", 8);
	/* "bin/sh": at 116; header + name 117 -> 120; data 7 -> 8 */
	assert_memory_equal(buf + 116, "070701", 6);
	assert_memory_equal(buf + 116 + 110, "bin/sh", 7);
	assert_memory_equal(buf + 116 + 120, "busybox", 7);
	/* "init" at 244: header + name 115 -> 116; data 10 -> 12 */
	assert_memory_equal(buf + 244, "070701", 6);
	assert_memory_equal(buf + 244 + 116, "#!/bin/sh\n", 10);
	/* the trailer at 372: 121 -> 124 */
	assert_memory_equal(buf + 372, "070701", 6);
	assert_memory_equal(buf + 372 + 110, "TRAILER!!!", 11);
	assert_int_equal(n, 372 + 124);
}

static void test_exit_status(void **state)
{
	/* isa-debug-exit: QEMU exits with (value << 1) | 1 */
	assert_int_equal(guest_status_from_exit(1), 0);
	assert_int_equal(guest_status_from_exit(3), 1);
	assert_int_equal(guest_status_from_exit(255), 127);
	assert_int_equal(guest_status_from_exit(0), -1);   /* powered off, no report */
	assert_int_equal(guest_status_from_exit(2), -1);
}

static void le(uint8_t *b, uint32_t w)
{
	b[0] = (uint8_t)w;
	b[1] = (uint8_t)(w >> 8);
	b[2] = (uint8_t)(w >> 16);
	b[3] = (uint8_t)(w >> 24);
}

static void test_ppc64_markers(void **state)
{
	uint8_t open[4], close[4], other[4];

	le(open, TCG_PPC_MARK_OPEN);
	le(close, TCG_PPC_MARK_CLOSE);
	le(other, 0x60000000);   /* nop */
	assert_int_equal(tcg_mark_kind_ppc64(open, open), TCG_MARK_OPEN);
	assert_int_equal(tcg_mark_kind_ppc64(close, close), TCG_MARK_CLOSE);
	/* one xori alone is an ordinary (if odd) instruction */
	assert_int_equal(tcg_mark_kind_ppc64(open, other), TCG_MARK_NONE);
	assert_int_equal(tcg_mark_kind_ppc64(open, close), TCG_MARK_NONE);
	assert_int_equal(tcg_mark_kind_ppc64(open, NULL), TCG_MARK_NONE);
	assert_int_equal(tcg_arch_from_target("ppc64"), TCG_ARCH_PPC64);
	assert_int_equal(tcg_arch_from_target("x86_64"), TCG_ARCH_X86_64);
	assert_int_equal(tcg_arch_from_target("aarch64"), -1);
}

static void test_calls(void **state)
{
	uint8_t w[8];
	const uint8_t call[5] = { 0xe8, 0, 0, 0, 0 }, jmp[5] = { 0xe9, 0, 0, 0, 0 };
	const uint8_t call_rax[2] = { 0xff, 0xd0 }, jmp_rax[2] = { 0xff, 0xe0 };
	const uint8_t call_r11[3] = { 0x41, 0xff, 0xd3 };

	assert_true(tcg_insn_is_call(TCG_ARCH_X86_64, call, 5));
	assert_false(tcg_insn_is_call(TCG_ARCH_X86_64, jmp, 5));
	assert_true(tcg_insn_is_call(TCG_ARCH_X86_64, call_rax, 2));
	assert_false(tcg_insn_is_call(TCG_ARCH_X86_64, jmp_rax, 2));
	assert_true(tcg_insn_is_call(TCG_ARCH_X86_64, call_r11, 3));
	le(w, 0x48000011);   /* bl +0x10 */
	assert_true(tcg_insn_is_call(TCG_ARCH_PPC64, w, 4));
	le(w, 0x48000010);   /* b +0x10 */
	assert_false(tcg_insn_is_call(TCG_ARCH_PPC64, w, 4));
	le(w, 0x4e800421);   /* bctrl */
	assert_true(tcg_insn_is_call(TCG_ARCH_PPC64, w, 4));
	le(w, 0x4e800020);   /* blr */
	assert_false(tcg_insn_is_call(TCG_ARCH_PPC64, w, 4));
	le(w, 0x429f0005);   /* bcl 20,31,$+4: reads the PC, calls nothing */
	assert_false(tcg_insn_is_call(TCG_ARCH_PPC64, w, 4));
	/* addis r2,r12,1; addi r2,r2,-0x100: a global entry point */
	le(w, 0x3c4c0001);
	le(w + 4, 0x3842ff00);
	assert_true(tcg_ppc64_has_local_entry(w));
	le(w, 0x7c0802a6);   /* mflr r0 */
	assert_false(tcg_ppc64_has_local_entry(w));
}

static void test_paths(void **state)
{
	struct tcg_path_fn fn[2] = { { .name = "outer" }, { .name = "inner" } };
	struct tcg_paths p = { .fn = fn, .n = 2 };

	/* caller block ends in a call returning to 0x110 */
	tcg_paths_block(&p, 0x100, -1, 0x110, 0);
	tcg_paths_block(&p, 0x1000, 0, 0x1010, 10);    /* outer runs, calls inner */
	tcg_paths_block(&p, 0x2000, 1, 0, 15);         /* inner */
	tcg_paths_block(&p, 0x1010, -1, 0, 40);        /* back in outer */
	tcg_paths_block(&p, 0x110, -1, 0, 52);         /* back in the caller */
	assert_int_equal(fn[0].calls, 1);
	assert_int_equal(fn[0].inclusive, 42);
	assert_int_equal(fn[1].calls, 1);
	assert_int_equal(fn[1].inclusive, 25);
	assert_int_equal(p.depth, 0);
	/* reached by a jump, not a call: no frame */
	tcg_paths_block(&p, 0x1000, 0, 0, 60);
	assert_int_equal(fn[0].calls, 1);
	/* a tail call out of outer: the callee returns straight to the caller */
	tcg_paths_block(&p, 0x300, -1, 0x310, 70);
	tcg_paths_block(&p, 0x1000, 0, 0, 71);
	tcg_paths_block(&p, 0x5000, -1, 0, 80);
	tcg_paths_block(&p, 0x310, -1, 0, 91);
	assert_int_equal(fn[0].calls, 2);
	assert_int_equal(fn[0].inclusive, 42 + 20);
	assert_int_equal(p.depth, 0);
	/* each call's length kept, shortest first, none interrupted */
	assert_int_equal(fn[0].nlen, 2);
	assert_int_equal(fn[0].len[0].instructions, 20);
	assert_int_equal(fn[0].len[1].instructions, 42);
	assert_int_equal(fn[0].len[1].calls, 1);
	assert_int_equal(fn[0].interrupted, 0);
	tcg_paths_release(&p);
}

/* An interrupt's vector entered while a call is open marks that call
 * (and every call it is inside); one entered outside marks none. */
static void test_paths_interrupted(void **state)
{
	struct tcg_path_fn fn[2] = { { .name = "outer" }, { .name = "inner" } };
	struct tcg_paths p = { .fn = fn, .n = 2 };

	for (int i = 0; i < 3; i++) {   /* three clean calls of 30 */
		tcg_paths_block(&p, 0x100, -1, 0x110, 100 * i);
		tcg_paths_block(&p, 0x1000, 0, 0, 100 * i + 10);
		tcg_paths_block(&p, 0x110, -1, 0, 100 * i + 40);
	}
	tcg_paths_interrupt(&p);        /* between calls: nobody's */
	tcg_paths_block(&p, 0x900, -1, 0, 350);
	tcg_paths_block(&p, 0x100, -1, 0x110, 400);
	tcg_paths_block(&p, 0x1000, 0, 0x1010, 410);
	tcg_paths_block(&p, 0x2000, 1, 0, 415);
	tcg_paths_interrupt(&p);        /* lands in inner, inside outer */
	tcg_paths_block(&p, 0x900, -1, 0, 420);
	tcg_paths_block(&p, 0x2010, -1, 0, 900);
	tcg_paths_block(&p, 0x1010, -1, 0, 910);
	tcg_paths_block(&p, 0x110, -1, 0, 920);
	assert_int_equal(fn[0].calls, 4);
	assert_int_equal(fn[0].interrupted, 1);
	assert_int_equal(fn[0].nlen, 2);
	assert_int_equal(fn[0].len[0].instructions, 30);
	assert_int_equal(fn[0].len[0].calls, 3);
	assert_int_equal(fn[0].len[0].interrupted, 0);
	assert_int_equal(fn[0].len[1].instructions, 510);
	assert_int_equal(fn[0].len[1].interrupted, 1);
	assert_int_equal(fn[1].interrupted, 1);
	assert_int_equal(fn[1].len[0].instructions, 495);
	tcg_paths_release(&p);
	assert_null(fn[0].len);
}

/* The misses counted between a call's entry and return are its own,
 * callees included; misses outside calls are nobody's. */
static void test_paths_misses(void **state)
{
	struct tcg_path_fn fn[1] = { { .name = "f" } };
	struct sim_totals t = { 0 };
	struct tcg_paths p = { .fn = fn, .n = 1, .totals = &t };

	t.l1i_misses = 5;
	tcg_paths_block(&p, 0x100, -1, 0x110, 0);
	t.l1i_misses = 7;
	t.itlb_misses = 1;
	tcg_paths_block(&p, 0x1000, 0, 0, 10);
	t.l1i_misses = 10;
	t.itlb_misses = 2;
	tcg_paths_block(&p, 0x110, -1, 0, 20);
	t.l1i_misses = 50;
	assert_int_equal(fn[0].l1i_misses, 3);
	assert_int_equal(fn[0].itlb_misses, 1);
	tcg_paths_release(&p);
}

static void test_async_vectors(void **state)
{
	assert_true(tcg_is_async_vector(TCG_ARCH_PPC64, "exc_real_0x900_decrementer"));
	assert_true(tcg_is_async_vector(TCG_ARCH_PPC64, "exc_virt_0x4900_decrementer"));
	assert_true(tcg_is_async_vector(TCG_ARCH_PPC64, "exc_virt_0x4500_hardware_interrupt"));
	assert_true(tcg_is_async_vector(TCG_ARCH_PPC64, "exc_real_0xe80_h_doorbell"));
	/* faults and system calls belong to the path */
	assert_false(tcg_is_async_vector(TCG_ARCH_PPC64, "exc_virt_0x4300_data_access"));
	assert_false(tcg_is_async_vector(TCG_ARCH_PPC64, "exc_real_0x380_data_access_slb"));
	assert_false(tcg_is_async_vector(TCG_ARCH_PPC64, "exc_real_0xc00_system_call"));
	assert_false(tcg_is_async_vector(TCG_ARCH_PPC64, "decrementer_common_virt"));
	assert_true(tcg_is_async_vector(TCG_ARCH_X86_64, "asm_sysvec_apic_timer_interrupt"));
	assert_true(tcg_is_async_vector(TCG_ARCH_X86_64, "asm_common_interrupt"));
	assert_false(tcg_is_async_vector(TCG_ARCH_X86_64, "asm_exc_page_fault"));
	assert_false(tcg_is_async_vector(TCG_ARCH_X86_64, "exc_real_0x900_decrementer"));
}

/* A block counted when it starts and left midway by a synchronous
 * exception: what is counted again when execution resumes inside it */
static void test_block_rest(void **state)
{
	/* 5 x86 instructions of 3, 1, 1, 7, 4 bytes at 0x401000 */
	const uint16_t off[] = { 0, 3, 4, 5, 12 };

	assert_int_equal(tcg_block_rest(off, 5, 0x401000, 0x401000), 5); /* the first faulted */
	assert_int_equal(tcg_block_rest(off, 5, 0x401000, 0x401005), 2); /* the store at +5 */
	assert_int_equal(tcg_block_rest(off, 5, 0x401000, 0x40100c), 1); /* the last */
	assert_int_equal(tcg_block_rest(off, 5, 0x401000, 0x401010), 0); /* past it: nothing */
	assert_int_equal(tcg_block_rest(off, 5, 0x401000, 0x401002), 0); /* not an instruction */
	assert_int_equal(tcg_block_rest(off, 5, 0x401000, 0x400ffc), 0); /* before it */
	assert_int_equal(tcg_block_rest(off, 5, 0x401000, 0x401000 + 0x20000), 0);
	assert_int_equal(tcg_block_rest(NULL, 5, 0x401000, 0x401000), 0); /* a kernel block */

	/* where kernels take exceptions an instruction raises; not the
	 * asynchronous ones */
	assert_true(tcg_exception_entry(TCG_ARCH_X86_64, "asm_exc_page_fault"));
	assert_true(tcg_exception_entry(TCG_ARCH_X86_64, "asm_exc_general_protection"));
	assert_true(tcg_exception_entry(TCG_ARCH_X86_64, "asm_exc_invalid_op"));
	assert_true(tcg_exception_entry(TCG_ARCH_X86_64, "asm_exc_int3"));
	assert_false(tcg_exception_entry(TCG_ARCH_X86_64, "asm_exc_nmi"));
	assert_false(tcg_exception_entry(TCG_ARCH_X86_64, "asm_exc_machine_check"));
	assert_false(tcg_exception_entry(TCG_ARCH_X86_64, "asm_sysvec_apic_timer_interrupt"));
	assert_false(tcg_exception_entry(TCG_ARCH_X86_64, "entry_SYSCALL_64"));
	assert_false(tcg_exception_entry(TCG_ARCH_PPC64, "asm_exc_page_fault"));
	assert_true(tcg_exception_entry(TCG_ARCH_PPC64, "exc_virt_0x4300_data_access"));
	assert_true(tcg_exception_entry(TCG_ARCH_PPC64, "exc_virt_0x4380_data_access_slb"));
	assert_true(tcg_exception_entry(TCG_ARCH_PPC64, "exc_real_0x700_program_check"));
	assert_false(tcg_exception_entry(TCG_ARCH_PPC64, "exc_virt_0x4900_decrementer"));
	assert_false(tcg_exception_entry(TCG_ARCH_PPC64, "exc_virt_0x4500_hardware_interrupt"));
	assert_false(tcg_exception_entry(TCG_ARCH_PPC64, "exc_virt_0x4c00_system_call"));
	assert_false(tcg_exception_entry(TCG_ARCH_PPC64, "data_access_common_virt"));
	assert_false(tcg_exception_entry(TCG_ARCH_X86_64, "exc_virt_0x4300_data_access"));
	assert_false(tcg_exception_entry(TCG_ARCH_X86_64, NULL));
}

static void test_guest_report(void **state)
{
	char path[] = "/tmp/lace-test-console.XXXXXX";
	int fd = mkstemp(path);
	const char text[] = "boot noise\r\nlace-guest: event powerpc:hash_fault 548\r\n"
			    "lace-guest: event sched:nope error no such tracepoint in this kernel\r\n"
			    "workload output\nlace-guest: kernel 6.1.0-57-powerpc64le f2cb3b06\r\n"
			    "lace-guest: status 3\r\n";
	struct guest_report r;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	guest_report_read(path, &r);
	unlink(path);
	assert_true(r.has_status);
	assert_int_equal(r.status, 3);
	assert_int_equal(r.nevents, 2);
	assert_true(r.ev[0].ok);
	assert_int_equal(r.ev[0].count, 548);
	assert_false(r.ev[1].ok);
	assert_string_equal(r.ev[1].why, "no such tracepoint in this kernel");
	assert_string_equal(r.release, "6.1.0-57-powerpc64le");
	assert_string_equal(r.build_id, "f2cb3b06");
	guest_report_read("/nonexistent/console", &r);
	assert_false(r.has_status);
}

/* The plugin's arguments: each checked, unknown or malformed refused
 * (switch=junk used to become 0 and turn the user-TLB flush off). */
static void test_plugin_args(void **state)
{
	struct tcg_args a;
	char *good[] = { "out=/tmp/o", "switch=0xffffffff81000000", "l1i_size=65536",
			 "l1i_ways=16", "map=/tmp/System.map", "path=schedule", "path=do_idle",
			 "page=2097152", "fetch_block=32" };
	char *dflt[] = { "out=f" };

	assert_int_equal(tcg_args_parse(1, dflt, &a), 0);
	assert_int_equal(a.cfg.l1i_size, 32768);
	assert_int_equal(a.cfg.stlb_entries, 1536);
	assert_int_equal(a.switch_addr, 0);
	assert_int_equal(tcg_args_parse(9, good, &a), 0);
	assert_string_equal(a.out, "/tmp/o");
	assert_string_equal(a.map, "/tmp/System.map");
	assert_true(a.switch_addr == 0xffffffff81000000ull);
	assert_int_equal(a.cfg.l1i_size, 65536);
	assert_int_equal(a.cfg.l1i_ways, 16);
	assert_int_equal(a.cfg.page, 2097152);
	assert_int_equal(a.cfg.fetch_block, 32);
	assert_int_equal(a.npath, 2);
	assert_string_equal(a.path[1], "do_idle");
	assert_int_equal(a.nmore, 0);

	/* profile=NAME: one more profile, the geometry keys after it its own */
	char *two[] = { "out=f", "l1i_line=128", "profile=nehalem", "l1i_size=65536",
			"profile=p3", "fetch_block=32" };
	assert_int_equal(tcg_args_parse(6, two, &a), 0);
	assert_int_equal(a.cfg.l1i_line, 128);
	assert_int_equal(a.cfg.l1i_size, 32768);
	assert_int_equal(a.nmore, 2);
	assert_string_equal(a.more_name[0], "nehalem");
	assert_int_equal(a.more[0].l1i_size, 65536);
	assert_int_equal(a.more[0].l1i_line, 64);
	assert_int_equal(a.more[1].fetch_block, 32);
	assert_int_equal(a.more[1].l1i_size, 32768);

	static const struct { char *arg; const char *msg; } bad[] = {
		{ "switch=junk", "switch: 'junk' is not a number" },
		{ "switch=0x10zz", "switch: '0x10zz' is not a whole number" },
		{ "switch=", "switch: empty value" },
		{ "l1i_ways=-1", "l1i_ways: '-1' is negative" },
		{ "l1i_ways=4294967296", "l1i_ways: 4294967296 is out of range" },
		{ "l1i_size= 8", "l1i_size: ' 8' is not a number" },
		{ "bogus=1", "unknown argument: bogus" },
		{ "switch_addr=1", "unknown argument: switch_addr" },
		{ "out", "argument is not key=value: out" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *argv[] = { "out=f", bad[i].arg };

		assert_int_equal(tcg_args_parse(2, argv, &a), -EINVAL);
		assert_string_equal(lace_error_msg(), bad[i].msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_markers),
		cmocka_unit_test(test_kernel_side),
		cmocka_unit_test(test_split_account_and_line),
		cmocka_unit_test(test_symmap),
		cmocka_unit_test(test_flush_below_keeps_kernel_lru),
		cmocka_unit_test(test_cpio_newc),
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_ppc64_markers),
		cmocka_unit_test(test_calls),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_paths_interrupted),
		cmocka_unit_test(test_paths_misses),
		cmocka_unit_test(test_async_vectors),
		cmocka_unit_test(test_guest_report),
		cmocka_unit_test(test_plugin_args),
		cmocka_unit_test(test_block_rest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
