/* Event-name parsing in perf's spelling (tools/perf/util/parse-events.c is
 * the reference for the names, aliases and the cache grid). */
#include "measure/events.h"

#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "measure/model_results.h"
#include "util/array.h"
#include "util/error.h"
#include "util/parse_num.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

const char events_default_list[] =
	"task-clock,context-switches,cpu-migrations,page-faults,"
	"cycles,instructions,branches,branch-misses";

struct name_map {
	const char *name;
	uint64_t config;
};

static const struct name_map hw_names[] = {
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
};

static const struct name_map sw_names[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_COUNT_SW_DUMMY },
	{ "bpf-output", PERF_COUNT_SW_BPF_OUTPUT },
	{ "cgroup-switches", 11 /* PERF_COUNT_SW_CGROUP_SWITCHES, 5.13+ */ },
};

/* The PERF_TYPE_HW_CACHE grid: config = id | op << 8 | result << 16.
 * Aliases as perf's evsel.c (evsel__hw_cache[] and friends). */
static const char *const cache_ids[][5] = {
	[PERF_COUNT_HW_CACHE_L1D] = { "L1-dcache", "l1-d", "l1d", "L1-data", NULL },
	[PERF_COUNT_HW_CACHE_L1I] = { "L1-icache", "l1-i", "l1i", "L1-instruction", NULL },
	[PERF_COUNT_HW_CACHE_LL] = { "LLC", "L2", NULL },
	[PERF_COUNT_HW_CACHE_DTLB] = { "dTLB", "d-tlb", "Data-TLB", NULL },
	[PERF_COUNT_HW_CACHE_ITLB] = { "iTLB", "i-tlb", "Instruction-TLB", NULL },
	[PERF_COUNT_HW_CACHE_BPU] = { "branch", "branches", "bpu", "btb", "bpc" },
	[PERF_COUNT_HW_CACHE_NODE] = { "node", NULL },
};
static const char *const cache_ops[][4] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = { "load", "loads", "read", NULL },
	[PERF_COUNT_HW_CACHE_OP_WRITE] = { "store", "stores", "write", NULL },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetch", "prefetches", "speculative-read",
					      "speculative-load" },
};
static const char *const cache_results[][5] = {
	[PERF_COUNT_HW_CACHE_RESULT_ACCESS] = { "refs", "Reference", "ops", "access", "accesses" },
	[PERF_COUNT_HW_CACHE_RESULT_MISS] = { "misses", "miss", NULL },
};

static int match_alias(const char *const *aliases, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n && aliases[i]; i++)
		if (strlen(aliases[i]) == len && !strncasecmp(aliases[i], s, len))
			return 1;
	return 0;
}

/* "L1-icache-load-misses": id, then optional op, then optional result
 * (perf also accepts id-result). */
static int parse_cache(const char *s, uint64_t *config)
{
	const char *parts[4];
	size_t lens[4], n = 0;
	const char *p = s;

	/* ids themselves contain '-' (L1-icache, d-tlb): try every split */
	for (size_t id = 0; id < ARRAY_SIZE(cache_ids); id++) {
		for (size_t a = 0; a < 5 && cache_ids[id][a]; a++) {
			size_t l = strlen(cache_ids[id][a]);
			if (strncasecmp(s, cache_ids[id][a], l) || (s[l] && s[l] != '-'))
				continue;
			p = s + l;
			n = 0;
			while (*p == '-' && n < 3) {
				const char *q = ++p;
				while (*p && *p != '-')
					p++;
				parts[n] = q;
				lens[n++] = (size_t)(p - q);
			}
			if (*p)
				continue;
			int op = -1, res = -1;
			size_t k = 0;
			for (int o = 0; o < 3 && k < n; o++)
				if (match_alias(cache_ops[o], 4, parts[k], lens[k])) {
					op = o;
					k++;
					break;
				}
			for (int r = 0; r < 2 && k < n; r++)
				if (match_alias(cache_results[r], 5, parts[k], lens[k])) {
					res = r;
					k++;
					break;
				}
			if (k != n || n == 0)
				continue;
			if (op < 0)
				op = PERF_COUNT_HW_CACHE_OP_READ;
			if (res < 0)
				res = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
			*config = id | (uint64_t)op << 8 | (uint64_t)res << 16;
			return 0;
		}
	}
	return -ENOENT;
}

