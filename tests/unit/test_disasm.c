/* Branch classification on hand-assembled instructions (x86-64 and ppc64le),
 * kernel thunk handling, and the fast x86 decoder cross-checked against
 * libopcodes instruction by instruction on real code. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <unistd.h>

#include "layout/disasm.h"
#include "util/array.h"

#define VMA 0x401000ull

struct expect {
	uint64_t off;   /* from VMA */
	enum lace_branch_kind kind;
	bool has_target;
	uint64_t target_off;
};

static void decode_both(enum lace_arch arch, const uint8_t *code, size_t len,
			const struct expect *want, size_t nwant, size_t want_insns)
{
	for (int e = 0; e < 2; e++) {
		struct disasm *d = disasm_new(arch, e ? DISASM_ENGINE_LIBOPCODES : DISASM_ENGINE_FAST);
		assert_non_null(d);
		struct branch_vec bv = { 0 };
		size_t n = disasm_chunk(d, code, len, VMA, VMA, VMA + len, &bv);
		if (want_insns)
			assert_int_equal(n, want_insns);
		assert_int_equal(bv.n, nwant);
		for (size_t i = 0; i < nwant; i++) {
			if (bv.v[i].kind != want[i].kind)
				print_message("engine %d: branch at +%#llx is %s\n", e,
					      (unsigned long long)(bv.v[i].addr - VMA),
					      branch_kind_name(bv.v[i].kind));
			assert_int_equal(bv.v[i].addr, VMA + want[i].off);
			assert_string_equal(branch_kind_name(bv.v[i].kind),
					    branch_kind_name(want[i].kind));
			assert_int_equal(bv.v[i].has_target, want[i].has_target);
			if (want[i].has_target)
				assert_int_equal(bv.v[i].target, VMA + want[i].target_off);
			assert_int_equal(bv.v[i].func, -1);
		}
		branch_vec_release(&bv);
		disasm_free(d);
	}
}

static void test_x86_kinds(void **state)
{
	(void)state;
	static const uint8_t code[] = {
		0xeb, 0x02,                         /* 0x00 jmp rel8 -> 0x04 */
		0x90, 0x90,                         /* 0x02 nop; nop */
		0xe9, 0xf7, 0xff, 0xff, 0xff,       /* 0x04 jmp rel32 -> 0x00 */
		0x74, 0xfc,                         /* 0x09 je rel8 -> 0x07 */
		0x0f, 0x85, 0x10, 0x00, 0x00, 0x00, /* 0x0b jne rel32 -> 0x21 */
		0xe8, 0x00, 0x01, 0x00, 0x00,       /* 0x11 call -> 0x116 */
		0xff, 0xd0,                         /* 0x16 call *%rax */
		0xff, 0xe0,                         /* 0x18 jmp *%rax */
		0xff, 0x25, 0x00, 0x00, 0x00, 0x00, /* 0x1a jmp *0(%rip) */
		0x41, 0xff, 0xd3,                   /* 0x20 call *%r11 */
		0xc3,                               /* 0x23 ret */
		0xf3, 0xc3,                         /* 0x24 repz ret */
		0xc2, 0x08, 0x00,                   /* 0x26 ret $8 */
		0xe3, 0x00,                         /* 0x29 jrcxz -> 0x2b */
		0xe2, 0xfe,                         /* 0x2b loop -> 0x2b */
		0x3e, 0xff, 0xe1,                   /* 0x2d notrack jmp *%rcx */
		0xf2, 0xe9, 0x00, 0x00, 0x00, 0x00, /* 0x30 bnd jmp -> 0x36 */
		0x48, 0x8b, 0x05, 0x00, 0x00, 0x00, 0x00, /* 0x36 mov 0(%rip),%rax */
		0x65, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00, /* 0x3d mov %gs:0x28,%rax */
		0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00, /* 0x46 nopw */
		0x0f, 0x1f, 0x80, 0, 0, 0, 0,       /* 0x4c nopl */
		0xf3, 0x0f, 0x1e, 0xfa,             /* 0x53 endbr64 */
		0x48, 0xc7, 0xc0, 1, 0, 0, 0,       /* 0x57 mov $1,%rax */
		0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8, /* 0x5e movabs */
		0xc7, 0xf8, 0x02, 0x00, 0x00, 0x00, /* 0x68 xbegin -> 0x70 */
		0x90, 0x90,                         /* 0x6e */
		0xcf,                               /* 0x70 iret */
	};
	static const struct expect want[] = {
		{ 0x00, LACE_BR_JUMP, true, 0x04 },
		{ 0x04, LACE_BR_JUMP, true, 0x00 },
		{ 0x09, LACE_BR_COND, true, 0x07 },
		{ 0x0b, LACE_BR_COND, true, 0x21 },
		{ 0x11, LACE_BR_CALL, true, 0x116 },
		{ 0x16, LACE_BR_INDIRECT_CALL, false, 0 },
		{ 0x18, LACE_BR_INDIRECT_JUMP, false, 0 },
		{ 0x1a, LACE_BR_INDIRECT_JUMP, false, 0 },
		{ 0x20, LACE_BR_INDIRECT_CALL, false, 0 },
		{ 0x23, LACE_BR_RET, false, 0 },
		{ 0x24, LACE_BR_RET, false, 0 },
		{ 0x26, LACE_BR_RET, false, 0 },
		{ 0x29, LACE_BR_COND, true, 0x2b },
		{ 0x2b, LACE_BR_COND, true, 0x2b },
		{ 0x2d, LACE_BR_INDIRECT_JUMP, false, 0 },
		{ 0x30, LACE_BR_JUMP, true, 0x36 },
		{ 0x68, LACE_BR_COND, true, 0x70 },
		{ 0x70, LACE_BR_RET, false, 0 },
	};
	decode_both(LACE_ARCH_X86_64, code, sizeof(code), want, ARRAY_SIZE(want), 29);
}

