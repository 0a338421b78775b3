/* Edits of a virtual layout's base (vlayout.h, struct vl_edit): units
 * moved before their group, aligned and padded. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "layout/vlayout.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

void vl_edit_free(struct vl_edit *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->keys[i]);
	free(e->keys);
	free(e->offsets);
	memset(e, 0, sizeof(*e));
}

int vl_edit_load(const char *path, struct vl_edit *e)
{
	struct strbuf sb = STRBUF_INIT;
	char *save = NULL, *line;
	int err = 0, no = 0;

	memset(e, 0, sizeof(*e));
	if ((err = strbuf_read_file(&sb, path)) < 0) {
		strbuf_release(&sb);
		return lace_error_set(-err, "%s: cannot read: %s", path, strerror(-err));
	}
	for (line = strtok_r(sb.buf, "\n", &save); line && !err; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' '), *end;
		unsigned long long v;

		no++;
		if (line[0] == '#' || !line[0])
			continue;
		if (!sp || (v = strtoull(sp + 1, &end, 0), *end) || sp == line) {
			err = lace_error_set(EINVAL, "%s: line %d: not \"edit ALIGN\" or \"KEY OFFSET\"", path, no);
			break;
		}
		*sp = 0;
		if (!e->align) {
			if (strcmp(line, "edit") || !v || v & (v - 1)) {
				err = lace_error_set(EINVAL, "%s: line %d: the first line is \"edit ALIGN\" "
						     "(a power of two)", path, no);
				break;
			}
			e->align = v;
			continue;
		}
		e->keys = xrealloc(e->keys, (e->n + 1) * sizeof(*e->keys));
		e->offsets = xrealloc(e->offsets, (e->n + 1) * sizeof(*e->offsets));
		e->keys[e->n] = xstrdup(line);
		e->offsets[e->n++] = v;
	}
	if (!err && !e->n)
		err = lace_error_set(EINVAL, "%s: an edit of no units", path);
	strbuf_release(&sb);
	if (err)
		vl_edit_free(e);
	return err;
}

int vl_base_edited(const struct vl_base *src, const struct vl_edit *e, struct vl_base *out)
{
	size_t *unit = xcalloc(e->n, sizeof(*unit));
	long group = -1;
	int err = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < e->n && !err; i++) {
		long u = -1;
		for (size_t k = 0; k < src->nunits && u < 0; k++)
			if (!strcmp(src->units[k].key, e->keys[i]))
				u = (long)k;
		if (u < 0)
			err = lace_error_set(EINVAL, "the edit's %s is not a piece of this build", e->keys[i]);
		else if (group >= 0 && src->units[u].group != group)
			err = lace_error_set(EINVAL, "the edit's %s is not in the group of %s", e->keys[i],
					     e->keys[0]);
		else if (src->units[u].group < 0)
			err = lace_error_set(EINVAL, "the edit's %s is in no group", e->keys[i]);
		else
			group = src->units[u].group, unit[i] = (size_t)u;
	}
	if (err) {
		free(unit);
		return err;
	}
	*out = *src;
	out->units = xcalloc(src->nunits, sizeof(*out->units));
	for (size_t u = 0; u < src->nunits; u++) {
		out->units[u] = src->units[u];
		out->units[u].key = xstrdup(src->units[u].key);
	}
	out->syms = xcalloc(src->nsyms, sizeof(*out->syms));
	out->sym_addr = xcalloc(src->nsyms, sizeof(*out->sym_addr));
	for (size_t s = 0; s < src->nsyms; s++) {
		out->syms[s] = xstrdup(src->syms[s]);
		out->sym_addr[s] = src->sym_addr[s];
	}
	out->pads = xcalloc(src->npads, sizeof(*out->pads));
	for (size_t p = 0; p < src->npads; p++)
		out->pads[p] = (struct vl_pad){ xstrdup(src->pads[p].where), src->pads[p].unit,
						src->pads[p].max };
	out->func_unit = xcalloc(src->img->nfuncs, sizeof(*out->func_unit));
	memcpy(out->func_unit, src->func_unit, src->img->nfuncs * sizeof(*out->func_unit));
	out->steps = xcalloc(src->nsteps + 3 * e->n, sizeof(*out->steps));
	out->nsteps = 0;
	bool placed = false;
	for (size_t i = 0; i < src->nsteps; i++) {
		const struct vl_step *st = &src->steps[i];
		bool edited = false;

		for (size_t k = 0; st->kind == VS_UNIT && k < e->n; k++)
			edited |= st->v == unit[k];
		if (edited)
			continue;   /* placed with the edit's */
		if (!placed && st->kind == VS_UNIT && src->units[st->v].group == group) {
			for (size_t k = 0; k < e->n; k++) {
				uint64_t a = e->align, pad = (a - e->offsets[k] % a) % a;
				out->steps[out->nsteps++] = (struct vl_step){ VS_ALIGN, a };
				out->steps[out->nsteps++] = (struct vl_step){ VS_ADVANCE, pad };
				out->steps[out->nsteps++] = (struct vl_step){ VS_UNIT, unit[k] };
				out->units[unit[k]].group = (long)out->ngroups++;   /* alone */
			}
			placed = true;
		}
		out->steps[out->nsteps++] = *st;
	}
	free(unit);
	return 0;
}
