/* lace replay's layouts; see replay_plan.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/replay_plan.h"
#include "layout/symkeys.h"
#include "measure/replay/record_file.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* The link map of the ELF at path: vmlinux.map beside a vmlinux, else
 * PATH.map; NULL when there is none. */
static char *map_of(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	const char *slash = strrchr(path, '/');

	if (!strcmp(slash ? slash + 1 : path, "vmlinux"))
		strbuf_addf(&sb, "%.*svmlinux.map", slash ? (int)(slash - path + 1) : 0, path);
	else
		strbuf_addf(&sb, "%s.map", path);
	if (fs_is_file(sb.buf))
		return strbuf_detach(&sb, NULL);
	strbuf_release(&sb);
	return NULL;
}

static int build_load(struct replay_build *b, const char *path, bool want_map)
{
	struct lace_load_opts lo = { .geom = LACE_GEOMETRY_DEFAULT };
	char *map = want_map ? map_of(path) : NULL;
	int err;

	memset(b, 0, sizeof(*b));
	b->path = xstrdup(path);
	if ((err = image_load(path, &lo, &b->img))) {
		char why[256];
		snprintf(why, sizeof(why), "%s", lace_error_msg());
		free(map);
		return lace_error_set(err, "%s: %s", path, why);
	}
	if (map) {
		err = linkmap_load(map, NULL, &b->lm);
		b->has_map = !err;
		free(map);
		if (err)
			return err;
	}
	return 0;
}

/* The units of every build, all from maps or all from functions (the
 * keys must name the same code in each). */
static int units_build(struct replay_plan *p)
{
	p->mapped = !p->no_map;
	for (size_t i = 0; i < p->nbuilds; i++)
		p->mapped &= p->builds[i].has_map;
	for (size_t i = 0; i < p->nbuilds; i++) {
		struct replay_build *b = &p->builds[i];
		int err = vl_base_build(&b->vb, b->img, p->mapped ? &b->lm : NULL,
					p->mapped ? p->points : NULL, p->mapped ? p->npoints : 0);
		if (err) {
			char why[512];
			snprintf(why, sizeof(why), "%s", lace_error_msg());
			return lace_error_set(err, "%s: %s", b->path, why);
		}
		struct vl_piece *v = xcalloc(b->vb.nunits, sizeof(*v));
		b->nbase = vl_pieces(&b->vb, NULL, v);
		b->base = xcalloc(b->nbase, sizeof(*b->base));
		for (size_t k = 0; k < b->nbase; k++)
			b->base[k] = (struct replay_sym){ v[k].key, v[k].key, v[k].addr, v[k].own,
							  v[k].extent };
		free(v);
		if (!b->nbase)
			return lace_error_set(EINVAL, "%s: no function symbols (stripped?): nothing to "
					      "carry the executed addresses by", b->path);
	}
	return 0;
}

/* the recorded build edited by the edit in file path: one more build,
 * named after the file */
static int edit_load(struct replay_plan *p, const char *path)
{
	struct replay_build *b = &p->builds[p->nbuilds];
	const char *base = strrchr(path, '/');
	struct vl_edit e;
	int err;

	if ((err = vl_edit_load(path, &e)))
		return err;
	memset(b, 0, sizeof(*b));
	base = base ? base + 1 : path;
	b->path = xstrndup(base, strlen(base) > 5 && !strcmp(base + strlen(base) - 5, ".edit")
				 ? strlen(base) - 5 : strlen(base));
	b->edit = true;
	err = vl_base_edited(&p->builds[0].vb, &e, &b->vb);
	vl_edit_free(&e);
	if (err) {
		char why[512];
		snprintf(why, sizeof(why), "%s", lace_error_msg());
		free(b->path);
		return lace_error_set(err, "%s: %s", path, why);
	}
	p->nbuilds++;
	/* its pieces as edited: draw 0 of the edited program */
	uint64_t *addr = xcalloc(b->vb.nunits, sizeof(*addr));
	struct vl_piece *v = xcalloc(b->vb.nunits, sizeof(*v));
	struct vl_family f = { VL_FAMILY_FUNCTION, 0, NULL };
	vl_draw(&b->vb, &f, 0, NULL, addr, NULL);
	b->nbase = vl_pieces(&b->vb, addr, v);
	b->base = xcalloc(b->nbase, sizeof(*b->base));
	for (size_t k = 0; k < b->nbase; k++)
		b->base[k] = (struct replay_sym){ v[k].key, v[k].key, v[k].addr, v[k].own, v[k].extent };
	free(addr);
	free(v);
	return 0;
}

