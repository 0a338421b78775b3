/* CPU profile files; see cpu_profile.h. */
#include "measure/cpu_profile.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "util/array.h"
#include "util/error.h"
#include "util/parse_num.h"
#include "util/fs.h"
#include "util/paths.h"
#include "util/xalloc.h"

const char *sim_profile_dir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("LACE_PROFILE_DIR");
	const char *exe = paths_exe_dir();
	const char *rel[] = { "../measure/model/profiles", "../share/lace/profiles" };

	if (env && *env)
		return env;
	if (!exe)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
		char raw[PATH_MAX + 64];
		snprintf(raw, sizeof(raw), "%s/%s", exe, rel[i]);
		if (fs_is_dir(raw) && realpath(raw, dir))
			return dir;
	}
	return NULL;
}

/* Parse up to max comma-separated sizes (util/parse_num.h's: 4096, 32K,
 * 2M); returns how many, or -1. */
static int parse_list(const char *s, uint64_t *v, int max)
{
	int n = 0;

	while (*s) {
		size_t len = strcspn(s, ",");
		char tok[32];
		uint64_t x;

		if (n >= max || len >= sizeof(tok))
			return -1;
		memcpy(tok, s, len);
		tok[len] = '\0';
		if (parse_size(tok, &x) || x > UINT32_MAX * 1024ull)
			return -1;
		v[n++] = x;
		s += len;
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			return -1;
	}
	return n;
}

int sim_profile_set_l1i(struct sim_profile *p, const char *spec)
{
	uint64_t v[3];

	if (parse_list(spec, v, 3) != 3 || v[1] > UINT32_MAX || v[2] > UINT32_MAX)
		return lace_error_set(EINVAL, "--l1i wants SIZE,WAYS,LINE (e.g. 32768,8,64), not '%s'", spec);
	p->cfg.l1i_size = v[0];
	p->cfg.l1i_ways = (uint32_t)v[1];
	p->cfg.l1i_line = (uint32_t)v[2];
	return 0;
}

static int tlb_spec(const char *opt, const char *spec, uint32_t *entries, uint32_t *ways,
		    int allow_none)
{
	uint64_t v[2];
	int n = parse_list(spec, v, 2);

	if (allow_none && n == 1 && v[0] == 0) {
		*entries = *ways = 0;
		return 0;
	}
	if (n != 2 || v[0] > UINT32_MAX || v[1] > UINT32_MAX)
		return lace_error_set(EINVAL, "--%s wants ENTRIES,WAYS (e.g. 64,4), not '%s'", opt, spec);
	*entries = (uint32_t)v[0];
	*ways = (uint32_t)v[1];
	return 0;
}

int sim_profile_set_itlb(struct sim_profile *p, const char *spec)
{
	return tlb_spec("itlb", spec, &p->cfg.itlb_entries, &p->cfg.itlb_ways, 0);
}

int sim_profile_set_stlb(struct sim_profile *p, const char *spec)
{
	return tlb_spec("stlb", spec, &p->cfg.stlb_entries, &p->cfg.stlb_ways, 1);
}

int sim_profile_set_page(struct sim_profile *p, const char *spec)
{
	uint64_t v;

	if (parse_list(spec, &v, 1) != 1)
		return lace_error_set(EINVAL, "--page-size wants a size in bytes (4096, 2M), not '%s'", spec);
	p->cfg.page = v;
	/* every page this large or larger: one page size */
	if (p->cfg.large_page && p->cfg.large_page <= v)
		p->cfg.large_page = 0;
	return 0;
}

int sim_profile_set_kernel_page(struct sim_profile *p, const char *spec)
{
	uint64_t v;

	if (parse_list(spec, &v, 1) != 1)
		return lace_error_set(EINVAL, "--kernel-page wants a size in bytes (4K, 2M), not '%s'", spec);
	if (v <= p->cfg.page) {   /* the kernel's text in the ordinary pages */
		p->cfg.large_page = 0;
		return 0;
	}
	if (!p->cfg.litlb_entries)
		return lace_error_set(EINVAL, "--kernel-page %s: profile %s has no TLB for large pages "
				      "([itlb] large_entries)", spec, p->name);
	p->cfg.large_page = v;
	return 0;
}

int sim_profile_set_fetch_block(struct sim_profile *p, const char *spec)
{
	uint64_t v;

	if (parse_list(spec, &v, 1) != 1 || v > 4096)
		return lace_error_set(EINVAL, "--fetch-block wants 16, 32 or 64, not '%s'", spec);
	p->cfg.fetch_block = (uint32_t)v;
	return 0;
}

int sim_profile_check(const struct sim_profile *p)
{
	const char *what, *why;

	if (sim_config_check(&p->cfg, &what, &why))
		return lace_error_set(EINVAL, "profile %s: %s: %s", p->name, what, why);
	return 0;
}

struct ini_state {
	struct sim_profile *p;
	int err;
	char msg[160];
	unsigned seen;
};

enum {
	SEEN_L1I = 1, SEEN_ITLB = 2, SEEN_PAGE = 4, SEEN_FETCH = 8,
};

