/* lace study --kernel's reports: report.md, report.html (the Markdown as
 * HTML plus SVG figures) and results.json, from what kstudy.c recorded.
 * Every figure is read from results.json; a step that could not run says
 * "not measured" and why, never a number. */
#include "pipeline/kstudy/kstudy.h"
#include "pipeline/kstudy/kstudy_r4.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/stats/stats.h"
#include "pipeline/study.h"
#include "pipeline/svgplot.h"
#include "util/array.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/xalloc.h"

static const char *js(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k)) ?: "";
}

/* "1,234" or "n/a" */
static void addnum(struct strbuf *sb, double v, int decimals)
{
	if (isnan(v))
		strbuf_addstr(sb, "n/a");
	else
		strbuf_addf(sb, "%.*f", decimals, v);
}

static const json_t *config(const json_t *r1, const char *name)
{
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(r1, "configs"), i, c)
		if (!strcmp(js(c, "name"), name))
			return c;
	return NULL;
}

/* the point of a config at `pages` */
static const json_t *point(const json_t *c, long pages)
{
	size_t i;
	json_t *p;

	json_array_foreach(json_object_get(c, "points"), i, p)
		if (json_integer_value(json_object_get(p, "pages")) == pages)
			return p;
	return NULL;
}

/* the first hash_fault site of kernel k inside hash_page_mm (from
 * lace layout's model, kstudy_code.c), or NULL */
static const json_t *mm_site(const json_t *res, const char *k)
{
	const json_t *code = json_object_get(json_object_get(json_object_get(res, "layout"), k),
					     "hash_fault_code"), *c;
	size_t i;

	json_array_foreach(code, i, c)
		if (!strcmp(js(c, "function"), "hash_page_mm"))
			return c;
	return NULL;
}

/* One kernel's site in words, generated from the code: what the
 * instructions at the site are and where the slow path sits. */
static void site_sentence(struct strbuf *sb, const char *k, const json_t *c)
{
	const json_t *sp = json_object_get(c, "slow_path"), *w;
	long long site = (long long)lace_json_get_num(c, "site_offset");
	size_t i;

	strbuf_addf(sb, "- `%s`: `%s`+%lld:", k, js(c, "function"), site);
	json_array_foreach(json_object_get(c, "words"), i, w)
		strbuf_addf(sb, " %s`%s`", (long long)lace_json_get_num(w, "offset") == site ? "**>**" : "",
			    js(w, "kind"));
	if (json_is_true(json_object_get(sp, "inline")))
		strbuf_addf(sb, ". The site's `nop` is followed by a `b` over the %lld-instruction slow "
				"path inlined at +%lld: with the tracepoint off a call executes both (%lld "
				"instructions).\n", (long long)lace_json_get_num(sp, "instructions"),
			    (long long)lace_json_get_num(sp, "offset"), (long long)lace_json_get_num(c, "disabled_instructions"));
	else
		strbuf_addf(sb, ". The site's `nop` falls through to the fast path; the slow path (%lld "
				"instructions up to its branch back) sits at `%s`+%lld in %s: with the "
				"tracepoint off a call executes %lld instruction of the site.\n",
			    (long long)lace_json_get_num(sp, "instructions"), js(sp, "function"),
			    (long long)lace_json_get_num(sp, "offset"), js(sp, "region"),
			    (long long)lace_json_get_num(c, "disabled_instructions"));
}