const char *events_tracefs(void)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

	for (size_t i = 0; i < 2; i++) {
		char p[64];
		snprintf(p, sizeof(p), "%s/events", roots[i]);
		/* present but unreadable (non-root) counts: the read of the id
		 * then explains the permission problem */
		if (!access(p, F_OK) || errno == EACCES)
			return roots[i];
	}
	return NULL;
}

static int read_u64_file(const char *path, uint64_t *v)
{
	struct strbuf sb = STRBUF_INIT;
	int err = strbuf_read_file(&sb, path);
	unsigned long x;

	if (err) {
		strbuf_release(&sb);
		return err;
	}
	strbuf_rtrim(&sb); /* sysfs ends its values with a newline */
	err = parse_ulong(sb.buf, &x) ? -EINVAL : 0;
	if (!err)
		*v = x;
	strbuf_release(&sb);
	return err;
}

bool events_paranoid(int *level)
{
	struct strbuf sb = STRBUF_INIT;
	bool ok = false;

	if (!strbuf_read_file(&sb, "/proc/sys/kernel/perf_event_paranoid")) {
		long v;

		strbuf_rtrim(&sb);
		if (!parse_long(sb.buf, -1000, 1000, &v)) {
			*level = (int)v;
			ok = true;
		}
	}
	strbuf_release(&sb);
	return ok;
}

static const char *paranoid_str(void)
{
	static char buf[16];
	int v;

	if (events_paranoid(&v))
		snprintf(buf, sizeof(buf), "%d", v);
	else
		snprintf(buf, sizeof(buf), "?");
	return buf;
}

static int resolve(struct lace_event_spec *ev, const char *base);

/* whether sys[0..len) alone names an event lace knows (not a tracepoint) */
static bool name_is_event(const char *sys, size_t len)
{
	struct lace_event_spec probe;
	char *s = xstrndup(sys, len);
	bool known;

	memset(&probe, 0, sizeof(probe));
	probe.name = s;
	known = !resolve(&probe, s) && probe.kind != LACE_EV_SIM_ONLY &&
		probe.kind != LACE_EV_TRACEPOINT;
	lace_error_clear();
	free(s);
	return known;
}

static int parse_tracepoint(struct lace_event_spec *ev, const char *sys, size_t syslen,
			    const char *name)
{
	const char *root = events_tracefs();
	char path[512];
	uint64_t id;

	bool probe = !strncmp(sys, "probe", 5) || !strncmp(sys, "sdt_", 4);

	if (memchr(sys, '/', syslen) || strchr(name, '/') || !strcmp(name, "..") ||
	    !strncmp(sys, "..", syslen))
		return lace_error_set(EINVAL, "%s: bad tracepoint name", ev->name);
	if (!root && probe)
		return lace_error_set(ENOENT, "%s: tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)",
				      ev->name);
	if (!root)
		goto host_missing;
	snprintf(path, sizeof(path), "%s/events/%.*s/%s/id", root, (int)syslen, sys, name);
	int err = read_u64_file(path, &id);
	if (err == -EACCES)
		return lace_error_set(EACCES, "%s: permission denied reading %s: tracepoints need root (or CAP_PERFMON and a readable tracefs) at kernel.perf_event_paranoid=%s",
				      ev->name, path, paranoid_str());
	if (err && probe)
		return lace_error_set(ENOENT, "%s: no such probe in %s/events (create it first, e.g. 'perf probe -x BINARY %.*s:%s')",
				      ev->name, root, (int)syslen, sys, name);
	if (err)
		goto host_missing;
	ev->kind = LACE_EV_TRACEPOINT;
	ev->type = PERF_TYPE_TRACEPOINT;
	ev->config = id;
	return 0;
host_missing:
	/* "cycles:q" is a bad modifier, not a tracepoint of a guest */
	if (name_is_event(sys, syslen))
		return lace_error_set(EINVAL, "%s: bad modifier '%s'", ev->name, name);
	/* a guest kernel's tracepoint (powerpc:hash_fault on an x86 host):
	 * backend_select() refuses it unless the qemu backend counts it */
	ev->kind = LACE_EV_TRACEPOINT;
	ev->type = PERF_TYPE_TRACEPOINT;
	ev->host_missing = true;
	return 0;
}

