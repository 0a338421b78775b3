/* Run-time patching of static-key sites, after the kernel's
 * arch/x86/kernel/alternative.c:text_poke_bp() and kernel/jump_label.c.
 *
 * Rewriting a 5-byte instruction that other threads may be executing is
 * done in the order the kernel uses, because a CPU may fetch the
 * instruction while it is half written:
 *
 *   1. write int3 (0xcc) over the first byte, sync every core;
 *   2. write bytes 1..4 of the new instruction, sync;
 *   3. write the new first byte, sync.
 *
 * A thread that reaches the site meanwhile executes int3 and gets SIGTRAP;
 * the handler emulates the new instruction (sets RIP to the jump target,
 * or past the nop).  "Sync" is membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_
 * SYNC_CORE): it makes every running thread of the process execute a
 * core-serialising instruction, which is what x86's cross-modifying-code
 * rule asks for (the kernel uses an IPI for the same).  Where the kernel
 * lacks SYNC_CORE we fall back to PRIVATE_EXPEDITED: its IPI returns with
 * IRET, itself serialising on x86.
 *
 * A SIGTRAP can be delivered late, after the site was finished (the thread
 * trapped, then the patcher went on).  The handler therefore recognises any
 * known site: if the byte at the trap is no longer int3 it restarts the
 * instruction, which by then is complete.  The patch descriptor is read
 * under a sequence count so a torn read restarts as well.
 *
 * Text pages are made writable with mprotect(RWX) around each write (the
 * page stays executable throughout, so running threads never fault). */
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "probes/static_key.h"
#include "util/error.h"

extern const struct lace_jump_entry __start___lace_jump_table[] __attribute__((weak));
extern const struct lace_jump_entry __stop___lace_jump_table[] __attribute__((weak));

const struct lace_jump_entry *jump_table_start(void)
{
	return __start___lace_jump_table;
}

const struct lace_jump_entry *jump_table_stop(void)
{
	return __stop___lace_jump_table ? __stop___lace_jump_table : __start___lace_jump_table;
}

static const uint8_t nop5[LACE_JUMP_INSN_SIZE] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

static pthread_mutex_t patch_lock = PTHREAD_MUTEX_INITIALIZER;
static int patch_ready;            /* handler installed, membarrier registered */
static int sync_cmd;               /* the membarrier command we use, 0 = none */
static unsigned long patch_count;
static unsigned long trap_count;

/* The site being rewritten; seq is odd while the descriptor changes. */
static struct {
	unsigned long seq;
	uintptr_t addr;
	uintptr_t new_ip;               /* where the new instruction goes */
} poke;

static struct sigaction old_trap;

unsigned long static_key_patch_count(void)
{
	return __atomic_load_n(&patch_count, __ATOMIC_RELAXED);
}

unsigned long static_key_trap_count(void)
{
	return __atomic_load_n(&trap_count, __ATOMIC_RELAXED);
}

#ifdef __x86_64__
/* (only the x86 trap handler asks: elsewhere no site is ever patched) */
static int is_site(uintptr_t addr)
{
	for (const struct lace_jump_entry *e = jump_table_start(); e < jump_table_stop(); e++)
		if (jump_entry_code(e) == addr)
			return 1;
	return 0;
}
#endif

static void sigtrap_handler(int sig, siginfo_t *si, void *ucv)
{
#ifdef __x86_64__
	ucontext_t *uc = ucv;
	uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	uintptr_t site = ip - 1;

	if (is_site(site)) {
		unsigned long s1 = __atomic_load_n(&poke.seq, __ATOMIC_ACQUIRE);
		uintptr_t addr = __atomic_load_n(&poke.addr, __ATOMIC_RELAXED);
		uintptr_t new_ip = __atomic_load_n(&poke.new_ip, __ATOMIC_RELAXED);
		unsigned long s2;

		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&poke.seq, __ATOMIC_RELAXED);
		__atomic_fetch_add(&trap_count, 1, __ATOMIC_RELAXED);
		if (s1 == s2 && !(s1 & 1) && addr == site &&
		    *(volatile uint8_t *)site == 0xcc)
			uc->uc_mcontext.gregs[REG_RIP] = (greg_t)new_ip;
		else
			uc->uc_mcontext.gregs[REG_RIP] = (greg_t)site; /* re-execute */
		return;
	}
#endif
	/* Not ours: hand it to whoever had SIGTRAP before, or die of it. */
	if (old_trap.sa_flags & SA_SIGINFO) {
		if (old_trap.sa_sigaction) {
			old_trap.sa_sigaction(sig, si, ucv);
			return;
		}
	} else if (old_trap.sa_handler != SIG_DFL && old_trap.sa_handler != SIG_IGN) {
		old_trap.sa_handler(sig);
		return;
	}
	signal(SIGTRAP, SIG_DFL);
	raise(SIGTRAP);
}

static long sys_membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

