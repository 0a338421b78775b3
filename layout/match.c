/* Function matching: sort both images' functions by identity and pair
 * within each identity (O(n log n); see match.h for the rules). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layout/match.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

bool func_is_marker(const struct lace_image *img, int idx)
{
	const struct lace_function *f = &img->funcs[idx];
	const char *n = f->name ? f->name : "";
	size_t len = strlen(n);

	for (size_t r = 0; r < img->nregions; r++) {
		const struct lace_region *rg = &img->regions[r];
		if ((rg->start_symbol && !strcmp(rg->start_symbol, n)) ||
		    (rg->end_symbol && !strcmp(rg->end_symbol, n)))
			return true;
	}
	if (f->size)
		return false;
	if (!strcmp(n, "_stext") || !strcmp(n, "_etext") || !strcmp(n, "_text") ||
	    !strcmp(n, "_sinittext") || !strcmp(n, "_einittext"))
		return true;
	/* ld's __start_SEC/__stop_SEC, and the kernel's __foo_start/__foo_end */
	if (!strncmp(n, "__start_", 8) || !strncmp(n, "__stop_", 7))
		return true;
	return !strncmp(n, "__", 2) &&
	       ((len > 6 && !strcmp(n + len - 6, "_start")) || (len > 4 && !strcmp(n + len - 4, "_end")));
}

struct rec {
	char *key;
	const char *name;
	unsigned ordinal;
	uint64_t addr;
	int side; /* 0 old, 1 new */
	int idx;
};

static const char *piece_class(enum lace_suffix s)
{
	return s == LACE_SUFFIX_COLD ? "cold" : s == LACE_SUFFIX_PART ? "part" : "";
}

static char *func_key(const struct lace_function *f, bool with_file)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, f->base_name ? f->base_name : f->name ? f->name : "");
	strbuf_addch(&sb, '\x01');
	strbuf_addstr(&sb, piece_class(f->suffix));
	if (with_file && !f->global) {
		strbuf_addch(&sb, '\x01');
		strbuf_addstr(&sb, f->file ? f->file : "");
	}
	return strbuf_detach(&sb, NULL);
}

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	if (x->side != y->side)
		return x->side - y->side;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	if (x->ordinal != y->ordinal)
		return x->ordinal < y->ordinal ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_rec_addr(const void *a, const void *b)
{
	const struct rec *x = *(const struct rec *const *)a, *y = *(const struct rec *const *)b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void pair(const struct rec *o, const struct rec *n, int *old_to_new, int *new_to_old)
{
	old_to_new[o->idx] = n->idx;
	new_to_old[n->idx] = o->idx;
}

/* Pair the records of one identity: old ones are v[0..no), new ones v[no..no+nn). */
static void pair_group(struct rec *v, size_t no, size_t nn, int *old_to_new, int *new_to_old,
		       struct rec **tmp_o, struct rec **tmp_n)
{
	struct rec *o = v, *n = v + no;
	size_t i = 0, j = 0, lo = 0, ln = 0;

	/* equal names first, both lists are in (name, ordinal, addr) order */
	while (i < no && j < nn) {
		int c = strcmp(o[i].name, n[j].name);
		if (!c) {
			pair(&o[i++], &n[j++], old_to_new, new_to_old);
			continue;
		}
		if (c < 0)
			tmp_o[lo++] = &o[i++];
		else
			tmp_n[ln++] = &n[j++];
	}
	while (i < no)
		tmp_o[lo++] = &o[i++];
	while (j < nn)
		tmp_n[ln++] = &n[j++];
	/* then the renamed ones (new suffix), in address order */
	qsort(tmp_o, lo, sizeof(*tmp_o), cmp_rec_addr);
	qsort(tmp_n, ln, sizeof(*tmp_n), cmp_rec_addr);
	for (size_t k = 0; k < lo && k < ln; k++)
		pair(tmp_o[k], tmp_n[k], old_to_new, new_to_old);
}

static void match_pass(const struct lace_image *old, const struct lace_image *new,
		       int *old_to_new, int *new_to_old, bool with_file)
{
	size_t cap = old->nfuncs + new->nfuncs, m = 0;
	struct rec *v = xcalloc(cap, sizeof(*v));
	struct rec **tmp_o = xcalloc(cap, sizeof(*tmp_o));
	struct rec **tmp_n = xcalloc(cap, sizeof(*tmp_n));

	for (int side = 0; side < 2; side++) {
		const struct lace_image *img = side ? new : old;
		const int *map = side ? new_to_old : old_to_new;
		for (size_t i = 0; i < img->nfuncs; i++) {
			const struct lace_function *f = &img->funcs[i];
			if (map[i] != LACE_MATCH_NONE)
				continue;
			v[m++] = (struct rec){ func_key(f, with_file), f->name ? f->name : "",
					       f->static_ordinal, f->addr, side, (int)i };
		}
	}
	qsort(v, m, sizeof(*v), cmp_rec);
	for (size_t i = 0; i < m;) {
		size_t j = i, no = 0;
		while (j < m && !strcmp(v[j].key, v[i].key)) {
			no += v[j].side == 0;
			j++;
		}
		if (no && j - i > no)
			pair_group(v + i, no, j - i - no, old_to_new, new_to_old, tmp_o, tmp_n);
		i = j;
	}
	for (size_t i = 0; i < m; i++)
		free(v[i].key);
	free(v);
	free(tmp_o);
	free(tmp_n);
}

void funcs_match(const struct lace_image *old, const struct lace_image *new,
		 int *old_to_new, int *new_to_old)
{
	for (size_t i = 0; i < old->nfuncs; i++)
		old_to_new[i] = func_is_marker(old, (int)i) ? LACE_MATCH_MARKER : LACE_MATCH_NONE;
	for (size_t i = 0; i < new->nfuncs; i++)
		new_to_old[i] = func_is_marker(new, (int)i) ? LACE_MATCH_MARKER : LACE_MATCH_NONE;
	match_pass(old, new, old_to_new, new_to_old, true);
	match_pass(old, new, old_to_new, new_to_old, false);
}