/* Set bits of val into *cfg as described by a sysfs format string such as
 * "config:0-7,32-35" or "config1:9". */
static int apply_format(struct lace_event_spec *ev, const char *fmt, uint64_t val)
{
	uint64_t *dst;
	const char *p;

	if (!strncmp(fmt, "config1:", 8)) {
		dst = &ev->config1;
		p = fmt + 8;
	} else if (!strncmp(fmt, "config2:", 8)) {
		dst = &ev->config2;
		p = fmt + 8;
	} else if (!strncmp(fmt, "config:", 7)) {
		dst = &ev->config;
		p = fmt + 7;
	} else {
		return -EINVAL;
	}
	unsigned shift = 0;
	while (*p && *p != '\n') {
		size_t n = strspn(p, "0123456789");
		uint64_t lo, hi;
		if (parse_u64_n(p, n, &lo) || lo > 63)
			return -EINVAL;
		hi = lo;
		p += n;
		if (*p == '-') {
			n = strspn(++p, "0123456789");
			if (parse_u64_n(p, n, &hi) || hi > 63 || hi < lo)
				return -EINVAL;
			p += n;
		}
		for (uint64_t b = lo; b <= hi; b++, shift++)
			if (shift < 64 && (val >> shift & 1))
				*dst |= 1ULL << b;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return 0;
}

static int pmu_terms(struct lace_event_spec *ev, const char *pmu, const char *terms, int depth);

static int pmu_term(struct lace_event_spec *ev, const char *pmu, const char *term, int depth)
{
	char path[512];
	const char *eq = strchr(term, '=');
	char key[128];
	uint64_t val = 1;

	if (!eq) {
		/* a named event from the PMU's events/ folder (cpu/cache-misses/) */
		struct strbuf sb = STRBUF_INIT;
		if (strchr(term, '/') || strlen(term) >= sizeof(key))
			return lace_error_set(EINVAL, "%s: bad term '%s'", ev->name, term);
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/events/%s", pmu, term);
		if (depth > 2 || strbuf_read_file(&sb, path)) {
			strbuf_release(&sb);
			return lace_error_set(ENOENT, "%s: PMU %s has no event or term '%s'", ev->name, pmu, term);
		}
		strbuf_rtrim(&sb);
		int err = pmu_terms(ev, pmu, sb.buf, depth + 1);
		strbuf_release(&sb);
		return err;
	}
	size_t kl = (size_t)(eq - term);
	if (kl == 0 || kl >= sizeof(key))
		return lace_error_set(EINVAL, "%s: bad term '%s'", ev->name, term);
	memcpy(key, term, kl);
	key[kl] = '\0';
	unsigned long uval;
	if (parse_ulong(eq + 1, &uval))
		return lace_error_set(EINVAL, "%s: bad value in '%s'", ev->name, term);
	val = uval;
	if (!strcmp(key, "config")) {
		ev->config = val;
		return 0;
	}
	if (!strcmp(key, "config1")) {
		ev->config1 = val;
		return 0;
	}
	if (!strcmp(key, "config2")) {
		ev->config2 = val;
		return 0;
	}
	if (strchr(key, '/'))
		return lace_error_set(EINVAL, "%s: bad term '%s'", ev->name, term);
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/format/%s", pmu, key);
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path)) {
		strbuf_release(&sb);
		return lace_error_set(ENOENT, "%s: PMU %s has no format term '%s'", ev->name, pmu, key);
	}
	int err = apply_format(ev, sb.buf, val);
	strbuf_release(&sb);
	if (err)
		return lace_error_set(EINVAL, "%s: cannot read the format of '%s'", ev->name, key);
	return 0;
}

static int pmu_terms(struct lace_event_spec *ev, const char *pmu, const char *terms, int depth)
{
	char *copy = xstrdup(terms), *save = NULL;
	int err = 0;

	for (char *t = strtok_r(copy, ",", &save); t && !err; t = strtok_r(NULL, ",", &save))
		err = pmu_term(ev, pmu, t, depth);
	free(copy);
	return err;
}

