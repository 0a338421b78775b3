/* hackbench: rt-tests hackbench's messaging, through the modelled kernel.
 *
 * The structure is rt-tests' (src/hackbench/hackbench.c, v2.x): `groups`
 * groups, each of `fds` receivers and `fds` senders; every sender writes
 * `loops` messages of `datasize` bytes to every receiver of its group, over
 * a socketpair (default) or a pipe (-p), the tasks being processes (-P,
 * default) or threads (-T).  Start-up uses the same protocol: each task
 * writes one byte to the ready pipe and polls the wake pipe, the main task
 * reads one byte per task then writes one byte to wake them all.  So for
 * the same -g/-f/-l the workload makes exactly the read and write system
 * calls rt-tests makes (tests/integration/t_bench_hackbench_syscalls.sh),
 * and stdout gets the same two header writes and one final write.
 *
 * What differs is the path of each message (bench/msgpath.h): through the
 * entry stub, a code footprint, and the hash MMU model. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/counts.h"
#include "bench/footprint.h"
#include "bench/mmuctx.h"
#include "bench/msgpath.h"
#include "bench/opts.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "measure/lace_window.h"

static const char usage[] =
	"usage: hackbench [options]\n"
	"rt-tests hackbench's messaging, every message through the entry code, a\n"
	"code footprint and the hash MMU model (see doc/workloads.md).\n"
	"rt-tests options:\n"
	"  -g, --groups=N         groups of senders and receivers (default 10)\n"
	"  -f, --fds=N            receivers (and senders) per group (default 20)\n"
	"  -l, --loops=N          messages each sender sends each receiver (default 100)\n"
	"  -s, --datasize=BYTES   message size (default 100)\n"
	"  -p, --pipe             send over pipes (default: socketpairs)\n"
	"  -i, --inet             send over TCP connections on 127.0.0.1\n"
	"  -P, --process          tasks are processes (fork; default; also --processes)\n"
	"  -T, --threads          tasks are POSIX threads\n"
	"  -F, --fifo             run the main task SCHED_FIFO (needs privilege)\n"
	"  -h, --help             this text\n"
	"model options:\n"
	"      --seed=N           seed of every random choice (default 1)\n"
	"      --depth=N          generated handlers run per message system call\n"
	"                         (default 8; 0: no code footprint)\n"
	"      --skew=S           Zipf exponent of handler popularity (default 1.0;\n"
	"                         0 = uniform)\n"
	"      --ring-pages=N     model pages each receiver's buffer rotates over\n"
	"                         (default 16)\n"
	MMUCTX_USAGE
	"      --list-hot=MASS    print the hottest handlers receiving MASS (0..1] of\n"
	"                         the calls, with their probabilities, and exit\n"
	"output: two header lines, then at the end `Time: S.mmm`, the model counts\n"
	"and one line `lace-counts: workload=hackbench key=value ...`.\n"
	"Exit status: 0 ok, 1 run-time failure, 2 invalid arguments.\n";

enum {
	OPT_SEED = 256, OPT_DEPTH, OPT_SKEW, OPT_RING, OPT_HTAB, OPT_PSIZE, OPT_OLD,
	OPT_YOUNG, OPT_LIST_HOT,
};

static struct {
	unsigned groups, fds, loops, datasize;
	bool pipes, inet, threads, fifo;
	uint64_t seed;
	unsigned depth, ring_pages;
	double skew;
	double list_hot;
	struct mmuctx_opts mmu;
} opt = {
	.groups = 10, .fds = 20, .loops = 100, .datasize = 100,
	.seed = 1, .depth = 8, .ring_pages = 16, .skew = 1.0,
	.mmu = MMUCTX_OPTS_DEFAULT,
};

/* Counters: the workload's own, then the model's (mmuctx). */
enum { C_MESSAGES, C_ENTRIES, C_HANDLER_CALLS, C_HANDLER_SUM, C_MODEL_ERRORS, C_MODEL };
static const char *count_names[C_MODEL + MMUCTX_NCOUNTS + 1] = {
	"messages", "entries", "handler_calls", "handler_sum", "model_errors",
};
static struct counts counts;
static struct hashmmu_mm *mm;

struct sender_group {
	unsigned nfds;
	int ready_out, wakefd;
	int *out_fds;
};

