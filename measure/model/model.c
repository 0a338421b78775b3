/* The front-end model and its segment compiler; see model.h.  No libc. */
#include "measure/model/model.h"

int sim_config_check(const struct sim_config *cfg, const char **what, const char **why)
{
	int rc;

	*what = "page";
	*why = "page size must be a power of two of at least 4096";
	if (cfg->page < 4096 || (cfg->page & (cfg->page - 1)))
		return -1;
	*what = "fetch-block";
	*why = "fetch block must be a power of two between 4 and 4096";
	if (cfg->fetch_block < 4 || cfg->fetch_block > 4096 ||
	    (cfg->fetch_block & (cfg->fetch_block - 1)))
		return -1;
	*what = "l1i";
	rc = sim_cache_geometry_check(cfg->l1i_size, cfg->l1i_ways, cfg->l1i_line);
	if (rc) {
		*why = sim_cache_geometry_error(rc);
		return rc;
	}
	*what = "itlb";
	rc = sim_cache_geometry_check((uint64_t)cfg->itlb_entries * cfg->page, cfg->itlb_ways,
				      cfg->page);
	if (rc) {
		*why = sim_cache_geometry_error(rc);
		return rc;
	}
	if (cfg->stlb_entries) {
		*what = "stlb";
		rc = sim_cache_geometry_check((uint64_t)cfg->stlb_entries * cfg->page,
					      cfg->stlb_ways, cfg->page);
		if (rc) {
			*why = sim_cache_geometry_error(rc);
			return rc;
		}
	}
	if (cfg->large_page) {
		*what = "large-page";
		*why = "the large page must be a power of two above the page size";
		if (cfg->large_page <= cfg->page || (cfg->large_page & (cfg->large_page - 1)))
			return -1;
		*why = "the large-page range must be whole large pages, low below high";
		if (cfg->large_lo > cfg->large_hi || (cfg->large_lo | cfg->large_hi) & (cfg->large_page - 1))
			return -1;
		*what = "litlb";
		rc = sim_cache_geometry_check((uint64_t)cfg->litlb_entries * cfg->large_page,
					      cfg->litlb_ways, cfg->large_page);
		if (rc) {
			*why = sim_cache_geometry_error(rc);
			return rc;
		}
	} else if (cfg->large_lo != cfg->large_hi) {
		*what = "large-page";
		*why = "a large-page range without a large page size";
		return -1;
	}
	*what = "";
	*why = "";
	return 0;
}

static int has_large(const struct sim_config *cfg)
{
	return cfg->large_page && cfg->large_lo < cfg->large_hi;
}

uint64_t sim_model_ntags(const struct sim_config *cfg, uint64_t *l1i, uint64_t *itlb,
			 uint64_t *stlb, uint64_t *litlb)
{
	uint64_t nl = has_large(cfg) ? sim_cache_ntags((uint64_t)cfg->litlb_entries *
						       cfg->large_page, cfg->litlb_ways,
						       cfg->large_page) : 0;

	*l1i = sim_cache_ntags(cfg->l1i_size, cfg->l1i_ways, cfg->l1i_line);
	*itlb = sim_cache_ntags((uint64_t)cfg->itlb_entries * cfg->page, cfg->itlb_ways,
				cfg->page);
	*stlb = cfg->stlb_entries ? sim_cache_ntags((uint64_t)cfg->stlb_entries * cfg->page,
						    cfg->stlb_ways, cfg->page) : 0;
	if (litlb)
		*litlb = nl;
	return *l1i + *itlb + *stlb + (litlb ? nl : 0);
}

void sim_model_reset_counts(struct sim_model *m)
{
	struct sim_totals zero = { 0 };

	m->t = zero;
	m->fetch.entries = 0;
	m->fetch.late = 0;
	m->fetch.late_entries = 0;
}

void sim_model_init(struct sim_model *m, const struct sim_config *cfg, uint64_t *l1i_tags,
		    uint64_t *itlb_tags, uint64_t *stlb_tags, uint64_t *litlb_tags)
{
	m->cfg = *cfg;
	m->has_large = has_large(cfg) && litlb_tags;
	if (m->has_large)
		sim_cache_init(&m->litlb, (uint64_t)cfg->litlb_entries * cfg->large_page,
			       cfg->litlb_ways, cfg->large_page, litlb_tags);
	sim_cache_init(&m->l1i, cfg->l1i_size, cfg->l1i_ways, cfg->l1i_line, l1i_tags);
	sim_cache_init(&m->itlb, (uint64_t)cfg->itlb_entries * cfg->page, cfg->itlb_ways,
		       cfg->page, itlb_tags);
	m->has_stlb = cfg->stlb_entries != 0;
	if (m->has_stlb)
		sim_cache_init(&m->stlb, (uint64_t)cfg->stlb_entries * cfg->page,
			       cfg->stlb_ways, cfg->page, stlb_tags);
	sim_fetch_init(&m->fetch, cfg->fetch_block);
	sim_model_reset_counts(m);
}