static void section_layout(struct strbuf *sb, const json_t *res)
{
	const char *k;
	json_t *v, *site;
	size_t i;

	strbuf_addstr(sb, "**Where the slow path sits** (`lace layout --jumps` of each vmlinux: the "
			  "`hash_fault` tracepoint's jump sites, the function holding each, its target "
			  "and the distance in bytes):\n\n| kernel | site in | target | target region | "
			  "distance |\n|---|---|---|---|---:|\n");
	json_object_foreach(json_object_get(res, "layout"), k, v) {
		if (json_object_get(v, "not_measured")) {
			strbuf_addf(sb, "| %s | not measured: %s | | | |\n", k, js(v, "not_measured"));
			continue;
		}
		if (!json_array_size(json_object_get(v, "hash_fault_sites")))
			strbuf_addf(sb, "| %s | (no site: no tracepoint call) | | | |\n", k);
		json_array_foreach(json_object_get(v, "hash_fault_sites"), i, site)
			strbuf_addf(sb, "| %s | `%s` (%s) | `%s` | %s | %lld |\n", k, js(site, "function"),
				    js(site, "region"), js(site, "target_function"),
				    js(site, "target_region"),
				    (long long)json_integer_value(json_object_get(site, "distance")));
	}
	strbuf_addch(sb, '\n');
	bool any = false;

	json_object_foreach(json_object_get(res, "layout"), k, v) {
		json_t *c;

		if (!json_object_get(v, "hash_fault_code"))
			continue;
		if (!any)
			strbuf_addstr(sb, "**The code at the site** (read from each vmlinux by lace's "
					  "layout model and branch decoder; the instructions from two "
					  "before the site, marked **>**, to three after):\n\n");
		any = true;
		if (!json_array_size(json_object_get(v, "hash_fault_code")))
			strbuf_addf(sb, "- `%s`: no site (no tracepoint call).\n", k);
		json_array_foreach(json_object_get(v, "hash_fault_code"), i, c)
			site_sentence(sb, k, c);
	}
	if (any)
		strbuf_addch(sb, '\n');
}

/* The hash-fault path's own front-end cost in the three builds that
 * differ only in the tracepoint's code: the model's L1i and iTLB misses
 * inside hash_page_mm's calls (callees included), at 512 pages. */
static void section_r1_misses(struct strbuf *sb, const json_t *r1)
{
	static const char *const names[] = { "absent", "disabled", "disabled, slow path cold" };
	struct strbuf rates = STRBUF_INIT;   /* derived: in prose, not the table (t_study_doc) */
	bool any = false;

	for (size_t i = 0; i < 3; i++) {
		const json_t *c = config(r1, names[i]), *p = point(c, 512);
		double calls = lace_json_get_num(p, "hash_faults"), l1 = lace_json_get_num(p, "hash_page_mm_l1i_misses");

		if (!p || isnan(l1))
			continue;
		if (!any)
			strbuf_addstr(sb, "**The hash-fault path's L1i and iTLB misses** (the model's "
					  "misses inside `hash_page_mm`'s calls, callees included, "
					  "512 pages; each kernel is its own boot, so the cache holds what "
					  "that execution ran before each fault):\n\n| kernel | calls | "
					  "path length | L1i misses | iTLB misses |\n"
					  "|---|---:|---:|---:|---:|\n");
		any = true;
		strbuf_addf(sb, "| `%s` | %.0f | ", js(c, "kernel"), calls);
		addnum(sb, lace_json_get_num(p, "hash_page_mm_path_length"), 0);
		strbuf_addf(sb, " | %.0f | ", l1);
		addnum(sb, lace_json_get_num(p, "hash_page_mm_itlb_misses"), 0);
		strbuf_addstr(sb, " |\n");
		if (calls > 0)
			strbuf_addf(&rates, "%s`%s` %.1f", rates.len ? ", " : "", js(c, "kernel"),
				    1000.0 * l1 / calls);
	}
	if (any)
		strbuf_addf(sb, "\nL1i misses per 1,000 calls: %s.\n\n", rates.buf);
	strbuf_release(&rates);
}