/* "P1,P2,...": one pad per point, in bytes */
static int pads_parse(const char *s, size_t n, uint64_t *v)
{
	size_t k = 0;

	for (const char *q = s; *q && k <= n;) {
		char *end;
		unsigned long long x = strtoull(q, &end, 0);
		if (end == q || (*end && *end != ','))
			break;
		v[k++] = x;
		q = *end ? end + 1 : end;
	}
	return k == n ? 0 : -1;
}

/* A relink's manifest (lace build kernel --shuffle): the bytes of its
 * first npoints padding points, as one more --pads.  lace's relinks pad
 * the code's points first (kernel.conf's virtual_pads name them). */
static int pads_from_manifest(struct replay_plan *p, const char *path)
{
	json_error_t je;
	json_t *m = json_load_file(path, 0, &je);
	json_t *pts = json_object_get(json_object_get(m, "padding"), "points");
	struct strbuf sb = STRBUF_INIT;
	int err = 0;

	if (!m)
		return lace_error_set(EINVAL, "--pads-from %s: %s", path, je.text);
	if (!p->npoints)
		err = lace_error_set(EINVAL, "--pads-from needs --pad-points (where each pad goes)");
	else if (json_array_size(pts) < p->npoints)
		err = lace_error_set(EINVAL, "--pads-from %s: %zu padding points, not the %zu of "
				     "--pad-points (not a relink's manifest?)", path,
				     json_array_size(pts), p->npoints);
	for (size_t i = 0; !err && i < p->npoints; i++) {
		json_t *b = json_object_get(json_array_get(pts, i), "bytes");
		if (!json_is_integer(b) || json_integer_value(b) < 0)
			err = lace_error_set(EINVAL, "--pads-from %s: padding point %zu has no bytes",
					     path, i + 1);
		else
			strbuf_addf(&sb, "%s%lld", i ? "," : "", (long long)json_integer_value(b));
	}
	if (!err)
		strvec_push(&p->pads, sb.buf);
	strbuf_release(&sb);
	json_decref(m);
	return err;
}

int replay_plan_load(struct replay_plan *p, const char *recorded, const char *const *layouts,
		     size_t nlayouts)
{
	int err = 0;

	if (p->pad_points && (err = vl_pads_parse(p->pad_points, &p->points, &p->npoints)))
		return err;
	for (size_t i = 0; i < p->pads_from.nr && !err; i++)
		err = pads_from_manifest(p, p->pads_from.v[i]);
	if (err)
		return err;
	if (p->pads.nr && !p->npoints)
		return lace_error_set(EINVAL, "--pads needs --pad-points (where each pad goes)");
	p->pad_vectors = xcalloc(p->pads.nr, sizeof(*p->pad_vectors));
	for (size_t i = 0; i < p->pads.nr; i++) {
		p->pad_vectors[i] = xcalloc(p->npoints, sizeof(uint64_t));
		if (pads_parse(p->pads.v[i], p->npoints, p->pad_vectors[i]))
			return lace_error_set(EINVAL, "--pads %s: not %zu byte counts (one per pad point)",
					      p->pads.v[i], p->npoints);
	}
	p->builds = xcalloc(nlayouts + 1 + p->edits.nr, sizeof(*p->builds));
	for (size_t i = 0; i <= nlayouts && !err; i++) {
		err = build_load(&p->builds[i], i ? layouts[i - 1] : recorded, !p->no_map);
		p->nbuilds++;
	}
	if (!err)
		err = units_build(p);
	for (size_t i = 0; i < p->edits.nr && !err; i++)
		err = edit_load(p, p->edits.v[i]);
	if (!err && (p->nvirtual || p->pads.nr) && p->fam.kind == VL_FAMILY_RELINK && !p->mapped)
		err = lace_error_set(EINVAL, "the relink family needs every build's link map "
				     "(vmlinux.map beside it)");
	if (!err && p->fam.kind == VL_FAMILY_RELINK && p->nvirtual && !p->npoints)
		err = lace_error_set(EINVAL, "the relink family needs --pad-points");
	return err;
}