/* A page lookup that missed the iTLB goes to the STLB. */
static inline void stlb_lookup(struct sim_model *m, uint64_t page, struct sim_fn_stats *fn)
{
	sim_model_stlb_lookup(m, page, fn);
}

void sim_model_insn(struct sim_model *m, uint64_t addr, uint32_t len,
		    struct sim_fn_stats *fn, int entry)
{
	uint64_t end = addr + (len ? len - 1 : 0);
	uint64_t b, first, last;
	int miss = 0;

	m->t.instructions++;
	if (fn) {
		fn->instructions++;
		fn->calls += entry != 0;
	}

	first = sim_cache_block(&m->l1i, addr);
	last = sim_cache_block(&m->l1i, end);
	for (b = first; b <= last; b++)
		miss |= sim_cache_ref_block(&m->l1i, b);
	m->t.l1i_loads += last - first + 1;
	if (miss) {
		m->t.l1i_misses++;
		if (fn)
			fn->l1i_misses++;
	}

	miss = 0;
	if (sim_model_is_large(m, addr)) {
		/* the large-page TLB; the STLB when it holds large pages */
		first = sim_cache_block(&m->litlb, addr);
		last = sim_cache_block(&m->litlb, end);
		for (b = first; b <= last; b++) {
			if (sim_cache_ref_block(&m->litlb, b)) {
				miss = 1;
				if (m->cfg.stlb_large)
					stlb_lookup(m, b | SIM_LARGE_TAG, fn);
			}
		}
	} else {
		first = sim_cache_block(&m->itlb, addr);
		last = sim_cache_block(&m->itlb, end);
		for (b = first; b <= last; b++) {
			if (sim_cache_ref_block(&m->itlb, b)) {
				miss = 1;
				stlb_lookup(m, b, fn);
			}
		}
	}
	m->t.itlb_loads += last - first + 1;
	if (miss) {
		m->t.itlb_misses++;
		if (fn)
			fn->itlb_misses++;
	}

	sim_fetch_insn(&m->fetch, addr, len);
	sim_model_fetch_sync(m);
}

/* ---- segments ---------------------------------------------------------- */

uint32_t sim_seg_refs_per_insn(uint32_t line, uint32_t maxlen)
{
	return maxlen / line + 2;
}

/* Emit every lookup of the instructions for cache c into out[]; returns
 * the count, or -1 when cap is too small.  With a model m, only the
 * instructions whose page size is c's: large (m's large-page range) or
 * not; *lookups is then added to, not set. */
static int64_t refs_emit(const struct sim_cache *c, const struct sim_insn *insns, uint32_t n,
			 struct sim_ref *out, uint32_t cap, uint32_t *lookups,
			 const struct sim_model *m, int large)
{
	uint32_t k = 0;

	if (!m)
		*lookups = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (m && sim_model_is_large(m, insns[i].addr) != large)
			continue;
		uint64_t first = sim_cache_block(c, insns[i].addr);
		uint64_t last = sim_cache_block(c, insns[i].addr +
						    (insns[i].len ? insns[i].len - 1 : 0));
		for (uint64_t b = first; b <= last; b++) {
			if (k >= cap)
				return -1;
			out[k].block = b;
			out[k].insn = i;
			out[k].fn = insns[i].fn;
			out[k].first = 0;
			out[k].drop = 0;
			k++;
		}
		*lookups += (uint32_t)(last - first + 1);
	}
	return k;
}

/* Drop the lookups that are certain MRU hits, then compact; see model.h. */
static uint32_t refs_compact(const struct sim_cache *c, struct sim_ref *r, uint32_t n)
{
	uint32_t k = 0;
	uint32_t prev_insn = ~(uint32_t)0;

	for (uint32_t j = 0; j < n; j++) {
		uint64_t set = sim_cache_set_of(c, r[j].block);

		for (uint32_t i = j; i-- > 0;) {
			if (r[i].block == r[j].block) {
				r[j].drop = 1;
				break;
			}
			if (sim_cache_set_of(c, r[i].block) == set)
				break;
		}
	}
	for (uint32_t j = 0; j < n; j++) {
		if (r[j].drop)
			continue;
		r[k] = r[j];
		r[k].first = r[j].insn != prev_insn;
		prev_insn = r[j].insn;
		r[k].insn = sim_cache_set_of(c, r[j].block);
		r[k].way = 0;
		k++;
	}
	return k;
}

