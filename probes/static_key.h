/* Kernel-style static keys (jump labels) in user space.
 *
 * A static branch compiles to one 5-byte instruction in the hot path: a
 * `nopl 0x0(%rax,%rax,1)` (0f 1f 44 00 00) when the branch is not taken, or
 * a `jmp rel32` (e9 ..) to the out-of-line block when it is.  Each site is
 * recorded in the `__lace_jump_table` section with the kernel's relative
 * entry layout (HAVE_ARCH_JUMP_LABEL_RELATIVE), 16 bytes:
 *
 *     s32 code;    site address   - &entry->code
 *     s32 target;  jump target    - &entry->target
 *     s64 key;     &static_key    - &entry->key, low bits are flags:
 *                  bit 0 = the branch's sense (JUMP_TYPE_TRUE: the site
 *                  was emitted by arch_static_branch(key, true))
 *
 * so one decoder reads this table and a kernel's `__jump_table`.
 *
 * Semantics follow include/linux/jump_label.h exactly:
 *   DEFINE_STATIC_KEY_FALSE(k);  if (static_branch_unlikely(&k)) ...  nop
 *   DEFINE_STATIC_KEY_TRUE(k);   if (static_branch_likely(&k)) ...    nop
 * and the mixed forms emit a jmp by default.  static_key_enable()/
 * static_key_disable() rewrite every site of the key while other threads
 * may be executing it (int3-first patching, see static_key.c).
 *
 * x86-64 only: other architectures fall back to an ordinary load and test,
 * which keeps the semantics and loses only the patching. */
#ifndef LACE_PROBES_STATIC_KEY_H
#define LACE_PROBES_STATIC_KEY_H

#include <stdbool.h>
#include <stdint.h>

/* The key itself.  8-byte aligned so the low bits of its address are free
 * for the jump-entry flags, as in the kernel. */
struct static_key {
	int enabled;          /* 0 or 1; read with __atomic loads */
	int patched;          /* sites have been brought to `enabled` */
} __attribute__((aligned(8)));

struct static_key_true {
	struct static_key key;
};
struct static_key_false {
	struct static_key key;
};

#define STATIC_KEY_INIT_TRUE  { .enabled = 1, .patched = 0 }
#define STATIC_KEY_INIT_FALSE { .enabled = 0, .patched = 0 }

#define DEFINE_STATIC_KEY_TRUE(name) \
	struct static_key_true name = { .key = STATIC_KEY_INIT_TRUE }
#define DEFINE_STATIC_KEY_FALSE(name) \
	struct static_key_false name = { .key = STATIC_KEY_INIT_FALSE }
#define DECLARE_STATIC_KEY_TRUE(name) extern struct static_key_true name
#define DECLARE_STATIC_KEY_FALSE(name) extern struct static_key_false name

/* One `__lace_jump_table` entry (also the layout of a kernel __jump_table
 * entry on x86-64). */
struct lace_jump_entry {
	int32_t code;
	int32_t target;
	int64_t key;
};

#define LACE_JUMP_TYPE_TRUE 1UL  /* key flag bit 0 */
#define LACE_JUMP_TYPE_MASK 3UL  /* bits the kernel reserves (bit 1: init) */
#define LACE_JUMP_INSN_SIZE 5

static inline uintptr_t jump_entry_code(const struct lace_jump_entry *e)
{
	return (uintptr_t)&e->code + e->code;
}
static inline uintptr_t jump_entry_target(const struct lace_jump_entry *e)
{
	return (uintptr_t)&e->target + e->target;
}
static inline struct static_key *jump_entry_key(const struct lace_jump_entry *e)
{
	return (struct static_key *)(((uintptr_t)&e->key + (uintptr_t)e->key) &
				     ~LACE_JUMP_TYPE_MASK);
}
static inline bool jump_entry_is_branch(const struct lace_jump_entry *e)
{
	return ((uintptr_t)e->key & LACE_JUMP_TYPE_TRUE) != 0;
}

#if defined(__x86_64__) && !defined(LACE_NO_ASM_GOTO)
#define LACE_HAVE_JUMP_LABEL 1

/* The entry: code, target, key|branch, each relative to its own field. */
#define __LACE_JUMP_TABLE_ENTRY(label)                                   \
	".pushsection __lace_jump_table, \"aw\"\n\t"                      \
	".balign 8\n\t"                                                   \
	".long 1b - ., " label " - .\n\t"                                 \
	".quad %c0 + %c1 - .\n\t"                                         \
	".popsection\n\t"