struct task {
	unsigned index;              /* worker index: stream and model slot */
	unsigned npackets;           /* receiver */
	int in_fds[2];               /* receiver */
	int ready_out, wakefd;
	struct sender_group *grp;    /* sender */
	pid_t pid;
	pthread_t thread;
};

__attribute__((noreturn)) static void barf(const char *msg)
{
	fprintf(stderr, "hackbench: %s: %s\n", msg, strerror(errno));
	exit(1);
}

/* A connected TCP pair on the loopback, made the way rt-tests makes it
 * (listen, non-blocking connect, accept), so -i costs the same calls. */
static void inet_socketpair(int fds[2])
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int s1, s2, on = 1, off = 0;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s1 = socket(AF_INET, SOCK_STREAM, 0)) < 0 || (s2 = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		barf("socket");
	if (bind(s1, (struct sockaddr *)&sin, len) || getsockname(s1, (struct sockaddr *)&sin, &len) ||
	    listen(s1, 10))
		barf("bind/listen");
	if (ioctl(s2, FIONBIO, &on) || ioctl(s1, FIONBIO, &on))
		barf("ioctl");
	if (connect(s2, (struct sockaddr *)&sin, len) < 0 && errno != EINPROGRESS)
		barf("connect");
	if ((fds[0] = accept(s1, (struct sockaddr *)&sin, &len)) < 0)
		barf("accept");
	if (ioctl(s2, FIONBIO, &off))
		barf("ioctl");
	fds[1] = s2;
	close(s1);
}

