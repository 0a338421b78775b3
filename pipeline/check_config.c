#include "pipeline/check_config.h"

#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/expect.h"
#include "util/array.h"
#include "util/error.h"
#include "util/parse_num.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

void check_config_init(struct check_config *c)
{
	memset(c, 0, sizeof(*c));
	c->fail_on = xstrdup("error");
	c->margin = 0.01;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void check_config_release(struct check_config *c)
{
	char **strs[] = { &c->fail_on, &c->gate, &c->backend, &c->min_align, &c->max_hot_growth,
			  &c->hot, &c->rounds, &c->max_runs, &c->max_time, &c->warmup,
			  &c->confidence, &c->seed, &c->timeout, &c->events, &c->executions, &c->draws,
			  &c->primary, &c->target, &c->budget, &c->family };
	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		free(*strs[i]);
	free_list(c->rules, c->nrules);
	free_list(c->expects, c->nexpects);
	free_list(c->workloads, c->nworkloads);
	for (size_t i = 0; i < c->nmargins; i++)
		free(c->margins[i].event);
	free(c->margins);
	memset(c, 0, sizeof(*c));
}

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
}

static void push(char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
}

/* percent text -> fraction; -1 on junk */
static double parse_pct(const char *v)
{
	size_t n = strlen(v);
	double x;

	while (n && (v[n - 1] == ' ' || v[n - 1] == '%'))
		n--;
	if (parse_double_n(v, n, &x) || x < 0 || x >= 100)
		return -1;
	return x / 100.0;
}

static bool is_level(const char *v)
{
	return !strcmp(v, "info") || !strcmp(v, "warning") || !strcmp(v, "error") ||
	       !strcmp(v, "never") || !strcmp(v, "off");
}

/* Strip one pair of matching quotes: INI values for commands are often
 * written quoted. */
static const char *unquote(const char *v, char *buf, size_t len)
{
	size_t n = strlen(v);
	if (n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n - 1] == v[0] && n - 2 < len) {
		memcpy(buf, v + 1, n - 2);
		buf[n - 2] = '\0';
		return buf;
	}
	return v;
}