void sim_seg_keep(struct sim_seg *out, const struct sim_seg *seg, struct sim_ref *refs)
{
	uint32_t np = seg->npages + seg->nlpages;

	*out = *seg;
	for (uint32_t i = 0; i < seg->nlines; i++)
		refs[i] = seg->lines[i];
	for (uint32_t i = 0; i < np; i++)
		refs[seg->nlines + i] = seg->pages[i];
	out->lines = refs;
	out->pages = refs + seg->nlines;
	out->lpages = out->pages + seg->npages;
}

int sim_seg_build(const struct sim_model *m, const struct sim_insn *insns, uint32_t n,
		  struct sim_seg *seg, struct sim_ref *lines, uint32_t line_cap,
		  struct sim_ref *pages, uint32_t page_cap, struct sim_seg_fn *fns,
		  uint32_t nfns, uint64_t *scratch_addr, uint32_t *scratch_len)
{
	int64_t nl, np, nlp = 0;

	seg->itlb_loads = 0;
	nl = refs_emit(&m->l1i, insns, n, lines, line_cap, &seg->l1i_loads, 0, 0);
	np = refs_emit(&m->itlb, insns, n, pages, page_cap, &seg->itlb_loads, m, 0);
	if (nl < 0 || np < 0)
		return -1;
	if (m->has_large) {
		nlp = refs_emit(&m->litlb, insns, n, pages + np, page_cap - (uint32_t)np,
				&seg->itlb_loads, m, 1);
		if (nlp < 0)
			return -1;
	}
	seg->execs = 0;
	seg->lazy = 0;
	seg->ninsn = n;
	seg->lines = lines;
	seg->nlines = refs_compact(&m->l1i, lines, (uint32_t)nl);
	seg->pages = pages;
	seg->npages = refs_compact(&m->itlb, pages, (uint32_t)np);
	/* the large ones right behind the small ones */
	seg->nlpages = nlp ? refs_compact(&m->litlb, pages + np, (uint32_t)nlp) : 0;
	for (uint32_t i = 0; i < seg->nlpages; i++)
		pages[seg->npages + i] = pages[np + i];
	seg->lpages = pages + seg->npages;
	seg->fns = fns;
	seg->nfns = nfns;
	for (uint32_t f = 0; f < nfns; f++) {
		fns[f].instructions = 0;
		fns[f].calls = 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (insns[i].fn < nfns) {
			fns[insns[i].fn].instructions++;
			fns[insns[i].fn].calls += insns[i].entry != 0;
		}
		scratch_addr[i] = insns[i].addr;
		scratch_len[i] = insns[i].len;
	}
	sim_fetch_seg_build(&seg->fetch, m->cfg.fetch_block, scratch_addr, scratch_len, n);
	return 0;
}

void sim_seg_settle(struct sim_seg *seg)
{
	for (uint32_t i = 0; i < seg->nfns && seg->execs; i++) {
		struct sim_fn_stats *s = seg->fns[i].stats;
		if (s) {
			s->instructions += seg->execs * seg->fns[i].instructions;
			s->calls += seg->execs * seg->fns[i].calls;
		}
	}
	seg->execs = 0;
}

void sim_seg_refs_finish(struct sim_model *m, const struct sim_seg *seg,
			 struct sim_ref *lines, uint32_t nlines,
			 struct sim_ref *pages, uint32_t npages, uint32_t from)
{
	struct sim_ref *r;
	uint32_t i;
	int missed = 0;   /* the lookups before from all hit */

	for (i = from; i < nlines; i++) {
		r = &lines[i];
		if (r->first)
			missed = 0;
		if (sim_cache_ref_way(&m->l1i, r->insn, r->block, &r->way) && !missed) {
			struct sim_fn_stats *s = sim_seg_fn(seg, r->fn);
			missed = 1;
			m->t.l1i_misses++;
			if (s)
				s->l1i_misses++;
		}
	}

	missed = 0;
	for (i = from > nlines ? from - nlines : 0; i < npages; i++) {
		r = &pages[i];
		if (r->first)
			missed = 0;
		if (sim_cache_ref_way(&m->itlb, r->insn, r->block, &r->way)) {
			struct sim_fn_stats *s = sim_seg_fn(seg, r->fn);
			sim_model_stlb_lookup(m, r->block, s);
			if (!missed) {
				missed = 1;
				m->t.itlb_misses++;
				if (s)
					s->itlb_misses++;
			}
		}
	}
}

void sim_seg_lpages_run(struct sim_model *m, const struct sim_seg *seg,
			struct sim_ref *lpages, uint32_t nlpages)
{
	int missed = 0;

