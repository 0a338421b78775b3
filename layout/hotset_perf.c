/* Hot sets from perf's profiles: `perf report --stdio` and `perf script`.
 *
 * A maintainer already has a profile of the workload that matters; the
 * functions that take its samples are the hot set, weighted by their
 * share, and no hand-written list is needed.  Both texts are read as perf
 * 6.1 prints them by default:
 *
 *   perf report --stdio:  "    20.83%  comm  dso  [.] symbol"
 *     (with --children: "Children  Self" percentages; Self is taken, so a
 *     caller is not hot for its callees' samples; callgraph lines, which do
 *     not start with a percentage, are skipped);
 *   perf script:  "comm pid [cpu] time: period event:  ip sym+off (dso)"
 *     (with -g the header line ends at the event and the leaf frame is the
 *     first indented line after it; weight = the sample's period).
 *
 * Symbols are taken as the image names them: "+0x.." offsets and "@VERSION"
 * suffixes are dropped; "[unknown]" and raw addresses are skipped. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "layout/hotset.h"
#include "util/error.h"
#include "util/parse_num.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct sample {
	char *name;
	double weight;
};

struct samples {
	struct sample *v;
	size_t n, alloc;
};

static void samples_add(struct samples *s, const char *sym, size_t len, double weight)
{
	const char *at = memchr(sym, '@', len);
	const char *plus = NULL;

	for (size_t i = len; i-- > 0;)   /* the offset: the last "+0x" */
		if (sym[i] == '+' && i + 2 < len && sym[i + 1] == '0' && sym[i + 2] == 'x') {
			plus = sym + i;
			break;
		}
	if (plus)
		len = (size_t)(plus - sym);
	if (at && (size_t)(at - sym) < len)
		len = (size_t)(at - sym);
	if (!len || (len == 9 && !memcmp(sym, "[unknown]", 9)))
		return;
	if (len > 2 && sym[0] == '0' && sym[1] == 'x')
		return;   /* perf report's unresolved address */
	ALLOC_GROW(s->v, s->n + 1, s->alloc);
	s->v[s->n].name = xstrndup(sym, len);
	s->v[s->n].weight = weight;
	s->n++;
}

static int cmp_sample_name(const void *a, const void *b)
{
	return strcmp(((const struct sample *)a)->name, ((const struct sample *)b)->name);
}