/* Not taken by default: a 5-byte nop; the kernel's arch_static_branch(). */
static inline __attribute__((always_inline)) bool
arch_static_branch(struct static_key *key, bool branch)
{
	asm goto("1:\n\t"
		 ".byte 0x0f,0x1f,0x44,0x00,0x00\n\t"
		 __LACE_JUMP_TABLE_ENTRY("%l[l_yes]")
		 : : "i"(key), "i"(branch) : : l_yes);
	return false;
l_yes:
	return true;
}

/* Taken by default: a 5-byte jmp rel32; arch_static_branch_jump(). */
static inline __attribute__((always_inline)) bool
arch_static_branch_jump(struct static_key *key, bool branch)
{
	asm goto("1:\n\t"
		 ".byte 0xe9\n\t"
		 ".long %l[l_yes] - 2f\n\t"
		 "2:\n\t"
		 __LACE_JUMP_TABLE_ENTRY("%l[l_yes]")
		 : : "i"(key), "i"(branch) : : l_yes);
	return false;
l_yes:
	return true;
}
#else
#define LACE_HAVE_JUMP_LABEL 0
static inline bool arch_static_branch(struct static_key *key, bool branch)
{
	/* what the patched code would do: jump iff enabled ^ branch */
	return (__atomic_load_n(&key->enabled, __ATOMIC_RELAXED) != 0) ^ branch;
}
static inline bool arch_static_branch_jump(struct static_key *key, bool branch)
{
	return arch_static_branch(key, branch);
}
#endif

/* As include/linux/jump_label.h: the key's type decides the default code,
 * the macro decides which way the compiler lays out the blocks. */
#define static_branch_likely(x)                                                  \
	({                                                                       \
		bool branch__;                                                   \
		if (__builtin_types_compatible_p(__typeof__(*(x)), struct static_key_true)) \
			branch__ = !arch_static_branch(&(x)->key, true);         \
		else if (__builtin_types_compatible_p(__typeof__(*(x)), struct static_key_false)) \
			branch__ = !arch_static_branch_jump(&(x)->key, true);    \
		else                                                             \
			branch__ = __lace_static_key_type_error();               \
		__builtin_expect(branch__, 1);                                   \
	})

#define static_branch_unlikely(x)                                                \
	({                                                                       \
		bool branch__;                                                   \
		if (__builtin_types_compatible_p(__typeof__(*(x)), struct static_key_true)) \
			branch__ = arch_static_branch_jump(&(x)->key, false);    \
		else if (__builtin_types_compatible_p(__typeof__(*(x)), struct static_key_false)) \
			branch__ = arch_static_branch(&(x)->key, false);         \
		else                                                             \
			branch__ = __lace_static_key_type_error();               \
		__builtin_expect(branch__, 0);                                   \
	})

/* Referenced only from the dead arm of the macros above: using them on
 * anything but a static_key_{true,false} fails at link time. */
extern bool __lace_static_key_type_error(void);

/* Enable/disable: patch every site of the key (all of them in the running
 * executable's __lace_jump_table), safe against concurrent execution.
 * Serialised internally; may be called from any thread, not from a signal
 * handler.  Return 0 or a negative errno (mprotect/membarrier failure; the
 * message is in lace_error_msg()). */
int static_key_enable(struct static_key *key);
int static_key_disable(struct static_key *key);
#define static_branch_enable(x) static_key_enable(&(x)->key)
#define static_branch_disable(x) static_key_disable(&(x)->key)

static inline bool static_key_enabled(const struct static_key *key)
{
	return __atomic_load_n(&key->enabled, __ATOMIC_ACQUIRE) != 0;
}

/* The table of this executable (empty when no site was linked). */
const struct lace_jump_entry *jump_table_start(void);
const struct lace_jump_entry *jump_table_stop(void);
/* Number of sites that belong to key. */
unsigned static_key_count_sites(const struct static_key *key);
/* Sites currently patched since start-up (all keys), for tests. */
unsigned long static_key_patch_count(void);
/* How many int3 traps the patcher emulated (threads that ran into a site
 * while it was being rewritten). */
unsigned long static_key_trap_count(void);

#endif