static int patch_init(void)
{
	struct sigaction sa;

	if (patch_ready)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigtrap_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &old_trap) < 0)
		return lace_error_set(errno, "static keys: sigaction(SIGTRAP): %s", strerror(errno));
	if (sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE) == 0)
		sync_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE;
	else if (sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0)
		sync_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
	else
		sync_cmd = 0; /* no membarrier: correct only while single-threaded */
	patch_ready = 1;
	return 0;
}

static void sync_cores(void)
{
	if (sync_cmd)
		sys_membarrier(sync_cmd);
	else
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static int text_protect(uintptr_t addr, int writable)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t start = addr & ~(uintptr_t)(pg - 1);
	uintptr_t end = (addr + LACE_JUMP_INSN_SIZE + pg - 1) & ~(uintptr_t)(pg - 1);
	int prot = PROT_READ | PROT_EXEC | (writable ? PROT_WRITE : 0);

	if (mprotect((void *)start, end - start, prot) < 0)
		return lace_error_set(errno, "static keys: mprotect(%#lx): %s",
				      (unsigned long)start, strerror(errno));
	return 0;
}

static void text_write(uintptr_t addr, const uint8_t *bytes, size_t n)
{
	volatile uint8_t *p = (volatile uint8_t *)addr;

	for (size_t i = 0; i < n; i++)
		p[i] = bytes[i];
}

/* text_poke_bp(): rewrite the 5 bytes at addr with insn, int3 first. */
static int text_poke_bp(uintptr_t addr, const uint8_t insn[LACE_JUMP_INSN_SIZE],
			uintptr_t new_ip)
{
	static const uint8_t int3 = 0xcc;
	int rc = text_protect(addr, 1);

	if (rc)
		return rc;
	__atomic_fetch_add(&poke.seq, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&poke.addr, addr, __ATOMIC_RELAXED);
	__atomic_store_n(&poke.new_ip, new_ip, __ATOMIC_RELAXED);
	__atomic_fetch_add(&poke.seq, 1, __ATOMIC_RELEASE);

	text_write(addr, &int3, 1);
	sync_cores();
	text_write(addr + 1, insn + 1, LACE_JUMP_INSN_SIZE - 1);
	sync_cores();
	text_write(addr, insn, 1);
	sync_cores();
	__atomic_fetch_add(&patch_count, 1, __ATOMIC_RELAXED);
	return text_protect(addr, 0);
}

/* jump_label_type(): JMP when the key's state differs from the branch's
 * default sense. */
static int jump_entry_wants_jmp(const struct lace_jump_entry *e, int enabled)
{
	return enabled ^ jump_entry_is_branch(e);
}

static int jump_label_update(struct static_key *key, int enabled)
{
	for (const struct lace_jump_entry *e = jump_table_start(); e < jump_table_stop(); e++) {
		uintptr_t code = jump_entry_code(e), target = jump_entry_target(e);
		uint8_t jmp[LACE_JUMP_INSN_SIZE];
		const uint8_t *want;
		int32_t rel;
		int rc;

		if (jump_entry_key(e) != key)
			continue;
		rel = (int32_t)(target - (code + LACE_JUMP_INSN_SIZE));
		jmp[0] = 0xe9;
		memcpy(jmp + 1, &rel, sizeof(rel));
		want = jump_entry_wants_jmp(e, enabled) ? jmp : nop5;
		if (!memcmp((const void *)code, want, LACE_JUMP_INSN_SIZE))
			continue;
		/* The kernel BUG()s on unexpected bytes: a site must hold
		 * either form, else someone else patched it. */
		if (memcmp((const void *)code, jmp, LACE_JUMP_INSN_SIZE) &&
		    memcmp((const void *)code, nop5, LACE_JUMP_INSN_SIZE))
			return lace_error_set(EIO, "static keys: site %#lx holds unexpected bytes",
					      (unsigned long)code);
		rc = text_poke_bp(code, want, want == jmp ? target : code + LACE_JUMP_INSN_SIZE);
		if (rc)
			return rc;
	}
	return 0;
}

static int static_key_set(struct static_key *key, int enabled)
{
	int rc;

	pthread_mutex_lock(&patch_lock);
	rc = patch_init();
	if (!rc && (__atomic_load_n(&key->enabled, __ATOMIC_RELAXED) != enabled || !key->patched)) {
		__atomic_store_n(&key->enabled, enabled, __ATOMIC_RELEASE);
		rc = LACE_HAVE_JUMP_LABEL ? jump_label_update(key, enabled) : 0;
		key->patched = 1;
	}
	pthread_mutex_unlock(&patch_lock);
	return rc;
}

int static_key_enable(struct static_key *key)
{
	return static_key_set(key, 1);
}

int static_key_disable(struct static_key *key)
{
	return static_key_set(key, 0);
}

unsigned static_key_count_sites(const struct static_key *key)
{
	unsigned n = 0;

	for (const struct lace_jump_entry *e = jump_table_start(); e < jump_table_stop(); e++)
		n += jump_entry_key(e) == key;
	return n;
}