/* "pmu/terms/" (modifiers already split off). */
static int parse_pmu(struct lace_event_spec *ev, const char *s)
{
	const char *slash = strchr(s, '/');
	size_t len = strlen(s);
	char pmu[64], path[256];
	uint64_t type;

	if (!slash || len < 2 || s[len - 1] != '/' || slash == s + len - 1 ||
	    (size_t)(slash - s) >= sizeof(pmu))
		return lace_error_set(EINVAL, "%s: expected pmu/term=value,.../", ev->name);
	memcpy(pmu, s, (size_t)(slash - s));
	pmu[slash - s] = '\0';
	if (!pmu[0] || strchr(pmu, '.'))
		return lace_error_set(EINVAL, "%s: bad PMU name", ev->name);
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	if (read_u64_file(path, &type))
		return lace_error_set(ENOENT, "%s: no PMU '%s' on this machine (see /sys/bus/event_source/devices)",
				      ev->name, pmu);
	ev->kind = LACE_EV_PMU;
	ev->type = (uint32_t)type;
	ev->hardware = true;
	char *terms = xstrndup(slash + 1, (size_t)(s + len - 1 - (slash + 1)));
	int err = pmu_terms(ev, pmu, terms, 0);
	free(terms);
	/* software/tracepoint PMUs spelled this way need no PMU hardware */
	if (type == PERF_TYPE_SOFTWARE || type == PERF_TYPE_TRACEPOINT)
		ev->hardware = false;
	return err;
}

static int pfm_ready(void)
{
	static int state; /* 0 untried, 1 ok, -1 failed */

	if (!state)
		state = pfm_initialize() == PFM_SUCCESS ? 1 : -1;
	return state > 0;
}

static int parse_native(struct lace_event_spec *ev, const char *s)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;

	if (!pfm_ready())
		return -ENOENT;
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	if (pfm_get_os_event_encoding(s, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) != PFM_SUCCESS)
		return -ENOENT;
	ev->kind = LACE_EV_NATIVE;
	ev->type = attr.type;
	ev->config = attr.config;
	ev->config1 = attr.config1;
	ev->config2 = attr.config2;
	/* libpfm4 also names the kernel's software events (perf::...) */
	ev->hardware = attr.type != PERF_TYPE_SOFTWARE && attr.type != PERF_TYPE_TRACEPOINT;
	return 0;
}

static int lookup(const struct name_map *m, size_t n, const char *s, uint64_t *config)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(m[i].name, s)) {
			*config = m[i].config;
			return 0;
		}
	return -ENOENT;
}

/* Apply perf's modifier letters: any of u/k/h selects those levels and
 * excludes the rest.  Letters perf accepts that do not change counting
 * here (G, H, p, P, S, D, I, W, e) are accepted and ignored. */
static int apply_modifiers(struct lace_event_spec *ev, const char *mods)
{
	bool u = false, k = false, h = false;

	for (const char *p = mods; *p; p++) {
		switch (*p) {
		case 'u': u = true; break;
		case 'k': k = true; break;
		case 'h': h = true; break;
		case 'G': case 'H': case 'p': case 'P': case 'S': case 'D': case 'I': case 'W':
		case 'e':
			break;
		default:
			return lace_error_set(EINVAL, "%s: unknown modifier '%c'", ev->name, *p);
		}
	}
	if (u || k || h) {
		ev->exclude_user = !u;
		ev->exclude_kernel = !k;
		ev->exclude_hv = !h;
	}
	return 0;
}

static bool is_modifier_string(const char *s)
{
	if (!*s)
		return false;
	return strspn(s, "ukhGHpPSDIWe") == strlen(s);
}

static bool is_identifier(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("-_.:", *s))
			return false;
	return true;
}