static void section_r1(struct strbuf *sb, const json_t *res)
{
	const json_t *r1 = json_object_get(res, "r1_tracepoint"), *c, *p;
	size_t i, j;

	strbuf_addstr(sb, "## 1. The disabled `hash_fault` tracepoint in `hash_page_mm`\n\n"
			  "Each kernel boots under QEMU (ppc64le pseries, POWER8: the hash MMU, 64 KiB "
			  "pages) and runs `faultbench --real --pages N` (one store per fresh page, so one "
			  "hash fault each). The hash faults are the calls of `hash_page_mm` (the plugin's "
			  "`--path-length`, so they are counted whether or not the tracepoint is on); "
			  "kernel instructions per hash fault is the slope of kernel instructions over "
			  "hash faults across the sizes, so the program's start-up and exit cancel out.\n\n"
			  "| kernel | tracepoint | kernel instructions per hash fault (slope) | "
			  "`hash_page_mm` instructions per call (512 pages) | hash faults at each size |\n"
			  "|---|---|---:|---:|---|\n");
	json_array_foreach(json_object_get(r1, "configs"), i, c) {
		strbuf_addf(sb, "| `%s` | %s | ", js(c, "kernel"), js(c, "name"));
		if (json_object_get(c, "not_measured")) {
			strbuf_addf(sb, "not measured: %s | | |\n", js(c, "not_measured"));
			continue;
		}
		addnum(sb, lace_json_get_num(c, "instructions_per_hash_fault"), 1);
		strbuf_addstr(sb, " | ");
		addnum(sb, lace_json_get_num(point(c, 512), "hash_page_mm_per_call"), 1);
		strbuf_addstr(sb, " | ");
		json_array_foreach(json_object_get(c, "points"), j, p) {
			strbuf_addf(sb, "%s%lld: ", j ? ", " : "",
				    (long long)json_integer_value(json_object_get(p, "pages")));
			addnum(sb, lace_json_get_num(p, "hash_faults"), 0);
		}
		strbuf_addstr(sb, " |\n");
	}
#define PER_CALL(name) lace_json_get_num(point(config(r1, name), 512), "hash_page_mm_per_call")
	double absent = PER_CALL("absent"), disabled = PER_CALL("disabled");
	double enabled = PER_CALL("enabled"), cold = PER_CALL("disabled, slow path cold");
	double sd = PER_CALL("stock disabled"), se = PER_CALL("stock enabled");
#undef PER_CALL

	strbuf_addstr(sb, "\n**What the numbers show.** The exact measure is `hash_page_mm`'s own path "
			  "per call (its instructions from entry to return, callees included). ");
	const json_t *sb_base = mm_site(res, "ppc64le-baseline");
	const json_t *sb_cold = mm_site(res, "ppc64le-cold-slowpaths");

	if (!isnan(absent) && !isnan(disabled)) {
		strbuf_addf(sb, "The disabled tracepoint adds %+.1f instructions per call against the "
				"kernel without the call (%.1f vs %.1f)", disabled - absent, disabled, absent);
		if (sb_base)
			strbuf_addf(sb, ", of which %lld are the site itself (the code below)",
				    (long long)lace_json_get_num(sb_base, "disabled_instructions"));
		strbuf_addstr(sb, ". ");
	}
	if (!isnan(cold) && !isnan(disabled)) {
		strbuf_addf(sb, "With the slow path forced out to cold text: %.1f (%+.1f against the "
				"default placement)", cold, cold - disabled);
		if (sb_base && sb_cold &&
		    lace_json_get_num(json_object_get(sb_base, "before_site"), "branches") == 0 &&
		    lace_json_get_num(json_object_get(sb_cold, "before_site"), "branches") == 0)
			strbuf_addf(sb, "; its site executes %lld instruction instead of %lld, and "
					"%lld instructions run before it in `hash_page_mm` instead of "
					"%lld, %lld of them register moves (`mr`) instead of %lld: the "
					"moves the out-of-line call's operands add (%+lld in all, against "
					"%+.1f measured)",
				    (long long)lace_json_get_num(sb_cold, "disabled_instructions"),
				    (long long)lace_json_get_num(sb_base, "disabled_instructions"),
				    (long long)lace_json_get_num(json_object_get(sb_cold, "before_site"), "instructions"),
				    (long long)lace_json_get_num(json_object_get(sb_base, "before_site"), "instructions"),
				    (long long)lace_json_get_num(json_object_get(sb_cold, "before_site"), "mr"),
				    (long long)lace_json_get_num(json_object_get(sb_base, "before_site"), "mr"),
				    (long long)(lace_json_get_num(json_object_get(sb_cold, "before_site"), "instructions") -
						lace_json_get_num(json_object_get(sb_base, "before_site"), "instructions") +
						lace_json_get_num(sb_cold, "disabled_instructions") -
						lace_json_get_num(sb_base, "disabled_instructions")),
				    cold - disabled);
		strbuf_addstr(sb, ". ");
	}
	if (!isnan(enabled) && !isnan(disabled))
		strbuf_addf(sb, "Enabled (through ftrace's ring buffer: lace's kernels have no perf "
				"events) it costs %+.1f per call. ", enabled - disabled);
	if (!isnan(sd) && !isnan(se))
		strbuf_addf(sb, "On Debian's stock kernel (no rebuild) enabling it through perf costs "
				"%+.1f per call (%.1f -> %.1f). ", se - sd, sd, se);
	strbuf_addstr(sb, "The per-hash-fault slope is the whole window's kernel work: the page "
			  "fault, zeroing the 64 KiB page, and kernel threads and timer ticks whose share "
			  "follows the virtual time, so differences of a few instructions per fault "
			  "between kernels are within what that background moves. The per-call path "
			  "lengths repeat exactly from boot to boot (one vCPU, `-icount`); a window's "
			  "kernel total need not (two studies on the same kernels differed by about "
			  "1,550 kernel instructions at one size: a background event landing in or out "
			  "of the window), which is why the per-call path, not the slope, measures the "
			  "disabled tracepoint. None of it is a time.\n\n");
	section_r1_misses(sb, r1);
	strbuf_addstr(sb, "**What the emulation cannot show.** Time: a nop costs a fetch slot, a taken "
			  "branch a redirect, and neither is timed here. The hardware's hash-table walk "
			  "and the hypervisor's part of an insert (`H_ENTER` runs in QEMU, not as guest "
			  "instructions), branch prediction and prefetch. The L1i model counts lines, "
			  "not the effect of a slow path sitting in the hot lines on a real core.\n\n");
	section_layout(sb, res);
}

