/* Seed program for the fuzz corpus (built at fuzz time, never committed as
 * a binary): a small ELF that has every structure the loader models, so
 * the fuzzer starts from inputs that reach deep paths:
 * - a kernel-style relative __jump_table entry ({s32 code, s32 target, s64 key})
 *   from asm goto (x86-64 only), and a __lace_jump_table twin;
 * - marker-bracketed code (__entry_text_start/_end) in .entry.text;
 * - GCC .cold parts and a switch compiled to an indirect jump table;
 * - an SDT probe note (sys/sdt.h);
 * - DWARF when built with -g. */
#include <sys/sdt.h>

/* no libc headers: the ppc64le cross compiler has none installed */
int puts(const char *s);
void abort(void);

struct static_key { int enabled; };
struct static_key seed_key;

#if defined(__x86_64__)
static inline __attribute__((always_inline)) int key_false(struct static_key *key)
{
	asm goto("1: .byte 0x0f,0x1f,0x44,0x00,0x00\n\t"
		 ".pushsection __jump_table, \"aw\"\n\t"
		 ".balign 8\n\t"
		 ".long 1b - ., %l[l_yes] - .\n\t"
		 ".quad %c0 - .\n\t"
		 ".popsection\n\t"
		 ".pushsection __lace_jump_table, \"aw\"\n\t"
		 ".balign 8\n\t"
		 ".long 1b - ., %l[l_yes] - .\n\t"
		 ".quad %c0 + 1 - .\n\t"
		 ".popsection\n\t"
		 : : "i"(key) : : l_yes);
	return 0;
l_yes:
	return 1;
}
#else
static inline int key_false(struct static_key *key) { return key->enabled; }
#endif

/* the entry-code region, bracketed like the kernel's .entry.text: one asm
 * block, so the markers cannot be reordered away from the code */
#if defined(__x86_64__)
asm(".pushsection .entry.text, \"ax\"\n"
    ".globl __entry_text_start\n__entry_text_start:\n"
    ".globl seed_entry\n.type seed_entry, @function\nseed_entry:\n"
    "\tlea 1(%rdi,%rdi,2), %eax\n\tret\n"
    ".size seed_entry, . - seed_entry\n"
    ".globl __entry_text_end\n__entry_text_end:\n"
    ".popsection\n");
int seed_entry(int x);
#else
__attribute__((section(".entry.text"), noinline)) int seed_entry(int x)
{
	return x * 3 + 1;
}
#endif

__attribute__((noinline, cold)) static void seed_slow(int x)
{
	puts(x ? "slow path" : "slow path 0");
}

__attribute__((noinline)) int seed_hot(int x)
{
	if (key_false(&seed_key))
		seed_slow(x);
	if (__builtin_expect(x < 0, 0)) {
		puts("negative");
		abort();
	}
	DTRACE_PROBE1(lace_seed, hot, x);
	switch (x & 7) {
	case 0: return seed_entry(x);
	case 1: return x + 11;
	case 2: return x * 13;
	case 3: return x ^ 17;
	case 4: return x - 19;
	case 5: return x << 2;
	case 6: return x >> 1;
	default: return 23;
	}
}

int main(int argc, char **argv)
{
	(void)argv;
	return seed_hot(argc) & 1;
}