void replay_plan_free(struct replay_plan *p)
{
	for (size_t i = 0; i < p->nbuilds; i++) {
		struct replay_build *b = &p->builds[i];
		vl_base_free(&b->vb);
		if (b->has_map)
			linkmap_free(&b->lm);
		if (b->img && !b->edit)
			image_free(b->img);
		free(b->base);
		free(b->path);
	}
	for (size_t i = 0; i < p->pads.nr && p->pad_vectors; i++)
		free(p->pad_vectors[i]);
	free(p->pad_vectors);
	free(p->builds);
	vl_pads_free(p->points, p->npoints);
	p->builds = NULL;
	p->nbuilds = 0;
	p->points = NULL;
	p->npoints = 0;
	p->pad_vectors = NULL;
}

size_t replay_plan_nrows(const struct replay_plan *p)
{
	return p->nbuilds * (1 + p->nvirtual + p->pads.nr);
}

void replay_plan_row(const struct replay_plan *p, size_t r, struct replay_row_info *info)
{
	size_t nb = p->nbuilds, block = r / nb;

	info->build = r % nb;
	info->draw = block >= 1 && block <= p->nvirtual ? (unsigned)block : 0;
	info->pads = block > p->nvirtual ? p->pad_vectors[block - 1 - p->nvirtual] : NULL;
}

/* the row's addresses: draw k, or the pads */
static int row_addr(const struct replay_plan *p, const struct replay_row_info *ri, uint64_t *addr,
		    uint64_t *sym)
{
	const struct vl_base *vb = &p->builds[ri->build].vb;
	struct vl_family f = p->fam;

	if (ri->pads)
		f.kind = VL_FAMILY_RELINK;
	return vl_draw(vb, &f, ri->pads ? 1 : ri->draw, ri->pads, addr, sym);
}

static void row_name(const struct replay_plan *p, const struct replay_row_info *ri, struct strbuf *sb)
{
	const char *path = p->builds[ri->build].path;

	if (!ri->draw && !ri->pads) {
		strbuf_addstr(sb, ri->build ? path : "recorded");
		return;
	}
	if (ri->build)
		strbuf_addf(sb, "%s@", path);
	if (ri->draw) {
		strbuf_addf(sb, "virtual-%u", ri->draw);
		return;
	}
	strbuf_addstr(sb, "pads");
	for (size_t i = 0; i < p->npoints; i++)
		strbuf_addf(sb, "-%" PRIu64, ri->pads[i]);
}

/* The layout's own text in large pages, by the rule the qemu backend
 * applies to the booted kernel (backend_qemu.c, run_config()): the whole
 * large pages from _text up to _etext's page.  _text and _etext are the
 * link map's symbols where the layout's draw put them, else the ELF's
 * .text section (x86-64's script sets both at its ends). */
static void large_range(const struct replay_plan *p, const struct replay_build *b,
			const struct replay_row_info *ri, struct replay_layout *lay)
{
	uint64_t lo = 0, hi = 0, L = p->large_page;
	long it = -1, ie = -1;

	if (!L)
		return;
	for (size_t s = 0; s < b->vb.nsyms; s++) {
		if (!strcmp(b->vb.syms[s], "_text"))
			it = (long)s;
		else if (!strcmp(b->vb.syms[s], "_etext"))
			ie = (long)s;
	}
	if (it >= 0 && ie >= 0) {
		uint64_t *addr = xcalloc(b->vb.nunits, sizeof(*addr));
		uint64_t *sym = xcalloc(b->vb.nsyms, sizeof(*sym));
		if (ri->draw || ri->pads)
			row_addr(p, ri, addr, sym);
		else
			memcpy(sym, b->vb.sym_addr, b->vb.nsyms * sizeof(*sym));
		lo = sym[it];
		hi = sym[ie];
		free(addr);
		free(sym);
	} else {
		for (size_t s = 0; s < b->img->nsections; s++)
			if (!strcmp(b->img->sections[s].name, ".text")) {
				lo = b->img->sections[s].addr;
				hi = lo + b->img->sections[s].size;
			}
	}
	if (!lo || hi <= lo)
		return;
	lay->large_set = true;
	lay->large_lo = (lo + L - 1) & ~(L - 1);
	lay->large_hi = ((hi + p->page - 1) & ~(p->page - 1)) & ~(L - 1);
	if (lay->large_hi < lay->large_lo)
		lay->large_hi = lay->large_lo;
}