	for (uint32_t i = 0; i < nlpages; i++) {
		struct sim_ref *r = &lpages[i];

		if (r->first)
			missed = 0;
		if (sim_cache_ref_way(&m->litlb, r->insn, r->block, &r->way)) {
			struct sim_fn_stats *s = sim_seg_fn(seg, r->fn);

			if (m->cfg.stlb_large)
				sim_model_stlb_lookup(m, r->block | SIM_LARGE_TAG, s);
			if (!missed) {
				missed = 1;
				m->t.itlb_misses++;
				if (s)
					s->itlb_misses++;
			}
		}
	}
}

void sim_seg_run_caches(struct sim_model *m, struct sim_seg *seg)
{
	sim_seg_run_caches_inline(m, seg);
}

void sim_seg_run(struct sim_model *m, struct sim_seg *seg)
{
	uint32_t i;

	m->t.instructions += seg->ninsn;
	m->t.l1i_loads += seg->l1i_loads;
	m->t.itlb_loads += seg->itlb_loads;
	if (seg->lazy) {
		seg->execs++;
	} else {
		for (i = 0; i < seg->nfns; i++) {
			struct sim_fn_stats *s = seg->fns[i].stats;
			if (s) {
				s->instructions += seg->fns[i].instructions;
				s->calls += seg->fns[i].calls;
			}
		}
	}
	sim_seg_run_caches_inline(m, seg);
	sim_fetch_seg_apply(&m->fetch, &seg->fetch);
	sim_model_fetch_sync(m);
}

/* ---- compact blocks ------------------------------------------------------ */

int sim_blk_build(struct sim_blk *b, const struct sim_model *m, const struct sim_seg *seg)
{
	uint64_t a = seg->fetch.first_state >> 1;
	uint64_t fb = (uint64_t)1 << m->fetch.block_bits;
	int64_t delta = (int64_t)(seg->fetch.last_state - seg->fetch.first_state);
	const struct sim_ref *page = seg->npages ? seg->pages : seg->lpages;

	if (seg->nlines < 1 || seg->nlines > SIM_BLK_LINES || seg->npages + seg->nlpages != 1 ||
	    delta < INT32_MIN || delta > INT32_MAX || page->fn != seg->lines[0].fn)
		return -1;
	for (uint32_t i = 1; i < seg->nlines; i++)
		if (seg->lines[i].fn != seg->lines[0].fn)
			return -1;
	b->first_state = seg->fetch.first_state;
	b->last_delta = (int32_t)delta;
	b->host32 = 0;
	b->flags = (uint8_t)((a & (fb - 1)) == 0 ? SIM_BLK_ALIGNED : 0);
	b->flags |= (a & (fb - 1)) >= fb - fb / 4 ? SIM_BLK_LATE : 0;
	b->flags |= seg->nlpages ? SIM_BLK_LARGE : 0;
	b->nl = (uint8_t)seg->nlines;
	b->host8[0] = b->host8[1] = 0;
	for (uint32_t i = 0; i < SIM_BLK_REFS; i++) {
		b->way[i] = 0;
		b->ref[i] = 0;
	}
	for (uint32_t i = 0; i < seg->nlines; i++) {
		b->ref[i] = seg->lines[i].block;
		b->way[i] = seg->lines[i].way;
		b->flags |= seg->lines[i].first ? SIM_BLK_FIRST << i : 0;
	}
	b->ref[seg->nlines] = page->block;
	b->way[seg->nlines] = page->way;
	return 0;
}

/* sim_seg_refs_finish() and sim_seg_lpages_run() for a compact block: its
 * one page lookup starts its instruction (the only one kept). */
void sim_blk_finish(struct sim_model *m, struct sim_blk *b, struct sim_fn_stats *fn,
		    uint32_t from)
{
	uint32_t nl = b->nl;
	int missed = 0;   /* the lookups before from all hit */
	uint64_t page = b->ref[nl];

	for (uint32_t i = from; i < nl; i++) {
		struct sim_cache *c = &m->l1i;

		if (b->flags & (SIM_BLK_FIRST << i))
			missed = 0;
		if (sim_cache_ref_way(c, sim_cache_set_of(c, b->ref[i]), b->ref[i], &b->way[i]) &&
		    !missed) {
			missed = 1;
			m->t.l1i_misses++;
			if (fn)
				fn->l1i_misses++;
		}
	}
	if (b->flags & SIM_BLK_LARGE) {
		struct sim_cache *c = &m->litlb;

		if (!sim_cache_ref_way(c, sim_cache_set_of(c, page), page, &b->way[nl]))
			return;
		if (m->cfg.stlb_large)
			sim_model_stlb_lookup(m, page | SIM_LARGE_TAG, fn);
	} else {
		struct sim_cache *c = &m->itlb;

		if (!sim_cache_ref_way(c, sim_cache_set_of(c, page), page, &b->way[nl]))
			return;
		sim_model_stlb_lookup(m, page, fn);
	}
	m->t.itlb_misses++;
	if (fn)
		fn->itlb_misses++;
}