/* Resolve a name with modifiers removed. */
static int resolve(struct lace_event_spec *ev, const char *s)
{
	uint64_t config;

	ev->scale = 1.0;
	ev->unit = "";
	if (!lookup(hw_names, ARRAY_SIZE(hw_names), s, &config)) {
		ev->kind = LACE_EV_HARDWARE;
		ev->type = PERF_TYPE_HARDWARE;
		ev->config = config;
		ev->hardware = true;
		return 0;
	}
	if (!strcmp(s, "duration_time")) {
		ev->kind = LACE_EV_TOOL;
		ev->unit = "ns";
		return 0;
	}
	if (!lookup(sw_names, ARRAY_SIZE(sw_names), s, &config)) {
		ev->kind = LACE_EV_SOFTWARE;
		ev->type = PERF_TYPE_SOFTWARE;
		ev->config = config;
		if (config == PERF_COUNT_SW_TASK_CLOCK || config == PERF_COUNT_SW_CPU_CLOCK) {
			ev->unit = "msec";
			ev->scale = 1e-6;
		}
		return 0;
	}
	if (!parse_cache(s, &config)) {
		ev->kind = LACE_EV_CACHE;
		ev->type = PERF_TYPE_HW_CACHE;
		ev->config = config;
		ev->hardware = true;
		return 0;
	}
	if (s[0] == 'r' && s[1] && strspn(s + 1, "0123456789abcdefABCDEF") == strlen(s + 1)) {
		ev->kind = LACE_EV_RAW;
		ev->type = PERF_TYPE_RAW;
		/* at most 16 hex digits: a longer one would not fit config */
		char hex[24];
		unsigned long v;
		snprintf(hex, sizeof(hex), "0x%s", s + 1);
		if (strlen(s + 1) > 16 || parse_ulong(hex, &v))
			return lace_error_set(EINVAL, "%s: a raw event is at most 16 hex digits", s);
		ev->config = v;
		ev->hardware = true;
		return 0;
	}
	if (strchr(s, '/'))
		return parse_pmu(ev, s);
	const char *colon = strchr(s, ':');
	if (colon && colon != s && colon[1] && !strchr(colon + 1, ':') && !strchr(s, '.'))
		return parse_tracepoint(ev, s, (size_t)(colon - s), colon + 1);
	if (!parse_native(ev, s))
		return 0;
	if (is_identifier(s) && !colon) {
		ev->kind = LACE_EV_SIM_ONLY;
		ev->hardware = true;
		return 0;
	}
	return lace_error_set(ENOENT, "%s: unknown event (see 'perf list' and doc/events.md)", ev->name);
}

/* NAME@PROFILE: the offset of the '@' when name ends in a profile's name
 * (letters, digits, '.', '-', '_'), else 0. */
static size_t profile_suffix(const char *name)
{
	const char *at = strrchr(name, '@');

	if (!at || at == name || !at[1])
		return 0;
	for (const char *p = at + 1; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr(".-_", *p))
			return 0;
	return (size_t)(at - name);
}

int event_parse_one(struct lace_event_spec *ev, const char *name)
{
	size_t at = profile_suffix(name);

	if (at) {
		/* the event as the model of one CPU profile counts it */
		char *core = xstrndup(name, at);
		int err = event_parse_one(ev, core);

		free(core);
		free(ev->name);
		ev->name = xstrdup(name);
		if (!err && ev->kind == LACE_EV_TRACEPOINT)
			err = lace_error_set(EINVAL, "%s: a tracepoint is not a CPU profile's event", name);
		ev->profile_name = xstrdup(name + at + 1);
		return err;
	}
	memset(ev, 0, sizeof(*ev));
	ev->group = -1;
	ev->name = xstrdup(name);
	if (!*name)
		return lace_error_set(EINVAL, "empty event name");

	/* split modifiers: "pmu/.../mods", "name:mods", "sys:tp:mods" */
	char *base = xstrdup(name);
	const char *mods = "";
	char *last_slash = strrchr(base, '/');
	if (last_slash && strchr(base, '/') != last_slash) {
		if (last_slash[1] == ':' || last_slash[1] == '\0') {
			if (last_slash[1] == ':')
				mods = name + (last_slash + 2 - base);
			last_slash[1] = '\0';
		} else {
			mods = name + (last_slash + 1 - base);
			last_slash[1] = '\0';
		}
	} else if (!last_slash) {
		char *c = strrchr(base, ':');
		if (c && is_modifier_string(c + 1)) {
			/* "sys:u" could be a tracepoint named u: keep it when
			 * the prefix alone is not an event */
			size_t ncolon = 0;
			for (char *p = base; *p; p++)
				ncolon += *p == ':';
			if (ncolon >= 2 || strchr(base, ':') == c) {
				struct lace_event_spec probe;
				memset(&probe, 0, sizeof(probe));
				probe.name = ev->name;
				*c = '\0';
				int ok = ncolon >= 2 || !resolve(&probe, base);
				/* a name the simulators model (stlb-misses) takes
				 * :u/:k as the hardware names do: the qemu
				 * backend splits them */
				if (ok && (probe.kind != LACE_EV_SIM_ONLY ||
					   sim_event_index(base) >= 0))
					mods = name + (c + 1 - base);
				else if (ok && ncolon >= 2)
					mods = name + (c + 1 - base);
				else
					*c = ':';
				lace_error_clear();
			}
		}
	}
	ev->base = base;
	int err = resolve(ev, base);
	if (err)
		return err;
	return apply_modifiers(ev, mods);
}