/* A symbol in the middle of an instruction cuts it (libopcodes will not
 * read past stop_vma, so the cut call is no branch), and zero runs are
 * skipped like objdump skips them. */
static void test_x86_chunk_edges(void **state)
{
	(void)state;
	static const uint8_t code[] = {
		0x90,
		0xe8, 0x00, 0x00, 0x00, 0x00, /* call, cut by stop at 0x03 */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0xc3,
	};
	for (int e = 0; e < 2; e++) {
		struct disasm *d = disasm_new(LACE_ARCH_X86_64,
					      e ? DISASM_ENGINE_LIBOPCODES : DISASM_ENGINE_FAST);
		struct branch_vec bv = { 0 };
		assert_true(disasm_chunk(d, code, sizeof(code), VMA, VMA, VMA + 3, &bv) >= 1);
		assert_int_equal(bv.n, 0);
		/* 12 zeros: 12 & ~3 skipped, then the ret */
		assert_int_equal(disasm_chunk(d, code, sizeof(code), VMA, VMA + 6, VMA + sizeof(code), &bv), 1);
		assert_int_equal(bv.n, 1);
		assert_int_equal(bv.v[0].addr, VMA + 18);
		assert_int_equal(bv.v[0].kind, LACE_BR_RET);
		branch_vec_release(&bv);
		disasm_free(d);
	}
}

static void put32le(uint8_t *p, uint32_t w)
{
	p[0] = w;
	p[1] = w >> 8;
	p[2] = w >> 16;
	p[3] = w >> 24;
}

static void test_ppc64le_kinds(void **state)
{
	(void)state;
	static const uint32_t words[] = {
		0x48000010, /* 0x00 b +0x10 -> 0x10 */
		0x4bfffffd, /* 0x04 bl -4 -> 0x00 */
		0x41820008, /* 0x08 beq +8 -> 0x10 */
		0x4e800020, /* 0x0c blr */
		0x4e800420, /* 0x10 bctr */
		0x4e800421, /* 0x14 bctrl */
		0x429f0005, /* 0x18 bcl 20,31,+4 -> 0x1c */
		0x60000000, /* 0x1c nop */
		0x4d820020, /* 0x20 beqlr */
		0x42000000 | 0xfff8, /* 0x24 bdnz -8 -> 0x1c */
		0x38600000, /* 0x28 li r3,0 */
	};
	uint8_t code[sizeof(words)];
	for (size_t i = 0; i < sizeof(words) / 4; i++)
		put32le(code + 4 * i, words[i]);
	static const struct expect want[] = {
		{ 0x00, LACE_BR_JUMP, true, 0x10 },
		{ 0x04, LACE_BR_CALL, true, 0x00 },
		{ 0x08, LACE_BR_COND, true, 0x10 },
		{ 0x0c, LACE_BR_RET, false, 0 },
		{ 0x10, LACE_BR_INDIRECT_JUMP, false, 0 },
		{ 0x14, LACE_BR_INDIRECT_CALL, false, 0 },
		{ 0x18, LACE_BR_CALL, true, 0x1c },
		{ 0x20, LACE_BR_RET, false, 0 },
		{ 0x24, LACE_BR_COND, true, 0x1c },
	};
	decode_both(LACE_ARCH_PPC64LE, code, sizeof(code), want, ARRAY_SIZE(want), 11);
}