static void fdpair(int fds[2])
{
	if (opt.inet) {
		inet_socketpair(fds);
		return;
	}
	if (opt.pipes ? pipe(fds) : socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
		barf("creating fdpair");
}

/* Tell main we are ready (one 1-byte write), wait for "go" (poll): the
 * same system calls as rt-tests' ready(). */
static void ready(int ready_out, int wakefd)
{
	char dummy = '*';
	struct pollfd pfd = { .fd = wakefd, .events = POLLIN };

	if (write(ready_out, &dummy, 1) != 1)
		barf("ready write");
	if (poll(&pfd, 1, -1) != 1)
		barf("poll");
}

static void worker_done(struct msgpath_worker *w, uint64_t messages)
{
	counts_add(&counts, C_MESSAGES, messages);
	counts_add(&counts, C_ENTRIES, w->entries);
	counts_add(&counts, C_HANDLER_CALLS, w->fp.calls);
	counts_add(&counts, C_HANDLER_SUM, w->fp.sum);
	counts_add(&counts, C_MODEL_ERRORS, w->model_errors);
	/* A forked child has its own copy of the model: add what it did. */
	if (!opt.threads)
		mmuctx_count_end(mm, &counts, C_MODEL);
}

static void worker_begin(struct msgpath_worker *w, const struct task *t)
{
	if (!opt.threads)
		mmuctx_count_begin(mm);
	msgpath_worker_init(w, mm, opt.seed, t->index, opt.ring_pages,
			    mmuctx_page_bytes(opt.mmu.psize));
}

/* The measurement window (lace stat --window) is the message passing, as
 * hackbench's own Time: in process mode each task marks its own (the
 * parent only waits); in thread mode main() marks one around them all,
 * since the window is the process's. */
static void worker_window_begin(void)
{
	if (!opt.threads)
		lace_window_begin();
}

static void worker_window_end(void)
{
	if (!opt.threads)
		lace_window_end();
}

/* A sender sprays `loops` messages down each of its group's fds. */
static void *sender(void *arg)
{
	const struct task *t = arg;
	const struct sender_group *g = t->grp;
	struct msgpath_worker w;
	char *data = xmalloc(opt.datasize);
	uint64_t sent = 0;

	worker_begin(&w, t);
	ready(g->ready_out, g->wakefd);
	worker_window_begin();
	memset(data, '-', opt.datasize);
	for (unsigned i = 0; i < opt.loops; i++) {
		for (unsigned j = 0; j < g->nfds; j++) {
			size_t done = 0;

			/* rt-tests retries short writes: so do we */
			while (done < opt.datasize) {
				ssize_t ret = msgpath_write(&w, g->out_fds[j], data + done,
							    opt.datasize - done);
				if (ret < 0)
					barf("sender write");
				done += (size_t)ret;
			}
			sent++;
		}
	}
	worker_window_end();
	free(data);
	worker_done(&w, sent);
	return NULL;
}

/* One receiver per fd: reads npackets whole messages. */
static void *receiver(void *arg)
{
	const struct task *t = arg;
	struct msgpath_worker w;
	char *data = xmalloc(opt.datasize);

	if (!opt.threads)
		close(t->in_fds[1]);
	worker_begin(&w, t);
	ready(t->ready_out, t->wakefd);
	worker_window_begin();
	for (unsigned i = 0; i < t->npackets; i++) {
		size_t done = 0;

		while (done < opt.datasize) {
			ssize_t ret = msgpath_read(&w, t->in_fds[0], data + done,
						   opt.datasize - done);
			if (ret < 0)
				barf("receiver read");
			if (ret == 0) {
				errno = EPIPE;
				barf("receiver read: early end of stream");
			}
			done += (size_t)ret;
		}
	}
	worker_window_end();
	free(data);
	worker_done(&w, 0);
	return NULL;
}

static void create_worker(struct task *t, void *(*fn)(void *))
{
	pthread_attr_t attr;
	int err;

	if (!opt.threads) {
		t->pid = fork();
		if (t->pid < 0)
			barf("fork");
		if (t->pid == 0) {
			fn(t);
			exit(0);
		}
		return;
	}
	/* rt-tests uses PTHREAD_STACK_MIN; the model's frames need a little
	 * more, and the stack size changes no read or write. */
	if (pthread_attr_init(&attr) || pthread_attr_setstacksize(&attr, 256 * 1024))
		barf("pthread_attr");
	err = pthread_create(&t->thread, &attr, fn, t);
	pthread_attr_destroy(&attr);
	if (err) {
		errno = err;
		barf("pthread_create");
	}
}

/* One group: fds receivers, each on its own fdpair, then fds senders that
 * share the write ends. */
static void group_start(struct task *tasks, unsigned first, int ready_out, int wakefd)
{
	struct sender_group *g = xcalloc(1, sizeof(*g));

	g->nfds = opt.fds;
	g->ready_out = ready_out;
	g->wakefd = wakefd;
	g->out_fds = xcalloc(opt.fds, sizeof(int));
	for (unsigned i = 0; i < opt.fds; i++) {
		struct task *t = &tasks[first + i];
		int fds[2];

		fdpair(fds);
		t->index = first + i;
		t->npackets = opt.fds * opt.loops;
		t->in_fds[0] = fds[0];
		t->in_fds[1] = fds[1];
		t->ready_out = ready_out;
		t->wakefd = wakefd;
		create_worker(t, receiver);
		g->out_fds[i] = fds[1];
		if (!opt.threads)
			close(fds[0]);
	}
	for (unsigned i = 0; i < opt.fds; i++) {
		struct task *t = &tasks[first + opt.fds + i];

		t->index = first + opt.fds + i;
		t->grp = g;
		t->ready_out = ready_out;
		t->wakefd = wakefd;
		create_worker(t, sender);
	}
	if (!opt.threads)
		for (unsigned i = 0; i < opt.fds; i++)
			close(g->out_fds[i]);
}

/* Each group's senders share one sender_group: free it once, with its
 * first sender. */
static void tasks_free(struct task *tasks, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct sender_group *g = tasks[i].grp;

		if (g && (i == 0 || tasks[i - 1].grp != g)) {
			free(g->out_fds);
			free(g);
		}
	}
	free(tasks);
}

static int reap(struct task *tasks, unsigned n)
{
	int bad = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!opt.threads) {
			int status;
			pid_t pid = wait(&status);

			if (pid < 0 && errno == ECHILD)
				break;
			if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
				bad++;
		} else if (pthread_join(tasks[i].thread, NULL)) {
			bad++;
		}
	}
	return bad;
}