static void section_r2_64k(struct strbuf *sb, const json_t *y, const json_t *o);
static void section_r2_4k(struct strbuf *sb, const json_t *w);

static void section_r2(struct strbuf *sb, const json_t *res)
{
	const json_t *r2 = json_object_get(res, "r2_old_ptes");
	const json_t *y = json_object_get(r2, "young"), *o = json_object_get(r2, "old");

	strbuf_addstr(sb, "## 2. Old vs young PTEs on the hash MMU\n\n");
	section_r2_64k(sb, y, o);
	section_r2_4k(sb, json_object_get(r2, "workloads_4k"));
	strbuf_addstr(sb, "**x86-64.** There the hardware sets the accessed bit itself during the page "
			  "walk (an assist a few hundred cycles long on an old PTE); QEMU's TCG sets it "
			  "in its own walker at no modelled cost, so the emulator cannot see what the seed "
			  "measured (36% more page-walk cycles, unixbench -3.5..-6%). On a machine with a "
			  "PMU, boot each kernel and save a batch of the page-walk events the seed used, "
			  "then compare the batches:\n\n"
			  "    # on the young-PTE kernel, then again after booting the old-PTE one\n"
			  "    lace stat -r 30 -e dtlb_load_misses.walk_duration,itlb_misses.walk_duration,"
			  "dTLB-load-misses,iTLB-load-misses \\\n"
			  "        --results young.jsonl -- ./Run -c 1 shell8\n"
			  "    lace compare -A young.jsonl -B old.jsonl\n\n");
}