/* The same words big-endian (ppc64 ELFv1/v2 BE): only the byte order of
 * the instruction word differs. */
static void test_ppc64_big_endian(void **state)
{
	(void)state;
	static const uint32_t words[] = { 0x48000008, 0x60000000, 0x4e800020, 0x4bfffff9 };
	uint8_t code[sizeof(words)];
	for (size_t i = 0; i < 4; i++) {
		code[4 * i] = words[i] >> 24;
		code[4 * i + 1] = words[i] >> 16;
		code[4 * i + 2] = words[i] >> 8;
		code[4 * i + 3] = words[i];
	}
	static const struct expect want[] = {
		{ 0x00, LACE_BR_JUMP, true, 0x08 },
		{ 0x08, LACE_BR_RET, false, 0 },
		{ 0x0c, LACE_BR_CALL, true, 0x04 },
	};
	decode_both(LACE_ARCH_PPC64, code, sizeof(code), want, 3, 4);
}

static void test_ppc_word_absolute(void **state)
{
	(void)state;
	enum lace_branch_kind k;
	bool t;
	uint64_t target;
	/* bla 0x100 */
	assert_true(disasm_ppc_word(0x48000103, 0x5000, &k, &t, &target));
	assert_int_equal(k, LACE_BR_CALL);
	assert_int_equal(target, 0x100);
	/* addi is not a branch */
	assert_false(disasm_ppc_word(0x38630001, 0x5000, &k, &t, &target));
}

static void test_thunks(void **state)
{
	(void)state;
	assert_int_equal(disasm_thunk_kind("__x86_return_thunk"), DISASM_THUNK_RET);
	assert_int_equal(disasm_thunk_kind("srso_return_thunk"), DISASM_THUNK_RET);
	assert_int_equal(disasm_thunk_kind("__x86_indirect_thunk_rax"), DISASM_THUNK_INDIRECT);
	assert_int_equal(disasm_thunk_kind("__x86_indirect_call_thunk_r11"), DISASM_THUNK_INDIRECT);
	assert_int_equal(disasm_thunk_kind("__x86_indirect_thunk_"), DISASM_THUNK_NONE);
	assert_int_equal(disasm_thunk_kind("__x86_return_thunk2"), DISASM_THUNK_NONE);
	assert_int_equal(disasm_thunk_kind("memcpy"), DISASM_THUNK_NONE);

	/* jmp __x86_return_thunk; call __x86_indirect_thunk_rax;
	 * jne __x86_return_thunk; jmp __x86_indirect_thunk_rax; call memcpy */
	static const uint8_t code[] = {
		0xe9, 0xfb, 0x0f, 0x00, 0x00,       /* 0x00 jmp  -> 0x1000 */
		0xe8, 0xf6, 0x1f, 0x00, 0x00,       /* 0x05 call -> 0x2000 */
		0x0f, 0x85, 0xf0, 0x0f, 0x00, 0x00, /* 0x0a jne  -> 0x1000 */
		0xe9, 0xeb, 0x1f, 0x00, 0x00,       /* 0x10 jmp  -> 0x2000 */
		0xe8, 0xe6, 0x2f, 0x00, 0x00,       /* 0x15 call -> 0x3000 */
	};
	struct disasm *d = disasm_new(LACE_ARCH_X86_64, DISASM_ENGINE_FAST);
	struct branch_vec bv = { 0 };
	disasm_chunk(d, code, sizeof(code), VMA, VMA, VMA + sizeof(code), &bv);
	assert_int_equal(bv.n, 5);
	const uint64_t ret[] = { VMA + 0x1000 }, ind[] = { VMA + 0x2000 };
	assert_int_equal(branches_apply_thunks(bv.v, bv.n, ret, 1, ind, 1), 4);
	const enum lace_branch_kind want[] = { LACE_BR_RET, LACE_BR_INDIRECT_CALL, LACE_BR_RET,
					       LACE_BR_INDIRECT_JUMP, LACE_BR_CALL };
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(bv.v[i].kind, want[i]);
		assert_int_equal(bv.v[i].has_target, i == 4);
	}
	assert_int_equal(bv.v[4].target, VMA + 0x3000);
	branch_vec_release(&bv);
	disasm_free(d);
}