void event_spec_release(struct lace_event_spec *ev)
{
	free(ev->name);
	free(ev->base);
	free(ev->profile_name);
	ev->name = ev->base = ev->profile_name = NULL;
}

int events_parse(struct lace_event_list *list, const char *spec)
{
	const char *p = spec;
	int group = -1;

	if (!*spec)
		return lace_error_set(EINVAL, "empty event list");
	while (*p) {
		if (*p == '{') {
			if (group >= 0)
				return lace_error_set(EINVAL, "%s: nested '{'", spec);
			group = list->ngroups++;
			p++;
		}
		/* one name: up to a top-level ',' or '}' (commas inside /../ belong to the name) */
		const char *start = p;
		int in_pmu = 0;
		while (*p && !(!in_pmu && (*p == ',' || *p == '}'))) {
			if (*p == '/')
				in_pmu = !in_pmu;
			p++;
		}
		if (in_pmu)
			return lace_error_set(EINVAL, "%s: unterminated pmu/.../", spec);
		if (p == start)
			return lace_error_set(EINVAL, "%s: empty event name", spec);
		char *one = xstrndup(start, (size_t)(p - start));
		ALLOC_GROW(list->ev, list->n + 1, list->alloc);
		struct lace_event_spec *ev = &list->ev[list->n];
		int err = event_parse_one(ev, one);
		free(one);
		if (err) {
			event_spec_release(ev);
			return err;
		}
		ev->group = group;
		list->n++;
		if (*p == '}') {
			if (group < 0)
				return lace_error_set(EINVAL, "%s: '}' without '{'", spec);
			group = -1;
			p++;
			/* group modifiers "{a,b}:u" apply to each member */
			if (*p == ':') {
				const char *m = ++p;
				while (*p && *p != ',')
					p++;
				char *mods = xstrndup(m, (size_t)(p - m));
				for (size_t i = list->n; i-- > 0 && list->ev[i].group == list->ngroups - 1;) {
					err = apply_modifiers(&list->ev[i], mods);
					if (err)
						break;
				}
				free(mods);
				if (err)
					return err;
			}
		}
		if (*p == ',') {
			p++;
			if (!*p)
				return lace_error_set(EINVAL, "%s: trailing ','", spec);
		}
	}
	if (group >= 0)
		return lace_error_set(EINVAL, "%s: missing '}'", spec);
	return 0;
}

void events_group_hardware(struct lace_event_list *list)
{
	int g = -1;
	size_t members = 0;

	for (size_t i = 0; i < list->n; i++)
		if (list->ev[i].group < 0 && list->ev[i].hardware && !list->ev[i].simulated &&
		    list->ev[i].kind != LACE_EV_SIM_ONLY)
			members++;
	if (members < 2)
		return;
	g = list->ngroups++;
	for (size_t i = 0; i < list->n; i++)
		if (list->ev[i].group < 0 && list->ev[i].hardware && !list->ev[i].simulated &&
		    list->ev[i].kind != LACE_EV_SIM_ONLY)
			list->ev[i].group = g;
}

void events_release(struct lace_event_list *list)
{
	for (size_t i = 0; i < list->n; i++)
		event_spec_release(&list->ev[i]);
	free(list->ev);
	memset(list, 0, sizeof(*list));
}