/* the 64 KiB-page pair: faultaround is off there, so mkold cannot act */
static void section_r2_64k(struct strbuf *sb, const json_t *y, const json_t *o)
{
	if (json_object_get(y, "not_measured") || json_object_get(o, "not_measured")) {
		strbuf_addf(sb, "64 KiB pages: not measured: %s\n\n",
			    json_object_get(y, "not_measured") ? js(y, "not_measured")
							       : js(o, "not_measured"));
		return;
	}
	double fy = lace_json_get_num(y, "hash_faults"), fo = lace_json_get_num(o, "hash_faults");
	double iy = lace_json_get_num(y, "instructions_k"), io = lace_json_get_num(o, "instructions_k");

	strbuf_addf(sb, "**64 KiB pages, a no-op by construction.** `faultbench --real --pages %lld` "
			"(anonymous memory) on `ppc64le-baseline` (young) and `ppc64le-old-ptes`: "
			"%.0f vs %.0f hash faults, %.0f vs %.0f kernel instructions (%+.0f). The patch "
			"acts only where faultaround maps the neighbours of a *file-backed* read fault "
			"(`do_fault_around()` -> `filemap_map_pages()`), and `should_fault_around()` is "
			"false when `fault_around_bytes >> PAGE_SHIFT` is 1: 64 KiB is one page here. "
			"Anonymous memory never goes through faultaround at all.%s\n\n",
		    (long long)json_integer_value(json_object_get(y, "pages")), fy, fo, iy, io, io - iy,
		    fy == fo && io != iy ? " The instruction difference is the two builds' own: a "
					   "different binary runs a slightly different execution "
					   "(timer interrupts land elsewhere), not the patch's code, "
					   "which this workload never reaches." : "");
}

static double r2_path(const json_t *pt, const char *fn, const char *k)
{
	return lace_json_get_num(json_object_get(json_object_get(pt, "paths"), fn), k);
}

/* the 4 KiB-page pairs: faultaround runs, so the variant acts */
static void section_r2_4k(struct strbuf *sb, const json_t *w)
{
	static const char *const keys[] = { "file", "shell" };
	static const char *const labels[] = { "file-backed reads", "exec-heavy shell loop" };
	bool measured = false;
	struct strbuf why = STRBUF_INIT;   /* the per-workload sentences, from the numbers */

	if (!w) {
		strbuf_addstr(sb, "4 KiB pages: not measured (results without the 4 KiB workloads)\n\n");
		return;
	}
	strbuf_addstr(sb, "**4 KiB pages, where faultaround runs** (16 pages a fault): "
			  "`ppc64le-4k-baseline` (young) and `ppc64le-4k-old-ptes` (faultaround maps its "
			  "pages old).\n\n| workload | PTEs | `filemap_map_pages` calls | pages mapped "
			  "(`do_set_pte` calls) | hash faults | kernel instructions | "
			  "`hash_page_mm` per call | `__hash_page_4K` per call |\n"
			  "|---|---|---:|---:|---:|---:|---:|---:|\n");
	for (size_t k = 0; k < 2; k++) {
		const json_t *wk = json_object_get(w, keys[k]);
		const json_t *pt[2] = { json_object_get(wk, "young"), json_object_get(wk, "old") };
		for (size_t i = 0; i < 2; i++) {
			strbuf_addf(sb, "| %s | %s | ", labels[k], i ? "old" : "young");
			if (!pt[i] || json_object_get(pt[i], "not_measured")) {
				strbuf_addf(sb, "not measured: %s | | | | | |\n",
					    pt[i] ? js(pt[i], "not_measured") : "no result");
				continue;
			}
			measured = true;
			double faults = lace_json_get_num(pt[i], "hash_faults");
			addnum(sb, r2_path(pt[i], "filemap_map_pages", "calls"), 0);
			strbuf_addstr(sb, " | ");
			addnum(sb, r2_path(pt[i], "do_set_pte", "calls"), 0);
			strbuf_addstr(sb, " | ");
			addnum(sb, faults, 0);
			strbuf_addstr(sb, " | ");
			addnum(sb, lace_json_get_num(pt[i], "instructions_k"), 0);
			strbuf_addstr(sb, " | ");
			addnum(sb, r2_path(pt[i], "hash_page_mm", "per_call"), 1);
			strbuf_addstr(sb, " | ");
			addnum(sb, r2_path(pt[i], "__hash_page_4K", "per_call"), 1);
			strbuf_addstr(sb, " |\n");
		}
		if (pt[0] && pt[1] && !json_object_get(pt[0], "not_measured") &&
		    !json_object_get(pt[1], "not_measured")) {
			double df = lace_json_get_num(pt[1], "hash_faults") - lace_json_get_num(pt[0], "hash_faults");
			double di = lace_json_get_num(pt[1], "instructions_k") - lace_json_get_num(pt[0], "instructions_k");
			double iy = lace_json_get_num(pt[0], "instructions_k");
			double fy = lace_json_get_num(pt[0], "hash_faults"), fo = lace_json_get_num(pt[1], "hash_faults");
			double pages = lace_json_get_num(pt[0], "pages");
			/* derived numbers in the prose, not the table: every number of
			 * a table is one of results.json's (t_study_doc) */
			strbuf_addf(&why, " %s: %.0f -> %.0f hash faults (%+.0f", labels[k], fy, fo, df);
			if (pages > 0)
				strbuf_addf(&why, "; %.1f -> %.1f per 1,000 pages", 1000 * fy / pages,
					    1000 * fo / pages);
			strbuf_addf(&why, ") and %+.0f kernel instructions (%+.1f%%) with old PTEs.", di,
				    iy > 0 ? 100 * di / iy : NAN);
		}
	}
	strbuf_addstr(sb, "\n");
	if (!measured)
		return;
	strbuf_addf(sb, "**What the numbers show.** `filemap_map_pages` runs and maps pages in both "
			"kernels, so the variant is exercised.%s Why, from the code: `filemap_map_pages()` "
			"calls `update_mmu_cache()` for each page it maps, and on the hash MMU "
			"`__update_mmu_cache()` (arch/powerpc/mm/book3s64/hash_utils.c) preloads an HPTE "
			"only for a young PTE (\"We only want HPTEs for linux PTEs that have "
			"_PAGE_ACCESSED set\"). A page faultaround maps young is in the hash table before "
			"its first touch; one it maps old is not, so its first touch takes a hash fault, "
			"which sets the accessed bit in software (`__hash_page_4K()` in "
			"arch/powerpc/mm/book3s64/hash_4k.c writes `new_pte = old_pte | H_PAGE_BUSY | "
			"_PAGE_ACCESSED`). Old PTEs therefore trade a preload for every prefaulted page "
			"against a hash fault for every prefaulted page that is touched: a loss where most "
			"are touched, a gain where most are not, and the kernel instruction counts above "
			"say which each workload is. Emulated instructions, not time: the hash table's "
			"own cache and TLB misses are not modelled.\n\n",
		    why.buf);
	strbuf_release(&why);
}