static void test_kind_names(void **state)
{
	(void)state;
	const char *names[] = { "jump", "cond", "call", "indirect-jump", "indirect-call", "ret" };
	for (int k = 0; k < 6; k++) {
		assert_string_equal(branch_kind_name(k), names[k]);
		assert_int_equal(branch_kind_parse(names[k]), k);
	}
	assert_string_equal(branch_kind_name(17), "?");
	assert_int_equal(branch_kind_parse("jmp"), -1);
	assert_null(disasm_new(LACE_ARCH_OTHER, DISASM_ENGINE_AUTO));
}

/* Decode every executable section of an x86-64 ELF with both engines, as
 * one chunk each, and require identical branches and instruction counts.
 * A file that cannot be read as x86-64 ELF fails the test: a cross-check
 * that quietly checks nothing would pass forever. */
static size_t cross_check_file(const char *path, size_t *fast_out)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		fail_msg("%s: cannot open: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t total = 0;
	GElf_Ehdr eh;
	if (!e || !gelf_getehdr(e, &eh) || eh.e_machine != EM_X86_64)
		fail_msg("%s: not an x86-64 ELF file", path);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data || !data->d_size)
			continue;
		struct branch_vec a = { 0 }, b = { 0 };
		struct disasm *fast = disasm_new(LACE_ARCH_X86_64, DISASM_ENGINE_FAST);
		struct disasm *slow = disasm_new(LACE_ARCH_X86_64, DISASM_ENGINE_LIBOPCODES);
		size_t na = disasm_chunk(fast, data->d_buf, data->d_size, sh.sh_addr, sh.sh_addr,
					 sh.sh_addr + data->d_size, &a);
		size_t nb = disasm_chunk(slow, data->d_buf, data->d_size, sh.sh_addr, sh.sh_addr,
					 sh.sh_addr + data->d_size, &b);
		size_t nf, ns;
		disasm_counts(fast, &nf, &ns);
		*fast_out += nf;
		assert_int_equal(na, nb);
		assert_int_equal(a.n, b.n);
		for (size_t i = 0; i < a.n; i++) {
			if (a.v[i].addr != b.v[i].addr || a.v[i].kind != b.v[i].kind ||
			    a.v[i].target != b.v[i].target)
				fail_msg("%s: %#llx: fast %s %#llx, libopcodes %#llx %s %#llx", path,
					 (unsigned long long)a.v[i].addr, branch_kind_name(a.v[i].kind),
					 (unsigned long long)a.v[i].target,
					 (unsigned long long)b.v[i].addr, branch_kind_name(b.v[i].kind),
					 (unsigned long long)b.v[i].target);
		}
		total += na;
		branch_vec_release(&a);
		branch_vec_release(&b);
		disasm_free(fast);
		disasm_free(slow);
	}
	elf_end(e);
	close(fd);
	return total;
}

/* Compare both engines on one buffer; returns instructions decoded. */
static size_t cross_check_buffer(const uint8_t *buf, size_t len, uint64_t vma, const char *what,
				 size_t *fast_out)
{
	struct branch_vec a = { 0 }, b = { 0 };
	struct disasm *fast = disasm_new(LACE_ARCH_X86_64, DISASM_ENGINE_FAST);
	struct disasm *slow = disasm_new(LACE_ARCH_X86_64, DISASM_ENGINE_LIBOPCODES);
	size_t na = disasm_chunk(fast, buf, len, vma, vma, vma + len, &a);
	size_t nb = disasm_chunk(slow, buf, len, vma, vma, vma + len, &b);
	size_t nf, ns;
	disasm_counts(fast, &nf, &ns);
	*fast_out += nf;
	assert_int_equal(na, nb);
	assert_int_equal(a.n, b.n);
	for (size_t i = 0; i < a.n; i++) {
		if (a.v[i].addr != b.v[i].addr || a.v[i].kind != b.v[i].kind ||
		    a.v[i].target != b.v[i].target)
			fail_msg("%s: %#llx: fast %s %#llx, libopcodes %#llx %s %#llx", what,
				 (unsigned long long)a.v[i].addr, branch_kind_name(a.v[i].kind),
				 (unsigned long long)a.v[i].target, (unsigned long long)b.v[i].addr,
				 branch_kind_name(b.v[i].kind), (unsigned long long)b.v[i].target);
	}
	branch_vec_release(&a);
	branch_vec_release(&b);
	disasm_free(fast);
	disasm_free(slow);
	return na;
}