static int cmp_sample_weight(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Sum the weights of each name, heaviest first, into a hot file's text:
 * one parser (hotset_parse) builds every hot set. */
static int samples_to_hotset(struct samples *s, struct lace_hotset *hs, const char *what)
{
	struct strbuf t = STRBUF_INIT;
	size_t out = 0;
	int err;

	if (!s->n) {
		free(s->v);
		return lace_error_set(EINVAL, "%s: no sample names a symbol", what);
	}
	qsort(s->v, s->n, sizeof(*s->v), cmp_sample_name);
	for (size_t i = 0; i < s->n; i++) {
		if (out && !strcmp(s->v[out - 1].name, s->v[i].name)) {
			s->v[out - 1].weight += s->v[i].weight;
			free(s->v[i].name);
			continue;
		}
		s->v[out++] = s->v[i];
	}
	qsort(s->v, out, sizeof(*s->v), cmp_sample_weight);
	for (size_t i = 0; i < out; i++) {
		/* a name a hot file cannot hold matches no symbol either */
		if (!strpbrk(s->v[i].name, " \t#"))
			strbuf_addf(&t, "%s %.17g\n", s->v[i].name, s->v[i].weight);
		free(s->v[i].name);
	}
	free(s->v);
	err = hotset_parse(t.buf, hs);
	strbuf_release(&t);
	return err;
}

/* "12.34%" at p: its value, and p moved past it; false when p is not one */
static bool percent_at(const char **p, double *v)
{
	const char *s = *p;
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	n = strspn(s, "0123456789.");
	if (s[n] != '%' || parse_double_n(s, n, v))
		return false;
	*p = s + n + 1;
	return true;
}

static const char *line_end(const char *p)
{
	const char *e = strchr(p, '\n');
	return e ? e : p + strlen(p);
}

/* perf script's sample header has "SECS.USECS: " (comm names such as
 * "kworker/0:1" hold other colons): that colon, or NULL */
static const char *time_colon(const char *p, const char *eol)
{
	for (const char *c = p; c + 1 < eol; c++) {
		if (c[0] != ':' || c[1] != ' ' || c <= p || !isdigit((unsigned char)c[-1]))
			continue;
		const char *d = c - 1;
		while (d > p && isdigit((unsigned char)d[-1]))
			d--;
		if (d > p + 1 && d[-1] == '.' && isdigit((unsigned char)d[-2]))
			return c;
	}
	return NULL;
}

int hotset_parse_perf_report(const char *text, struct lace_hotset *hs)
{
	struct samples s = { 0 };

	memset(hs, 0, sizeof(*hs));
	for (const char *p = text; *p;) {
		const char *eol = line_end(p), *q = p;
		double first, self;

		if (*p != '#' && percent_at(&q, &first) && q <= eol) {
			const char *r = q;
			if (!percent_at(&r, &self) || r > eol)
				self = first;   /* no --children column */
			/* the symbol follows the "[k] " / "[.] " mark */
			const char *mark = NULL;
			for (const char *m = q; m + 3 < eol; m++)
				if (m[0] == '[' && m[2] == ']' && m[3] == ' ' && m[-1] == ' ') {
					mark = m;
					break;
				}
			if (mark && self > 0) {   /* callers that only hold callees' samples are not hot */
				const char *sym = mark + 4, *end = eol;
				while (end > sym && isspace((unsigned char)end[-1]))
					end--;
				samples_add(&s, sym, (size_t)(end - sym), self);
			}
		}
		p = *eol ? eol + 1 : eol;
	}
	return samples_to_hotset(&s, hs, "perf report");
}

/* "ip sym+off (dso)" from p to eol: the symbol, or false */
static bool frame_symbol(const char *p, const char *eol, const char **sym, size_t *len)
{
	while (p < eol && isspace((unsigned char)*p))
		p++;
	const char *ip = p;
	while (p < eol && isxdigit((unsigned char)*p))
		p++;
	if (p == ip || p >= eol || *p != ' ')
		return false;
	p++;
	const char *paren = eol;
	while (paren > p && paren[-1] != '(')
		paren--;
	if (paren == p)
		return false;
	const char *end = paren - 1;   /* at the '(' */
	while (end > p && end[-1] == ' ')
		end--;
	*sym = p;
	*len = (size_t)(end - p);
	return *len > 0;
}

int hotset_parse_perf_script(const char *text, struct lace_hotset *hs)
{
	struct samples s = { 0 };
	bool want_leaf = false;   /* a header without an ip: the next frame */
	double period = 1;

	memset(hs, 0, sizeof(*hs));
	for (const char *p = text; *p;) {
		const char *eol = line_end(p), *tc = time_colon(p, eol), *sym;
		size_t len;

		if (!tc) {
			/* a callchain frame: the first one after a header is the leaf */
			if (want_leaf && frame_symbol(p, eol, &sym, &len)) {
				samples_add(&s, sym, len, period);
				want_leaf = false;
			}
		} else {
			/* "... SECS.USECS: [PERIOD] EVENT: [ip sym+off (dso)]" */
			const char *end = tc + 1 + strspn(tc + 1, " \t");
			size_t n = strspn(end, "0123456789.");
			if (!n || parse_double_n(end, n, &period) || period <= 0)
				period = 1;
			if (!n)
				end = tc + 1;
			const char *tok = end + n, *te;
			while (tok < eol && *tok == ' ')
				tok++;
			te = tok;
			while (te < eol && *te != ' ')
				te++;
			want_leaf = true;
			if (te > tok && te[-1] == ':' && frame_symbol(te, eol, &sym, &len)) {
				samples_add(&s, sym, len, period);
				want_leaf = false;
			}
		}
		p = *eol ? eol + 1 : eol;
	}
	return samples_to_hotset(&s, hs, "perf script");
}

enum hot_format hotset_detect(const char *text)
{
	for (const char *p = text; *p;) {
		const char *eol = line_end(p), *q = p;
		double v;

		if (*p == '#') {
			/* perf report's column header */
			const char *o = strstr(p, "Overhead");
			if (o && o < eol)
				return HOT_PERF_REPORT;
		} else if (p < eol) {
			if (percent_at(&q, &v) && q <= eol)
				return HOT_PERF_REPORT;
			return time_colon(p, eol) ? HOT_PERF_SCRIPT : HOT_LIST;
		}
		p = *eol ? eol + 1 : eol;
	}
	return HOT_LIST;
}