static void section_r3(struct strbuf *sb, const json_t *res)
{
	const json_t *r3 = json_object_get(res, "r3_insert_path");
	static const char *const keys[] = { "64k", "64k_stock", "4k" };
	static const char *const labels[] = { "64 KiB pages, lace's build", "64 KiB pages, Debian's kernel",
					      "4 KiB pages, lace's build" };

	strbuf_addstr(sb, "## 3. The hash insert path per call\n\n| kernel | function | calls | "
			  "instructions per call (callees included) |\n|---|---|---:|---:|\n");
	for (size_t i = 0; i < 3; i++) {
		const json_t *p = json_object_get(r3, keys[i]);

		if (json_object_get(p, "not_measured")) {
			strbuf_addf(sb, "| %s | | | not measured: %s |\n", labels[i], js(p, "not_measured"));
			continue;
		}
		strbuf_addf(sb, "| %s | `%s` | ", labels[i], js(p, "insert_fn"));
		addnum(sb, lace_json_get_num(p, "insert_calls"), 0);
		strbuf_addstr(sb, " | ");
		addnum(sb, lace_json_get_num(p, "insert_per_call"), 1);
		strbuf_addstr(sb, " |\n");
	}
	strbuf_addf(sb, "\n**What the numbers show.** Path length per call from entry to return, callees "
			"included, next to the %lld instructions measured when the 4K path became C. "
			"The two need not agree: here the insert goes through the pseries LPAR "
			"`hpte_insert` (a hypervisor call whose other side QEMU runs, not counted), the "
			"kernel is a 6.1 build of lace's config, and calls that find the HPTE already "
			"valid are short.\n\n**What the emulation cannot show.** Cycles per call, the "
			"hypervisor's cost, cache misses of the hash table itself (data, not modelled).\n\n",
		    (long long)json_integer_value(json_object_get(r3, "reference_instructions")));
}

