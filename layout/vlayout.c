/* Virtual layouts; see vlayout.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/image_priv.h"
#include "layout/vlayout.h"
#include "util/error.h"
#include "util/prng.h"
#include "util/xalloc.h"

/* without a link map: the largest alignment a function's address is
 * taken to need (a guess: 16 for GCC's functions, 64 for cache-line
 * aligned assembly) */
#define VL_GUESS_ALIGN_MAX 64

enum { VS_SYMBOL = VS_PAD + 1 };   /* a script symbol: dot recorded (map) */

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return a > 1 ? (x + a - 1) & ~(a - 1) : x;
}

static uint64_t low_pow2(uint64_t a, uint64_t cap)
{
	uint64_t p = a ? a & -a : cap;

	return p > cap ? cap : p;
}

/* FNV-1a: a key's hash, the same in every build */
static uint64_t key_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* ---- families and pads ------------------------------------------------- */

int vl_family_parse(const char *s, enum vl_family_kind *out)
{
	if (s && !strcmp(s, "function"))
		*out = VL_FAMILY_FUNCTION;
	else if (s && !strcmp(s, "relink"))
		*out = VL_FAMILY_RELINK;
	else
		return lace_error_set(EINVAL, "unknown layout family '%s' (function, relink)", s ? s : "");
	return 0;
}

void vl_pads_free(struct vl_pad *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i].where);
	free(p);
}

int vl_pads_parse(const char *spec, struct vl_pad **out, size_t *n)
{
	char *copy = xstrdup(spec ? spec : ""), *save = NULL, *tok;
	struct vl_pad *v = NULL;
	size_t k = 0;
	int err = 0;

	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		char *c2 = strrchr(tok, ':'), *c1, *end1, *end2;
		unsigned long long unit, max;

		c1 = c2 ? (*c2 = 0, strrchr(tok, ':')) : NULL;
		if (!c1 || (strncmp(tok, "after:", 6) && strncmp(tok, "before:", 7)) ||
		    (unit = strtoull(c1 + 1, &end1, 0), *end1) || (max = strtoull(c2 + 1, &end2, 0), *end2) ||
		    !unit || unit & (unit - 1) || max > 1u << 20) {
			err = lace_error_set(EINVAL, "pad point '%s': not after:SECTION:UNIT:MAX or "
					     "before:SYMBOL:UNIT:MAX (UNIT a power of two)", tok);
			break;
		}
		*c1 = 0;
		if (!tok[strcspn(tok, ":") + 1]) {
			err = lace_error_set(EINVAL, "pad point '%s': no section or symbol", tok);
			break;
		}
		v = xrealloc(v, (k + 1) * sizeof(*v));
		v[k++] = (struct vl_pad){ xstrdup(tok), unit, max };
	}
	free(copy);
	if (!err && !k)
		err = lace_error_set(EINVAL, "no pad points in '%s'", spec ? spec : "");
	if (err) {
		vl_pads_free(v, k);
		return err;
	}
	*out = v;
	*n = k;
	return 0;
}

/* ---- building the base ------------------------------------------------- */

struct build {
	struct vl_base *b;
	size_t cap_units, cap_steps;
};

static void step_add(struct build *bd, enum vl_step_kind kind, uint64_t v)
{
	struct vl_base *b = bd->b;

	if (b->nsteps == bd->cap_steps) {
		bd->cap_steps = bd->cap_steps ? 2 * bd->cap_steps : 1024;
		b->steps = xrealloc(b->steps, bd->cap_steps * sizeof(*b->steps));
	}
	b->steps[b->nsteps++] = (struct vl_step){ kind, v };
}

static size_t unit_add(struct build *bd, const char *key, uint64_t addr, uint64_t size,
		       uint64_t own, uint64_t align, long group, bool inferred, uint64_t order)
{
	struct vl_base *b = bd->b;

	if (b->nunits == bd->cap_units) {
		bd->cap_units = bd->cap_units ? 2 * bd->cap_units : 1024;
		b->units = xrealloc(b->units, bd->cap_units * sizeof(*b->units));
	}
	b->units[b->nunits] = (struct vl_unit){ .key = xstrdup(key), .addr = addr, .size = size,
						.own = own, .align = align, .group = group,
						.inferred = inferred, .order = order };
	b->inferred += inferred;
	step_add(bd, VS_UNIT, b->nunits);
	return b->nunits++;
}