int replay_plan_layout(const struct replay_plan *p, size_t r, const char *object,
		       struct replay_layout *lay, char **name)
{
	struct replay_row_info ri;
	struct strbuf sb = STRBUF_INIT;
	const struct replay_build *b, *own = &p->builds[0];

	replay_plan_row(p, r, &ri);
	b = &p->builds[ri.build];
	row_name(p, &ri, &sb);
	*name = strbuf_detach(&sb, NULL);
	*lay = (struct replay_layout){ own->base, own->nbase, NULL, 0, object, false, false, 0, 0 };
	struct replay_sym *v = xcalloc(b->nbase, sizeof(*v));
	if (!ri.draw && !ri.pads) {
		memcpy(v, b->base, b->nbase * sizeof(*v));
	} else {
		uint64_t *addr = xcalloc(b->vb.nunits, sizeof(*addr));
		struct vl_piece *pc = xcalloc(b->vb.nunits, sizeof(*pc));
		int err = row_addr(p, &ri, addr, NULL);

		if (err) {
			free(addr);
			free(pc);
			free(v);
			return err;
		}
		size_t n = vl_pieces(&b->vb, addr, pc);
		for (size_t k = 0; k < n; k++)
			v[k] = (struct replay_sym){ pc[k].key, pc[k].key, pc[k].addr, pc[k].own,
						    pc[k].extent };
		free(addr);
		free(pc);
	}
	lay->new = v;
	lay->nnew = b->nbase;
	large_range(p, b, &ri, lay);
	return 0;
}

int replay_plan_write_map(const struct replay_plan *p, size_t r, const char *dir)
{
	struct replay_row_info ri;
	struct strbuf name = STRBUF_INIT, path = STRBUF_INIT, out = STRBUF_INIT;
	const struct vl_base *vb;
	int err;

	replay_plan_row(p, r, &ri);
	vb = &p->builds[ri.build].vb;
	uint64_t *addr = xcalloc(vb->nunits, sizeof(*addr));
	uint64_t *sym = xcalloc(vb->nsyms, sizeof(*sym));
	err = row_addr(p, &ri, addr, sym);
	if (!err) {
		row_name(p, &ri, &name);
		for (size_t i = 0; i < name.len; i++)   /* a file name: no folders */
			if (name.buf[i] == '/')
				name.buf[i] = '_';
		strbuf_addf(&path, "%s/%s.System.map", dir, name.buf);
		vl_system_map(vb, addr, vb->nsyms ? sym : NULL, &out);
		err = fs_write_file(path.buf, out.buf, out.len);
		/* and its order, for a linker script that makes it */
		strbuf_reset(&path);
		strbuf_reset(&out);
		strbuf_addf(&path, "%s/%s.order", dir, name.buf);
		vl_order(vb, addr, &out);
		if (!err)
			err = fs_write_file(path.buf, out.buf, out.len);
	}
	free(addr);
	free(sym);
	strbuf_release(&name);
	strbuf_release(&path);
	strbuf_release(&out);
	return err;
}