static void section_phases(struct strbuf *sb, const json_t *res)
{
	const char *k;
	json_t *v;
	size_t i;

	strbuf_addstr(sb, "## How long each phase took\n\n| phase | seconds |\n|---|---:|\n");
	json_object_foreach(json_object_get(res, "phases"), k, v)
		strbuf_addf(sb, "| %s | %.1f |\n", k, json_number_value(v));
	json_array_foreach(json_object_get(res, "builds"), i, v)
		strbuf_addf(sb, "%s- %s: %.1f s%s%s%s\n", i ? "" : "\n", js(v, "what"), lace_json_get_num(v, "seconds"),
			    *js(v, "summary") ? " (`" : "", js(v, "summary"), *js(v, "summary") ? "`)" : "");
	strbuf_addf(sb, "\nEvery command this study ran, with its whole output: `results.json` "
			"(`commands`, %zu of them).\n", json_array_size(json_object_get(res, "commands")));
}

void kstudy_problems(const json_t *res, struct strvec *lines)
{
	const char *arch, *part;
	json_t *a, *g, *b;
	size_t i;

	json_array_foreach(json_object_get(res, "builds"), i, b)
		if (json_object_get(b, "not_measured"))
			strvec_pushf(lines, "build %s failed: %s", js(b, "what"), js(b, "not_measured"));
	json_object_foreach((json_t *)json_object_get(res, "guests"), arch, a)
		json_object_foreach(a, part, g)
			if (json_object_get(g, "not_measured"))
				strvec_pushf(lines, "guest fetch %s %s failed: %s", arch, part,
					     js(g, "not_measured"));
}

/* The report's head when the study is not whole, or not made with the
 * pinned versions: its first line names the first cause, so neither can
 * be missed or its numbers taken for the committed study's. */
static void section_head(struct strbuf *sb, const json_t *res)
{
	struct strvec p = STRVEC_INIT;
	const json_t *np = json_object_get(res, "not_pinned"), *v;
	size_t i;

	kstudy_problems(res, &p);
	if (p.nr) {
		strbuf_addstr(sb, "**Incomplete: ");
		strbuf_add_md(sb, p.v[0]);
		strbuf_addstr(sb, "**");
		if (p.nr > 1)
			strbuf_addf(sb, " (and %zu more:)\n\n", p.nr - 1);
		else
			strbuf_addstr(sb, "\n\n");
		for (i = 1; i < p.nr; i++) {
			strbuf_addstr(sb, "- ");
			strbuf_add_md(sb, p.v[i]);
			strbuf_addch(sb, '\n');
		}
		strbuf_addstr(sb, p.nr > 1 ? "\n" : "");
		strbuf_addstr(sb, "Every step that needed it says \"not measured\" below; the others were "
				  "measured. Running the study again retries it: what was fetched and verified "
				  "is kept.\n\n");
	}
	if (json_array_size(np)) {
		strbuf_addstr(sb, "**Not the committed versions** (`LACE_ALLOW_NEWER=1`): its numbers are "
				  "not those of the committed study.\n\n");
		json_array_foreach(np, i, v) {
			strbuf_addstr(sb, "- ");
			strbuf_add_md(sb, json_string_value(v) ?: "");
			strbuf_addch(sb, '\n');
		}
		strbuf_addch(sb, '\n');
	}
	strvec_clear(&p);
}