static void parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "groups", required_argument, NULL, 'g' },
		{ "fds", required_argument, NULL, 'f' },
		{ "loops", required_argument, NULL, 'l' },
		{ "datasize", required_argument, NULL, 's' },
		{ "pipe", no_argument, NULL, 'p' },
		{ "inet", no_argument, NULL, 'i' },
		{ "process", no_argument, NULL, 'P' },
		{ "processes", no_argument, NULL, 'P' },
		{ "threads", no_argument, NULL, 'T' },
		{ "fifo", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "depth", required_argument, NULL, OPT_DEPTH },
		{ "skew", required_argument, NULL, OPT_SKEW },
		{ "ring-pages", required_argument, NULL, OPT_RING },
		{ "htab-kib", required_argument, NULL, OPT_HTAB },
		{ "page-size", required_argument, NULL, OPT_PSIZE },
		{ "old", no_argument, NULL, OPT_OLD },
		{ "young", no_argument, NULL, OPT_YOUNG },
		{ "list-hot", required_argument, NULL, OPT_LIST_HOT },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = "hackbench";
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, ":g:f:l:s:piPTFh", longopts, NULL)) != -1) {
		switch (c) {
		case 'g':
			if (opts_uint(optarg, 1, 10000, &v))
				opts_die(prog, usage, "--groups needs an integer in 1..10000, not '%s'", optarg);
			opt.groups = (unsigned)v;
			break;
		case 'f':
			if (opts_uint(optarg, 1, 1000, &v))
				opts_die(prog, usage, "--fds needs an integer in 1..1000, not '%s'", optarg);
			opt.fds = (unsigned)v;
			break;
		case 'l':
			if (opts_uint(optarg, 1, 1000000000, &v))
				opts_die(prog, usage, "--loops needs an integer in 1..1000000000, not '%s'", optarg);
			opt.loops = (unsigned)v;
			break;
		case 's':
			if (opts_uint(optarg, 1, 1 << 20, &v))
				opts_die(prog, usage, "--datasize needs an integer in 1..1048576, not '%s'", optarg);
			opt.datasize = (unsigned)v;
			break;
		case 'p': opt.pipes = true; break;
		case 'i': opt.inet = true; break;
		case 'P': opt.threads = false; break;
		case 'T': opt.threads = true; break;
		case 'F': opt.fifo = true; break;
		case 'h': opts_help(usage);
		case OPT_SEED:
			if (opts_uint(optarg, 0, UINT64_MAX, &opt.seed))
				opts_die(prog, usage, "--seed needs an unsigned integer, not '%s'", optarg);
			break;
		case OPT_DEPTH:
			if (opts_uint(optarg, 0, 1000, &v))
				opts_die(prog, usage, "--depth needs an integer in 0..1000, not '%s'", optarg);
			opt.depth = (unsigned)v;
			break;
		case OPT_SKEW:
			if (opts_double(optarg, 0, 10, &opt.skew))
				opts_die(prog, usage, "--skew needs a number in 0..10, not '%s'", optarg);
			break;
		case OPT_RING:
			if (opts_uint(optarg, 1, 4096, &v))
				opts_die(prog, usage, "--ring-pages needs an integer in 1..4096, not '%s'", optarg);
			opt.ring_pages = (unsigned)v;
			break;
		case OPT_HTAB:
			if (mmuctx_parse_htab(optarg, &opt.mmu.htab_kib))
				opts_die(prog, usage, "--htab-kib needs a power of two >= 256, not '%s'", optarg);
			break;
		case OPT_PSIZE:
			if (mmuctx_parse_psize(optarg, &opt.mmu.psize))
				opts_die(prog, usage, "--page-size needs 4k or 64k, not '%s'", optarg);
			break;
		case OPT_OLD: opt.mmu.young = false; break;
		case OPT_YOUNG: opt.mmu.young = true; break;
		case OPT_LIST_HOT:
			if (opts_double(optarg, 1e-9, 1, &opt.list_hot))
				opts_die(prog, usage, "--list-hot needs a number in (0, 1], not '%s'", optarg);
			break;
		default:
			opts_bad_option(prog, usage, c, argv);
		}
	}
	if (optind < argc)
		opts_die(prog, usage, "unexpected argument '%s'", argv[optind]);
	if (opt.pipes && opt.inet)
		opts_die(prog, usage, "--pipe and --inet cannot be used together");
	if ((uint64_t)opt.groups * opt.fds * 2 > 100000)
		opts_die(prog, usage, "--groups x --fds x 2 = %llu tasks; at most 100000",
			 (unsigned long long)opt.groups * opt.fds * 2);
}