/* The pad point of pads[i] in the map's items of one output section:
 * a VS_PAD step goes before item `at` (or after the section's last). */
static bool pad_here(const struct vl_pad *p, const struct linkmap *lm, size_t item, size_t last_of)
{
	const struct linkmap_item *it = &lm->items[item];

	if (!strncmp(p->where, "before:", 7))
		return it->kind == LM_SYMBOL && !strcmp(it->text, p->where + 7);
	return item == last_of;   /* after:SECTION: after its last input */
}

static int from_map(struct build *bd, const struct lace_image *img, const struct linkmap *lm,
		    const struct vl_pad *pads, size_t npads, bool *pad_found)
{
	struct vl_base *b = bd->b;
	long group = -1;
	struct strbuf key = STRBUF_INIT;
	uint64_t prev_end = 0;   /* where the last code section ended, 0: none */

	for (size_t s = 0; s < img->nsections; s++) {
		const struct lace_section *sec = &img->sections[s];
		long o = sec->code && sec->alloc && sec->size ? linkmap_osec(lm, sec->name) : -2;

		if (o == -2) {
			if (sec->alloc && sec->size)   /* data in between: the next starts anew */
				prev_end = 0;
			continue;
		}
		if (o < 0 || lm->osecs[o].addr != sec->addr) {
			strbuf_release(&key);
			return lace_error_set(EINVAL, "the link map %s section %s%s", o < 0 ? "has no" :
					      "puts elsewhere:", sec->name, o < 0 ? "" : " not this build's map");
		}
		const struct linkmap_osec *os = &lm->osecs[o];
		uint64_t sec_align = (uint64_t)1 << sec->align_pow;
		/* a code section right after another follows it where it ends
		 * (.fini after .text), as the linker puts it; else it stays */
		if (prev_end && prev_end <= sec->addr && align_up(prev_end, sec_align) == sec->addr)
			step_add(bd, VS_ALIGN, sec_align);
		else
			step_add(bd, VS_START, os->addr);
		prev_end = os->addr + os->size;
		/* the last input of each after:SECTION pad, in this section */
		size_t *last_of = xcalloc(npads, sizeof(*last_of));
		for (size_t p = 0; p < npads; p++) {
			last_of[p] = SIZE_MAX;
			for (size_t i = os->first; i < os->first + os->n; i++)
				if (lm->items[i].kind == LM_INPUT && !strncmp(pads[p].where, "after:", 6) &&
				    !strcmp(lm->items[i].text, pads[p].where + 6))
					last_of[p] = i;
		}
		for (size_t i = os->first; i < os->first + os->n; i++) {
			const struct linkmap_item *it = &lm->items[i];

			for (size_t p = 0; p < npads; p++)
				if (!strncmp(pads[p].where, "before:", 7) && pad_here(&pads[p], lm, i, last_of[p])) {
					step_add(bd, VS_PAD, p);
					pad_found[p] = true;
				}
			switch (it->kind) {
			case LM_STATEMENT:
				group = -1;   /* its first input opens its group */
				break;
			case LM_INPUT: {
				bool guess = !it->align;
				uint64_t al = guess ? low_pow2(it->addr, 4096) : it->align;

				if (group < 0)
					group = (long)b->ngroups++;
				strbuf_reset(&key);
				strbuf_addf(&key, "%s:%s", it->object, it->text);
				/* a later draw orders an object's inputs alike in every
				 * statement, as a link order would */
				unit_add(bd, key.buf, it->addr, it->size, it->size, al, group, guess,
					 key_hash(it->object));
				break;
			}
			case LM_ALIGN:
				step_add(bd, VS_ALIGN, it->size);
				break;
			case LM_ADVANCE:
				step_add(bd, VS_ADVANCE, it->size);
				break;
			case LM_SET:
				step_add(bd, VS_SET, it->addr);
				break;
			case LM_SYMBOL:
				b->syms = xrealloc(b->syms, (b->nsyms + 1) * sizeof(*b->syms));
				b->sym_addr = xrealloc(b->sym_addr, (b->nsyms + 1) * sizeof(*b->sym_addr));
				b->syms[b->nsyms] = xstrdup(it->text);
				b->sym_addr[b->nsyms] = it->addr;
				step_add(bd, (enum vl_step_kind)VS_SYMBOL, b->nsyms++);
				break;
			}
			for (size_t p = 0; p < npads; p++)
				if (last_of[p] == i) {
					step_add(bd, VS_PAD, p);
					pad_found[p] = true;
				}
		}
		free(last_of);
	}
	strbuf_release(&key);
	return 0;
}