static uint8_t *random_code(size_t len, uint64_t seed)
{
	static const uint8_t common[] = { 0x66, 0x48, 0x0f, 0xf3, 0xf2, 0x41, 0x2e,
					  0x3e, 0x65, 0xc7, 0xff, 0x8d, 0x0f, 0xe8 };
	uint8_t *buf = malloc(len + 16);
	uint64_t x = seed;
	for (size_t i = 0; i < len + 16; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (uint8_t)x;
	}
	/* more prefixes and escapes than uniform bytes give */
	for (size_t i = 0; i < len; i += 3)
		if ((buf[i] & 7) == 0)
			buf[i] = common[buf[i + 1] % sizeof(common)];
	return buf;
}

/* Random bytes reach every odd prefix run and opcode: at every offset, with
 * 1..16 bytes readable, the fast path must give libopcodes' length, kind
 * and target, or hand the instruction over. */
static void test_x86_fast_random_bytes(void **state)
{
	(void)state;
	size_t len = 1 << 18, fast = 0;
	uint8_t *buf = random_code(len, 0x9e3779b97f4a7c15ull);
	struct disasm *f = disasm_new(LACE_ARCH_X86_64, DISASM_ENGINE_FAST);
	struct disasm *s = disasm_new(LACE_ARCH_X86_64, DISASM_ENGINE_LIBOPCODES);
	for (size_t off = 0; off < len; off++) {
		struct branch_vec a = { 0 }, b = { 0 };
		size_t avail = 1 + (buf[off + 1] & 15);
		int la = disasm_one(f, buf + off, avail, VMA, &a);
		int lb = disasm_one(s, buf + off, avail, VMA, &b);
		if (la != lb || a.n != b.n ||
		    (a.n && (a.v[0].kind != b.v[0].kind || a.v[0].target != b.v[0].target)))
			fail_msg("offset %zu (%02x %02x %02x %02x, %zu readable): fast %d, libopcodes %d",
				 off, buf[off], buf[off + 1], buf[off + 2], buf[off + 3], avail, la, lb);
		branch_vec_release(&a);
		branch_vec_release(&b);
	}
	size_t nf, ns;
	disasm_counts(f, &nf, &ns);
	assert_true(nf > len / 2);
	disasm_free(f);
	disasm_free(s);

	/* and as one instruction stream */
	size_t n = cross_check_buffer(buf, len, VMA, "random", &fast);
	print_message("random bytes: %zu offsets compared, a %zu-instruction stream (%zu fast)\n",
		      len, n, fast);
	assert_true(n > len / 8);
	free(buf);
}

/* dl_iterate_phdr callback: the path of the loaded libbfd multiarch
 * library (libbfd-2.40-multiarch.so today), whatever its version. */
static int find_libbfd(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	const char *base = strrchr(info->dlpi_name, '/');
	base = base ? base + 1 : info->dlpi_name;
	if (strncmp(base, "libbfd", 6) || !strstr(base, "multiarch"))
		return 0;
	*(const char **)data = info->dlpi_name;
	return 1;
}

static void test_x86_fast_matches_libopcodes(void **state)
{
	(void)state;
	/* this test binary itself (libc, cmocka and lace code linked in) and
	 * a big shared library, the libbfd this binary runs with (found among
	 * the loaded objects, so a binutils upgrade cannot make it vanish);
	 * LACE_TEST_ELF adds one more (a vmlinux) */
	const char *bfd = NULL;
	dl_iterate_phdr(find_libbfd, &bfd);
	if (!bfd)
		fail_msg("no libbfd*multiarch* among the loaded shared objects (lace links -lbfd-multiarch)");
	const char *files[] = { "/proc/self/exe", bfd, getenv("LACE_TEST_ELF") };
	size_t insns = 0, fast = 0;
	for (size_t i = 0; i < 3; i++) {
		if (!files[i])
			continue;
		size_t n = cross_check_file(files[i], &fast);
		print_message("%s: %zu instructions\n", files[i], n);
		if (n < 1000)
			fail_msg("%s: only %zu instructions decoded", files[i], n);
		insns += n;
	}
	assert_true(insns > 10000);
	/* the point of the fast path: it must take most instructions */
	assert_true(fast * 10 > insns * 8);
	print_message("cross-checked %zu instructions, %zu by the fast path\n", insns, fast);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_kinds),
		cmocka_unit_test(test_x86_chunk_edges),
		cmocka_unit_test(test_ppc64le_kinds),
		cmocka_unit_test(test_ppc64_big_endian),
		cmocka_unit_test(test_ppc_word_absolute),
		cmocka_unit_test(test_thunks),
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_x86_fast_matches_libopcodes),
		cmocka_unit_test(test_x86_fast_random_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