int main(int argc, char **argv)
{
	unsigned ntasks, i;
	struct task *tasks;
	int readyfds[2], wakefds[2];
	struct timeval start, stop, diff;
	struct strbuf out = STRBUF_INIT, extra = STRBUF_INIT;
	char dummy;
	int bad;

	/* glibc gives each new thread's first malloc its own arena, and sizing
	 * the arena list reads /sys/devices/system/cpu/online: one read(2)
	 * rt-tests (which never mallocs in a worker) does not make.  One arena
	 * for all keeps the system-call counts equal. */
	mallopt(M_ARENA_MAX, 1);
	parse_options(argc, argv);
	if (footprint_init(opt.depth, opt.skew, opt.seed)) {
		fprintf(stderr, "hackbench: no generated handlers linked\n");
		return 2;
	}
	if (opt.list_hot > 0) {
		footprint_print_hot(stdout, opt.list_hot);
		footprint_free();
		return 0;
	}
	for (i = 0; mmuctx_count_names[i]; i++)
		count_names[C_MODEL + i] = mmuctx_count_names[i];
	if (counts_init(&counts, count_names))
		barf("mmap");
	ntasks = opt.groups * opt.fds * 2;
	mm = mmuctx_create(&opt.mmu, opt.seed);
	if (!mm) {
		fprintf(stderr, "hackbench: model: %s\n", lace_error_msg());
		return 2;
	}
	if (msgpath_map(mm, ntasks, opt.ring_pages, mmuctx_page_bytes(opt.mmu.psize)) ||
	    msgpath_init()) {
		fprintf(stderr, "hackbench: model: %s\n", lace_error_msg());
		return 1;
	}

	/* rt-tests' header, flushed before the first fork: one write. */
	printf("Running in %s mode with %u groups using %u file descriptors each (== %u tasks)\n",
	       opt.threads ? "threaded" : "process", opt.groups, 2 * opt.fds, ntasks);
	printf("Each sender will pass %u messages of %u bytes\n", opt.loops, opt.datasize);
	fflush(NULL);

	tasks = xcalloc(ntasks, sizeof(*tasks));
	fdpair(readyfds);
	fdpair(wakefds);
	if (opt.threads)
		mmuctx_count_begin(mm);
	for (i = 0; i < opt.groups; i++)
		group_start(tasks, i * opt.fds * 2, readyfds[1], wakefds[0]);
	if (opt.fifo) {
		struct sched_param sp = { .sched_priority = 1 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			barf("cannot change to SCHED_FIFO");
	}
	for (i = 0; i < ntasks; i++)
		if (read(readyfds[0], &dummy, 1) != 1)
			barf("reading readyfds");
	gettimeofday(&start, NULL);
	if (opt.threads)
		lace_window_begin();
	if (write(wakefds[1], &dummy, 1) != 1)
		barf("writing to start senders");
	bad = reap(tasks, ntasks);
	if (opt.threads)
		lace_window_end();
	gettimeofday(&stop, NULL);
	if (opt.threads)
		mmuctx_count_end(mm, &counts, C_MODEL);

	timersub(&stop, &start, &diff);
	strbuf_addf(&out, "Time: %lu.%03lu\n", (unsigned long)diff.tv_sec,
		    (unsigned long)diff.tv_usec / 1000);
	strbuf_addf(&out, "%s; %u handlers per message syscall, skew %g; generated %s\n",
		    mmuctx_describe(&opt.mmu), opt.depth, opt.skew, footprint_config());
	strbuf_addf(&extra, "seed=%llu mode=%s transport=%s groups=%u fds=%u loops=%u datasize=%u depth=%u",
		    (unsigned long long)opt.seed, opt.threads ? "thread" : "process",
		    opt.pipes ? "pipe" : opt.inet ? "inet" : "socket", opt.groups, opt.fds, opt.loops, opt.datasize,
		    opt.depth);
	counts_format(&counts, "hackbench", extra.buf, &out);
	/* Everything at the end in one write, as rt-tests' one "Time:" line. */
	for (size_t done = 0; done < out.len;) {
		ssize_t n = write(STDOUT_FILENO, out.buf + done, out.len - done);
		if (n <= 0)
			barf("writing the result");
		done += (size_t)n;
	}
	strbuf_release(&out);
	strbuf_release(&extra);
	tasks_free(tasks, ntasks);
	hashmmu_destroy(mm);
	counts_free(&counts);
	footprint_free();
	if (bad) {
		fprintf(stderr, "hackbench: %d tasks failed\n", bad);
		return 1;
	}
	return 0;
}