/* A function's key, as layout/symkeys.c gives it. */
static void func_key(const struct lace_function *f, struct strbuf *sb)
{
	strbuf_reset(sb);
	strbuf_addstr(sb, f->name);
	if (!f->global)
		strbuf_addf(sb, "@%s#%u", f->file ? f->file : "", f->static_ordinal);
}

/* Without a map: each region's run of functions is a group.  A group
 * that starts on a page boundary or more (an ALIGN of the script, as
 * before the kernel's entry text) starts at the next such boundary; the
 * rest flow on as a linker lays them.  A function's unit is its own bytes,
 * and the bytes up to the next function too when the next one's
 * alignment does not explain them (unsized code: it moves with the
 * function before it). */
static void from_functions(struct build *bd, const struct lace_image *img)
{
	struct vl_base *b = bd->b;
	struct strbuf key = STRBUF_INIT, owner = STRBUF_INIT;
	long cur_region = -2;
	int cur_section = -2;

	for (size_t i = 0; i < img->nfuncs; i++) {
		const struct lace_function *f = &img->funcs[i];
		const struct lace_section *sec = f->section >= 0 ? &img->sections[f->section] : NULL;
		uint64_t end, extent, next_align = 1;
		size_t j;

		if (!f->size || !sec || !sec->code)
			continue;
		/* the next sized function of the section */
		end = sec->addr + sec->size;
		for (j = i + 1; j < img->nfuncs; j++)
			if (img->funcs[j].section == f->section && img->funcs[j].size) {
				end = img->funcs[j].addr;
				next_align = img->funcs[j].region == f->region
					     ? low_pow2(end, VL_GUESS_ALIGN_MAX) : low_pow2(end, 2 << 20);
				break;
			}
		extent = f->size;
		if (end > f->addr + f->size && end - (f->addr + f->size) >= next_align)
			extent = end - f->addr;
		if (f->section != cur_section) {
			/* code before the section's first sized function (ppc64's
			 * vectors, asm stubs) stays where it is: start at that function */
			step_add(bd, VS_START, f->addr);
			cur_section = f->section;
			cur_region = -2;
		}
		if (f->region != cur_region) {
			uint64_t a = low_pow2(f->addr, 2 << 20);
			if (a >= 4096)
				step_add(bd, VS_ALIGN, a);
			b->ngroups++;
			cur_region = f->region;
		}
		func_key(f, &key);
		/* a cold or part piece is ordered as its owner */
		func_key(f->parent >= 0 ? &img->funcs[f->parent] : f, &owner);
		unit_add(bd, key.buf, f->addr, extent, f->size, low_pow2(f->addr, VL_GUESS_ALIGN_MAX),
			 (long)b->ngroups - 1, true, key_hash(owner.buf));
	}
	strbuf_release(&key);
	strbuf_release(&owner);
}

/* ---- laying out -------------------------------------------------------- */

struct run {
	const struct vl_base *b;
	size_t *slot;          /* per step: the unit a VS_UNIT step places */
	const uint64_t *pads;
	uint64_t *addr;        /* per unit */
	uint64_t *sym;         /* per script symbol */
};

/* Run steps [from, to): the layout a linker makes of them. */
static uint64_t run_steps(struct run *r, size_t from, size_t to, uint64_t dot)
{
	const struct vl_base *b = r->b;

	for (size_t i = from; i < to; i++) {
		const struct vl_step *s = &b->steps[i];

		switch ((int)s->kind) {
		case VS_START:
			dot = s->v;
			break;
		case VS_UNIT: {
			const struct vl_unit *u = &b->units[r->slot[i]];
			dot = align_up(dot, u->align);
			r->addr[r->slot[i]] = dot;
			dot += u->size;
			break;
		}
		case VS_ALIGN:
			dot = align_up(dot, s->v);
			break;
		case VS_ADVANCE:
			dot += s->v;
			break;
		case VS_SET:
			/* an assignment lace cannot evaluate: where the base had
			 * it, unless the layout is already past it */
			dot = dot > s->v ? dot : s->v;
			break;
		case VS_PAD:
			dot += r->pads ? r->pads[s->v] : 0;
			break;
		case VS_SYMBOL:
			if (r->sym)
				r->sym[s->v] = dot;
			break;
		}
	}
	return dot;
}