static int ini_value(void *user, const char *section, const char *name, const char *value)
{
	struct ini_state *st = user;
	struct sim_profile *p = st->p;
	uint64_t v;
	int num = parse_list(value, &v, 1) == 1;

#define KEY(s, n) (!strcmp(section, s) && !strcmp(name, n))
	if (KEY("profile", "name")) {
		snprintf(p->name, sizeof(p->name), "%s", value);
		return 1;
	}
	if (KEY("profile", "description")) {
		snprintf(p->description, sizeof(p->description), "%s", value);
		return 1;
	}
	if (!num || v > UINT32_MAX * 1024ull) {
		snprintf(st->msg, sizeof(st->msg), "[%s] %s: '%s' is not a number", section, name, value);
		return 0;
	}
	if (KEY("l1i", "size"))
		p->cfg.l1i_size = v, st->seen |= SEEN_L1I;
	else if (KEY("l1i", "ways"))
		p->cfg.l1i_ways = (uint32_t)v;
	else if (KEY("l1i", "line"))
		p->cfg.l1i_line = (uint32_t)v;
	else if (KEY("itlb", "entries"))
		p->cfg.itlb_entries = (uint32_t)v, st->seen |= SEEN_ITLB;
	else if (KEY("itlb", "ways"))
		p->cfg.itlb_ways = (uint32_t)v;
	else if (KEY("stlb", "entries"))
		p->cfg.stlb_entries = (uint32_t)v;
	else if (KEY("stlb", "ways"))
		p->cfg.stlb_ways = (uint32_t)v;
	else if (KEY("page", "size"))
		p->cfg.page = v, st->seen |= SEEN_PAGE;
	else if (KEY("page", "kernel"))
		p->cfg.large_page = v;
	else if (KEY("itlb", "large_entries"))
		p->cfg.litlb_entries = (uint32_t)v;
	else if (KEY("itlb", "large_ways"))
		p->cfg.litlb_ways = (uint32_t)v;
	else if (KEY("stlb", "large"))
		p->cfg.stlb_large = v != 0;
	else if (KEY("fetch", "block"))
		p->cfg.fetch_block = (uint32_t)v, st->seen |= SEEN_FETCH;
	else {
		snprintf(st->msg, sizeof(st->msg), "unknown key [%s] %s", section, name);
		return 0;
	}
#undef KEY
	return 1;
}

int sim_profile_load(const char *name_or_path, struct sim_profile *p)
{
	char path[PATH_MAX];
	struct ini_state st = { .p = p };
	const char *dir;
	int line;

	memset(p, 0, sizeof(*p));
	if (strchr(name_or_path, '/')) {
		snprintf(path, sizeof(path), "%s", name_or_path);
	} else {
		if (!*name_or_path || strlen(name_or_path) > 60)
			return lace_error_set(EINVAL, "'%s' is not a CPU profile name", name_or_path);
		dir = sim_profile_dir();
		if (!dir)
			return lace_error_set(ENOENT, "no CPU profile folder found (set LACE_PROFILE_DIR)");
		snprintf(path, sizeof(path), "%s/%s.conf", dir, name_or_path);
		if (access(path, R_OK))
			return lace_error_set(ENOENT, "unknown CPU profile '%s' (the profiles are the .conf files in %s)",
					      name_or_path, dir);
	}
	line = ini_parse(path, ini_value, &st);
	if (line < 0)
		return lace_error_set(ENOENT, "%s: cannot read the CPU profile", path);
	if (line > 0)
		return lace_error_set(EINVAL, "%s: line %d: %s", path, line,
				      st.msg[0] ? st.msg : "not INI syntax");
	if ((st.seen & (SEEN_L1I | SEEN_ITLB | SEEN_PAGE | SEEN_FETCH)) !=
	    (SEEN_L1I | SEEN_ITLB | SEEN_PAGE | SEEN_FETCH))
		return lace_error_set(EINVAL, "%s: a profile needs [l1i] size, [itlb] entries, [page] size and [fetch] block", path);
	if (p->cfg.large_page == p->cfg.page)   /* the kernel in ordinary pages */
		p->cfg.large_page = 0;
	if (p->cfg.large_page && !p->cfg.litlb_entries)
		return lace_error_set(EINVAL, "%s: [page] kernel needs [itlb] large_entries and large_ways", path);
	if (!p->name[0]) {
		const char *base = strrchr(path, '/');
		snprintf(p->name, sizeof(p->name), "%.*s", (int)strcspn(base ? base + 1 : path, "."),
			 base ? base + 1 : path);
	}
	return sim_profile_check(p);
}

int sim_profile_list_load(const char *list, struct sim_profile *out, size_t max, size_t *n)
{
	*n = 0;
	for (const char *q = list;; q++) {
		size_t len = strcspn(q, ",");
		char one[PATH_MAX];
		int err;

		if (!len || len >= sizeof(one))
			return lace_error_set(EINVAL, "--cpu-profile wants NAME[,NAME...], not '%s'", list);
		if (*n == max)
			return lace_error_set(EINVAL, "--cpu-profile: at most %zu profiles in one run", max);
		memcpy(one, q, len);
		one[len] = '\0';
		err = sim_profile_load(one, &out[*n]);
		if (err)
			return err;
		for (size_t i = 0; i < *n; i++)
			if (!strcmp(out[i].name, out[*n].name))
				return lace_error_set(EINVAL, "--cpu-profile: %s twice", out[i].name);
		(*n)++;
		q += len;
		if (!*q)
			return 0;
	}
}

int sim_profiles_load(struct sim_profiles *ps, const char *list)
{
	struct sim_profile *all = xcalloc(SIM_MAX_PROFILES, sizeof(*all));
	size_t n;
	int err = sim_profile_list_load(list, all, SIM_MAX_PROFILES, &n);

	if (!err) {
		ps->prof = all[0];
		ps->nmore = n - 1;
		for (size_t i = 1; i < n; i++)
			ps->more[i - 1] = all[i];
		ps->nnames = n;
		for (size_t i = 0; i < n; i++) {
			snprintf(ps->names[i], sizeof(ps->names[i]), "%s", all[i].name);
			ps->name_v[i] = ps->names[i];
		}
	}
	free(all);
	return err;
}