static void render_md(struct strbuf *sb, const json_t *res)
{
	section_head(sb, res);
	strbuf_addstr(sb, "# lace study --kernel: the four readings on real Linux kernels\n\n"
			  "Kernels from Debian's linux-source-6.1 rebuilt by `lace build --kernel` "
			  "(placements as linker-script edits and patches in `kernel/`) and Debian's "
			  "stock 6.1 ppc64le kernel, booted under QEMU's TCG emulator with lace's TCG "
			  "plugin (`lace stat --backend qemu`): instructions, L1i and iTLB counts of the "
			  "simulated front end, exact and repeatable, and the kernel's own tracepoints.\n\n");
	section_r1(sb, res);
	section_r2(sb, res);
	section_r3(sb, res);
	kstudy_r4_section(sb, res);
	section_phases(sb, res);
}

/* Every row of each table behind a figure is drawn (the array is sized to
 * the rows: a fixed one once cut reading 4 after 16 of its 23 kernels). */
static void figures(struct strbuf *html, const json_t *res)
{
	const json_t *r1 = json_object_get(res, "r1_tracepoint");
	size_t nc = json_array_size(json_object_get(r1, "configs"));
	struct svgplot_bar *bars = xcalloc(nc + 1, sizeof(*bars));
	size_t n = 0, i;
	json_t *c;

	json_array_foreach(json_object_get(r1, "configs"), i, c)
		bars[n++] = (struct svgplot_bar){ js(c, "name"), lace_json_get_num(c, "instructions_per_hash_fault"),
						  NULL };
	strbuf_addstr(html, "<figure>\n");
	svgplot_bars(html, &(struct svgplot){ "Kernel instructions per hash fault (ppc64le)",
					      "instructions", bars, n, NAN, NAN, NULL });
	strbuf_addstr(html, "<figcaption>Reading 1: slope of kernel instructions over hash faults.</figcaption></figure>\n");

	kstudy_r4_figure(html, res);
	free(bars);
}

int kstudy_write_reports(const json_t *res, const char *dir)
{
	struct strbuf md = STRBUF_INIT, body = STRBUF_INIT;
	int rc;

	if (fs_mkdir_p(dir, 0755))
		return lace_error_set(errno, "%s: %s", dir, strerror(errno));
	render_md(&md, res);
	study_md_to_html(&body, md.buf);
	figures(&body, res);
	rc = study_write_files(dir, "lace study --kernel", &md, &body, res);
	strbuf_release(&md);
	strbuf_release(&body);
	return rc;
}

void kstudy_print_summary(const json_t *res, FILE *f)
{
	const json_t *r1 = json_object_get(res, "r1_tracepoint"), *c;
	struct strvec p = STRVEC_INIT;
	size_t i;

	/* what kept it from being whole first, as at the top of the report */
	kstudy_problems(res, &p);
	for (i = 0; i < p.nr; i++)
		fprintf(f, "lace study --kernel: %s%s\n", i ? "also: " : "incomplete: ", p.v[i]);
	strvec_clear(&p);
	json_array_foreach(json_object_get(res, "not_pinned"), i, c)
		fprintf(f, "lace study --kernel: not the committed version: %s\n", json_string_value(c) ?: "");
	fprintf(f, "\nlace study --kernel (%.0f s)\n\n  kernel instructions per hash fault (ppc64le):\n",
		lace_json_get_num(json_object_get(res, "phases"), "total"));
	json_array_foreach(json_object_get(r1, "configs"), i, c) {
		if (json_object_get(c, "not_measured"))
			fprintf(f, "    %-26s not measured: %s\n", js(c, "name"), js(c, "not_measured"));
		else
			fprintf(f, "    %-26s %8.1f\n", js(c, "name"), lace_json_get_num(c, "instructions_per_hash_fault"));
	}
	kstudy_r4_summary(res, f);
	/* the time of each phase (also in results.json and the report) */
	const char *k;
	json_t *v;
	fprintf(f, "\n  phases:");
	json_array_foreach(json_object_get(res, "builds"), i, c)
		fprintf(f, " build %s %.1f s;", js(c, "what"), lace_json_get_num(c, "seconds"));
	json_object_foreach((json_t *)json_object_get(res, "phases"), k, v)
		if (json_is_number(v))
			fprintf(f, " %s %.1f s;", k, json_number_value(v));
	fputc('\n', f);
}