struct order_key {
	uint64_t h;
	size_t unit;
};

static int order_cmp(const void *a, const void *b)
{
	const struct order_key *x = a, *y = b;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return x->unit < y->unit ? -1 : x->unit > y->unit;
}

/* The units of the steps [from, to) in a draw's order (salt: 0 the
 * base order). */
static void group_order(const struct vl_base *b, size_t from, size_t to, uint64_t salt, size_t *slot)
{
	size_t n = 0;
	struct order_key *k = xcalloc(to - from, sizeof(*k));

	for (size_t i = from; i < to; i++)
		if (b->steps[i].kind == VS_UNIT) {
			size_t u = b->steps[i].v;
			k[n].h = salt ? prng_mix(b->units[u].order ^ salt) : u;
			k[n++].unit = u;
		}
	qsort(k, n, sizeof(*k), order_cmp);
	n = 0;
	for (size_t i = from; i < to; i++)
		if (b->steps[i].kind == VS_UNIT)
			slot[i] = k[n++].unit;
	free(k);
}

/* The end of the run of unit steps of one group that starts at step i
 * (a statement's inputs are contiguous steps). */
static size_t group_end(const struct vl_base *b, size_t i)
{
	long g = b->units[b->steps[i].v].group;
	size_t j = i;

	while (j < b->nsteps && b->steps[j].kind == VS_UNIT && b->units[b->steps[j].v].group == g)
		j++;
	return j;
}

void vl_draw_pads(const struct vl_base *b, uint64_t seed, unsigned k, uint64_t *pads)
{
	struct prng r;

	prng_init(&r, seed, 0x5041445300000000ull + k);   /* "PADS" */
	for (size_t i = 0; i < b->npads; i++)
		pads[i] = k ? b->pads[i].unit * prng_below(&r, b->pads[i].max + 1) : 0;
}