int check_config_set(struct check_config *c, const char *section, const char *key,
		     const char *value)
{
	char qbuf[4096];
	const char *v = unquote(value, qbuf, sizeof(qbuf));

#define KEY(s, k) (!strcmp(section, s) && !strcmp(key, k))
	if (KEY("check", "fail_on")) {
		if (!is_level(v))
			return lace_error_set(EINVAL, "check.fail_on: '%s' is not info|warning|error|never", v);
		set_str(&c->fail_on, v);
	} else if (KEY("check", "inconclusive")) {
		if (strcmp(v, "pass") && strcmp(v, "fail"))
			return lace_error_set(EINVAL, "check.inconclusive: '%s' is not pass|fail", v);
		c->inconclusive_fails = !strcmp(v, "fail");
	} else if (KEY("check", "no_verdict")) {
		if (strcmp(v, "pass") && strcmp(v, "fail"))
			return lace_error_set(EINVAL, "check.no_verdict: '%s' is not pass|fail", v);
		c->no_verdict_fails = !strcmp(v, "fail");
	} else if (KEY("check", "gate")) {
		set_str(&c->gate, v);
	} else if (KEY("check", "backend")) {
		set_str(&c->backend, v);
	} else if (KEY("diff", "min_align")) {
		set_str(&c->min_align, v);
	} else if (KEY("diff", "max_hot_growth")) {
		set_str(&c->max_hot_growth, v);
	} else if (KEY("diff", "hot")) {
		set_str(&c->hot, v);
	} else if (!strcmp(section, "diff") && !strncmp(key, "rule.", 5)) {
		if (!is_level(v))
			return lace_error_set(EINVAL, "diff.%s: '%s' is not info|warning|error|off", key, v);
		struct strbuf rule = STRBUF_INIT;
		strbuf_addf(&rule, "%s=%s", key + 5, v);
		push(&c->rules, &c->nrules, rule.buf);
		strbuf_release(&rule);
	} else if (KEY("diff", "expect")) {
		/* checked here, so a typo is a config error, not lace diff's */
		struct lace_expect_set es = { 0 };
		int rc = expect_add(&es, v);
		expect_release(&es);
		if (rc < 0)
			return lace_error_set(EINVAL, "diff.expect: %s", lace_error_msg());
		push(&c->expects, &c->nexpects, v);
	} else if (KEY("ab", "noise_layouts")) {
		return lace_error_set(EINVAL, "ab.noise_layouts: a relink folder is no longer the noise: "
				      "virtual layouts are (ab.executions, ab.draws; lace-check(1))");
	} else if (KEY("ab", "executions")) {
		set_str(&c->executions, v);
	} else if (KEY("ab", "draws")) {
		set_str(&c->draws, v);
	} else if (KEY("ab", "primary")) {
		set_str(&c->primary, v);
	} else if (KEY("ab", "target")) {
		set_str(&c->target, v);
	} else if (KEY("ab", "budget")) {
		set_str(&c->budget, v);
	} else if (KEY("ab", "family")) {
		set_str(&c->family, v);
	} else if (KEY("ab", "rounds")) {
		set_str(&c->rounds, v);
	} else if (KEY("ab", "max_runs")) {
		set_str(&c->max_runs, v);
	} else if (KEY("ab", "max_time")) {
		set_str(&c->max_time, v);
	} else if (KEY("ab", "warmup")) {
		set_str(&c->warmup, v);
	} else if (KEY("ab", "confidence")) {
		set_str(&c->confidence, v);
	} else if (KEY("ab", "seed")) {
		set_str(&c->seed, v);
	} else if (KEY("ab", "timeout")) {
		set_str(&c->timeout, v);
	} else if (KEY("ab", "events")) {
		set_str(&c->events, v);
	} else if (KEY("ab", "margin")) {
		double m = parse_pct(v);
		if (m < 0)
			return lace_error_set(EINVAL, "ab.margin: '%s' is not a percentage", v);
		c->margin = m;
	} else if (!strcmp(section, "margin")) {
		double m = parse_pct(v);
		if (m < 0)
			return lace_error_set(EINVAL, "margin.%s: '%s' is not a percentage", key, v);
		c->margins = xrealloc(c->margins, (c->nmargins + 1) * sizeof(*c->margins));
		c->margins[c->nmargins].event = xstrdup(key);
		c->margins[c->nmargins++].margin = m;
	} else if (KEY("workload", "run")) {
		/* a user build runs as the workload's {elf}; under qemu the
		 * build is the kernel and the workload a guest command */
		if (!strstr(v, "{elf}") && !(c->backend && !strcmp(c->backend, "qemu")))
			return lace_error_set(EINVAL, "workload.run: '%s' has no {elf} placeholder "
					      "(with check.backend=qemu the builds are kernels and it needs none)", v);
		push(&c->workloads, &c->nworkloads, v);
	} else {
		return lace_error_set(EINVAL, "unknown setting %s.%s", section, key);
	}
#undef KEY
	return 0;
}

struct load_state {
	struct check_config *c;
	int err;
	char msg[512];
};

static int on_value(void *user, const char *section, const char *name, const char *value)
{
	struct load_state *st = user;
	int rc = check_config_set(st->c, section, name, value);

	if (rc < 0 && !st->err) {
		st->err = rc;
		snprintf(st->msg, sizeof(st->msg), "%s", lace_error_msg());
		return 0;
	}
	return rc < 0 ? 0 : 1;
}

int check_config_load(struct check_config *c, const char *path)
{
	struct load_state st = { c, 0, "" };
	FILE *f = fopen(path, "r");

	if (!f)
		return lace_error_set(errno, "%s", strerror(errno));
	int line = ini_parse_file(f, on_value, &st);
	fclose(f);
	/* inih reports the first line whose handler refused, or a syntax error */
	if (st.err)
		return lace_error_set(EINVAL, "line %d: %s", line, st.msg);
	if (line)
		return lace_error_set(EINVAL, "line %d: not 'key = value' or '[section]'", line);
	return 0;
}

double check_config_margin(const struct check_config *c, const char *event)
{
	for (size_t i = c->nmargins; i-- > 0;)
		if (!strcmp(c->margins[i].event, event))
			return c->margins[i].margin;
	return c->margin;
}

bool check_config_gated(const struct check_config *c, const char *event)
{
	if (!c->gate)
		return true;
	size_t n = strlen(event);
	for (const char *p = c->gate; *p;) {
		while (*p == ' ' || *p == ',')
			p++;
		const char *e = p;
		while (*e && *e != ',')
			e++;
		const char *t = e;
		while (t > p && t[-1] == ' ')
			t--;
		if ((size_t)(t - p) == n && !strncmp(p, event, n))
			return true;
		p = e;
	}
	return false;
}