json_t *replay_plan_hot(const struct replay_plan *p, const struct lace_record *rec, size_t n)
{
	const struct replay_build *own = &p->builds[0];
	struct vl_base fb;
	struct replay_result res;
	struct strbuf key = STRBUF_INIT;
	json_t *doc = NULL;

	/* the recorded build's functions as the pieces: their heat */
	if (vl_base_build(&fb, own->img, NULL, NULL, 0))
		return NULL;
	struct vl_piece *v = xcalloc(fb.nunits, sizeof(*v));
	size_t nv = vl_pieces(&fb, NULL, v);
	struct replay_sym *syms = xcalloc(nv, sizeof(*syms));
	for (size_t k = 0; k < nv; k++)
		syms[k] = (struct replay_sym){ v[k].key, v[k].key, v[k].addr, v[k].own, v[k].extent };
	struct replay_layout lay = { syms, nv, syms, nv,
				     !strcmp(rec->builds[0].role, "kernel") ? NULL : rec->builds[0].path,
				     true, false, 0, 0 };
	if (replay_run(rec, &lay, &res))
		goto out;
	uint64_t all = res.exact + res.approx;
	json_t *arr = json_array();
	doc = json_pack("{s:s,s:I,s:o}", "build", own->path, "instructions", (json_int_t)all, "hot", arr);
	for (size_t i = 0; i < res.nhot_fns && i < n; i++) {
		const char *name = res.hot_fns[i].name;
		json_t *o = json_pack("{s:s,s:I,s:f}", "function", name, "instructions",
				      (json_int_t)res.hot_fns[i].instructions, "share",
				      all ? (double)res.hot_fns[i].instructions / (double)all : 0.0);
		/* its piece in the build's own layout (an input section with
		 * the map), and where in it the function starts */
		for (size_t f = 0; f < own->img->nfuncs; f++) {
			const struct lace_function *fn = &own->img->funcs[f];
			strbuf_reset(&key);
			strbuf_addstr(&key, fn->name);
			if (!fn->global)
				strbuf_addf(&key, "@%s#%u", fn->file ? fn->file : "", fn->static_ordinal);
			if (strcmp(key.buf, name))
				continue;
			long u = own->vb.func_unit[f];
			char a[24];
			snprintf(a, sizeof(a), "0x%llx", (unsigned long long)fn->addr);
			json_object_set_new(o, "address", json_string(a));
			if (u >= 0) {
				json_object_set_new(o, "piece", json_string(own->vb.units[u].key));
				json_object_set_new(o, "group", json_integer(own->vb.units[u].group));
				json_object_set_new(o, "offset", json_integer((json_int_t)(fn->addr -
									own->vb.units[u].addr)));
			}
			break;
		}
		json_array_append_new(arr, o);
	}
out:
	replay_result_free(&res);
	free(syms);
	free(v);
	vl_base_free(&fb);
	strbuf_release(&key);
	return doc;
}


size_t replay_hot_edit(const json_t *all, size_t n, uint64_t align, json_t *hot, struct strbuf *edit)
{
	json_t *arr = json_object_get(all, "hot"), *o, *seen = json_object();
	size_t i, found = 0;
	double group = NAN;

	strbuf_addf(edit, "# the hottest function of each of the %zu hottest pieces of %s, each\n"
		    "# at offset 0 modulo %llu (lace replay --hot %zu --write-edit)\nedit %llu\n", n,
		    json_string_value(json_object_get(all, "build")) ?: "the recorded build",
		    (unsigned long long)align, n, (unsigned long long)align);
	json_array_foreach(arr, i, o) {
		const char *piece = json_string_value(json_object_get(o, "piece"));

		if (found == n)
			break;
		/* an edit moves pieces of one linker-script statement: the
		 * hottest piece's (.text, not .entry.text or .noinstr.text) */
		if (!piece || json_object_get(seen, piece) || lace_json_get_num(o, "group") < 0 ||
		    (!isnan(group) && lace_json_get_num(o, "group") != group))
			continue;
		group = lace_json_get_num(o, "group");
		json_object_set_new(seen, piece, json_true());
		strbuf_addf(edit, "# %s: %.0f instructions\n%s %.0f\n",
			    json_string_value(json_object_get(o, "function")),
			    lace_json_get_num(o, "instructions"), piece, lace_json_get_num(o, "offset"));
		json_array_append(json_object_get(hot, "hot"), o);
		found++;
	}
	json_decref(seen);
	return found;
}