/* whether section (of a unit key OBJECT:SECTION) is in the comma list */
static bool section_listed(const char *list, const char *key)
{
	const char *colon = strrchr(key, ':'), *sec = colon ? colon + 1 : key;
	size_t n = strlen(sec);

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		if ((len == 1 && *p == '*') || (len == n && !strncmp(p, sec, n)))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

/* whether a draw reorders the group of unit u */
static bool group_permuted(const struct vl_base *b, const char *permute, size_t u)
{
	if (!b->from_map)
		return true;   /* a region's run of functions */
	if (!permute)
		return !section_listed(VL_PINNED, b->units[u].key);
	return section_listed(permute, b->units[u].key);
}

static int lay_out(const struct vl_base *b, uint64_t salt, const char *permute, const uint64_t *pads,
		   uint64_t *addr, uint64_t *sym)
{
	size_t *slot = xcalloc(b->nsteps, sizeof(*slot));
	struct run r = { b, slot, pads, addr, sym };
	int err = 0;

	for (size_t i = 0; i < b->nsteps; i++)
		if (b->steps[i].kind == VS_UNIT)
			slot[i] = b->steps[i].v;
	for (size_t i = 0; salt && i < b->nsteps;) {
		if (b->steps[i].kind != VS_UNIT || b->units[b->steps[i].v].group < 0) {
			i++;
			continue;
		}
		size_t e = group_end(b, i);
		if (group_permuted(b, permute, b->steps[i].v))
			group_order(b, i, e, salt, slot);
		i = e;
	}
	run_steps(&r, 0, b->nsteps, 0);
	free(slot);
	return err;
}

int vl_draw(const struct vl_base *b, const struct vl_family *f, unsigned k, const uint64_t *pads,
	    uint64_t *addr, uint64_t *sym)
{
	uint64_t *drawn = NULL, salt = 0;
	int err;

	if (f->kind == VL_FAMILY_RELINK && (!b->from_map || !b->npads))
		return lace_error_set(EINVAL, "the relink family needs the build's link map and its pad "
				      "points (vmlinux.map beside the ELF)");
	if (f->kind == VL_FAMILY_RELINK && !pads) {
		drawn = xcalloc(b->npads, sizeof(*drawn));
		vl_draw_pads(b, f->seed, k, drawn);
		pads = drawn;
	}
	if (f->kind == VL_FAMILY_FUNCTION && k)
		salt = prng_mix(f->seed ^ prng_mix(k + PRNG_GOLDEN)) | 1;
	err = lay_out(b, salt, f->permute, f->kind == VL_FAMILY_RELINK ? pads : NULL, addr, sym);
	free(drawn);
	return err;
}

/* ---- the base, checked ----------------------------------------------------- */

static int self_check(struct vl_base *b)
{
	uint64_t *addr = xcalloc(b->nunits, sizeof(*addr));
	uint64_t *sym = xcalloc(b->nsyms, sizeof(*sym));
	size_t bad = 0, first = SIZE_MAX;
	int err = lay_out(b, 0, NULL, NULL, addr, sym);

	for (size_t u = 0; u < b->nunits && !err; u++)
		if (addr[u] != b->units[u].addr && b->units[u].size) {
			bad++;
			first = first == SIZE_MAX ? u : first;
		}
	for (size_t s = 0; s < b->nsyms && !err; s++)
		bad += sym[s] != b->sym_addr[s];
	if (!err && bad)
		err = lace_error_set(EINVAL, "%s does not lay this build out again: %zu pieces "
				     "or symbols elsewhere (first %s at %#" PRIx64 ", laid out at "
				     "%#" PRIx64 ")", b->from_map ? "the link map" : "its functions", bad,
				     first < b->nunits ? b->units[first].key : "a symbol",
				     first < b->nunits ? b->units[first].addr : 0,
				     first < b->nunits ? addr[first] : 0);
	free(addr);
	free(sym);
	return err;
}

/* the unit holding base address a, or -1 */
static long unit_at(const struct vl_base *b, uint64_t a)
{
	size_t lo = 0, hi = b->nunits;

	while (lo < hi) {   /* the first unit starting after a */
		size_t mid = (lo + hi) / 2;
		if (b->units[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* zero-size units share an address with the next: step back over them */
	while (lo && !b->units[lo - 1].size && b->units[lo - 1].addr == a)
		lo--;
	if (!lo)
		return -1;
	lo--;
	return a - b->units[lo].addr < b->units[lo].size ? (long)lo : -1;
}

int vl_base_build(struct vl_base *b, const struct lace_image *img, const struct linkmap *lm,
		  const struct vl_pad *pads, size_t npads)
{
	struct build bd = { .b = b };
	bool *found = xcalloc(npads, sizeof(*found));
	int err = 0;

	memset(b, 0, sizeof(*b));
	b->img = img;
	b->from_map = lm != NULL;
	if (lm)
		err = from_map(&bd, img, lm, pads, npads, found);
	else
		from_functions(&bd, img);
	for (size_t p = 0; p < npads && !err && lm; p++)
		if (!found[p])
			err = lace_error_set(EINVAL, "pad point %s: not in the link map", pads[p].where);
	if (!err && !b->nunits)
		err = lace_error_set(EINVAL, lm ? "no input sections of code in the link map" :
					     "no function symbols (stripped?): nothing to carry the executed "
					     "addresses by");
	if (!err)
		err = self_check(b);
	if (!err) {
		b->npads = npads;
		b->pads = xcalloc(npads, sizeof(*b->pads));
		for (size_t p = 0; p < npads; p++)
			b->pads[p] = (struct vl_pad){ xstrdup(pads[p].where), pads[p].unit, pads[p].max };
		b->func_unit = xcalloc(img->nfuncs, sizeof(*b->func_unit));
		for (size_t i = 0; i < img->nfuncs; i++)
			b->func_unit[i] = unit_at(b, img->funcs[i].addr);
	}
	free(found);
	if (err)
		vl_base_free(b);
	return err;
}

void vl_base_free(struct vl_base *b)
{
	for (size_t u = 0; u < b->nunits; u++)
		free(b->units[u].key);
	for (size_t s = 0; s < b->nsyms; s++)
		free(b->syms[s]);
	free(b->syms);
	free(b->sym_addr);
	vl_pads_free(b->pads, b->npads);
	free(b->units);
	free(b->steps);
	free(b->func_unit);
	memset(b, 0, sizeof(*b));
}

/* ---- using a layout -------------------------------------------------------- */

uint64_t vl_carry(const struct vl_base *b, const uint64_t *addr, uint64_t a)
{
	long u = unit_at(b, a);

	return u < 0 ? a : a - b->units[u].addr + addr[u];
}

static int piece_cmp(const void *a, const void *b)
{
	const struct vl_piece *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->extent > y->extent ? -1 : x->extent < y->extent;
}

size_t vl_pieces(const struct vl_base *b, const uint64_t *addr, struct vl_piece *out)
{
	size_t n = 0;

	for (size_t u = 0; u < b->nunits; u++)
		if (b->units[u].size)
			out[n++] = (struct vl_piece){ b->units[u].key, addr ? addr[u] : b->units[u].addr,
						      b->units[u].own, b->units[u].size };
	qsort(out, n, sizeof(*out), piece_cmp);
	return n;
}

struct order_line {
	long group;
	uint64_t addr;
	size_t unit;
};

static int order_line_cmp(const void *a, const void *b)
{
	const struct order_line *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->unit < y->unit ? -1 : x->unit > y->unit;
}

void vl_order(const struct vl_base *b, const uint64_t *addr, struct strbuf *out)
{
	struct order_line *v = xcalloc(b->nunits, sizeof(*v));

	for (size_t u = 0; u < b->nunits; u++)
		v[u] = (struct order_line){ b->units[u].group, addr ? addr[u] : b->units[u].addr, u };
	qsort(v, b->nunits, sizeof(*v), order_line_cmp);
	strbuf_addstr(out, "# lace-vlayout-order 1\n");
	for (size_t i = 0; i < b->nunits; i++) {
		const char *key = b->units[v[i].unit].key, *colon = strrchr(key, ':');

		if (b->from_map && colon)
			strbuf_addf(out, "%ld\t%.*s\t%s\t0x%" PRIx64 "\n", v[i].group, (int)(colon - key),
				    key, colon + 1, v[i].addr);
		else
			strbuf_addf(out, "%ld\t%s\t-\t0x%" PRIx64 "\n", v[i].group, key, v[i].addr);
	}
	free(v);
}

struct map_line {
	uint64_t addr;
	char type;
	const char *name;
};

static int map_line_cmp(const void *a, const void *b)
{
	const struct map_line *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* nm's letter for a symbol: T/t code, D/d other allocated data, A/a
 * absolute; W/w weak */
static char nm_type(const struct lace_image *img, const struct image_symbol *s)
{
	const struct lace_section *sec = s->section >= 0 ? &img->sections[s->section] : NULL;
	char c = !sec ? 'a' : sec->code ? 't' : 'd';

	if (s->bind == STB_WEAK)
		return 'W';
	return s->bind == STB_GLOBAL ? (char)(c - 'a' + 'A') : c;
}

struct named {
	const char *name;
	size_t idx;
};

static int named_cmp(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

void vl_system_map(const struct vl_base *b, const uint64_t *addr, const uint64_t *sym,
		   struct strbuf *out)
{
	const struct image_priv *p = image_priv(b->img);
	struct map_line *v = xcalloc(p->nsyms, sizeof(*v));
	/* the script's symbols by name: where the layout set them */
	struct named *script = xcalloc(b->nsyms, sizeof(*script));
	size_t n = 0;

	for (size_t s = 0; s < b->nsyms; s++)
		script[s] = (struct named){ b->syms[s], s };
	qsort(script, b->nsyms, sizeof(*script), named_cmp);
	for (size_t i = 0; i < p->nsyms; i++) {
		const struct image_symbol *s = &p->syms[i];
		struct named key = { s->name, 0 }, *hit;

		if (!s->name || !*s->name || s->type == STT_FILE || s->type == STT_SECTION)
			continue;
		hit = sym ? bsearch(&key, script, b->nsyms, sizeof(*script), named_cmp) : NULL;
		v[n++] = (struct map_line){ hit ? sym[hit->idx] : vl_carry(b, addr, s->addr),
					    nm_type(b->img, s), s->name };
	}
	free(script);
	qsort(v, n, sizeof(*v), map_line_cmp);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, "%016" PRIx64 " %c %s\n", v[i].addr, v[i].type, v[i].name);
	free(v);
}
