/* GNU ld link maps; see linkmap.h.
 *
 * The part read is "Linker script and memory map", whose lines are:
 *   .text           0xffffffff81000000   0x600a90        an output section
 *   .text.unlikely                                       a long name: address
 *                   0xffffffff8113f000       0x4f obj.o   and size on the next line
 *    *(.text .text.fixup)                                 a statement
 *    .text          0xffffffff81000480     0x1234 obj.o   an input section
 *    *fill*         0xffffffff81001234        0xc         padding
 *                   0xffffffff81000480                early_setup_idt   a symbol in it
 *                   0xffffffff81400000                . = ALIGN (0x200000)
 *                   0xffffffff81400000                __entry_text_start = .
 * Output sections start in column 0, statements and input sections in
 * column 1, symbols and assignments after 16 blanks. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layout/linkmap.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static struct linkmap_item *item_add(struct linkmap *lm, enum linkmap_kind kind)
{
	struct linkmap_item *it;

	lm->items = xrealloc(lm->items, (lm->nitems + 1) * sizeof(*lm->items));
	it = &lm->items[lm->nitems++];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	it->group = -1;
	return it;
}

/* "0x..." at *p (blanks skipped); advances p.  false when not a number. */
static bool hex_at(const char **p, uint64_t *v)
{
	char *end;

	while (**p == ' ' || **p == '\t')
		(*p)++;
	if ((*p)[0] != '0' || (*p)[1] != 'x')
		return false;
	*v = strtoull(*p, &end, 16);
	*p = end;
	return true;
}

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* "ADDR SIZE [FILE]" after a section name (on its line or the next):
 * true when they are there; *file the rest of the line (may be ""). */
static bool addr_size(const char *p, uint64_t *addr, uint64_t *size, const char **file)
{
	if (!hex_at(&p, addr) || !hex_at(&p, size))
		return false;
	*file = skip_blanks(p);
	return true;
}

/* An assignment line's text after its address: `. = ALIGN (0x8)`,
 * `. = (. + 0xaf0)`, `__entry_text_start = .`, `PROVIDE (x = .)` ... */
static void assignment(struct linkmap *lm, uint64_t value, const char *text)
{
	uint64_t v;
	const char *p;

	if (!strncmp(text, ". = ", 4)) {
		p = text + 4;
		if (!strncmp(p, "ALIGN (", 7) && (p += 7, hex_at(&p, &v)) && *p == ')' && !p[1]) {
			item_add(lm, LM_ALIGN)->size = v;
			return;
		}
		if (!strncmp(p, "(. + ", 5) && (p += 5, hex_at(&p, &v)) && *p == ')' && !p[1]) {
			item_add(lm, LM_ADVANCE)->size = v;
			return;
		}
		item_add(lm, LM_SET)->addr = value;
		return;
	}
	/* NAME = ... (PROVIDE (NAME = ...)): a symbol; the name is what the
	 * map prints before " =" */
	const char *eq = strstr(text, " = ");
	if (!eq)
		return;
	if (!strncmp(text, "PROVIDE (", 9))
		text += 9;
	if (eq <= text)
		return;
	struct linkmap_item *it = item_add(lm, LM_SYMBOL);
	it->text = xstrndup(text, (size_t)(eq - text));
	it->addr = value;
}

struct parse {
	struct linkmap *lm;
	long osec;            /* the output section being read, or -1 */
	long group;           /* its current statement */
	char *pending;        /* a long name waiting for its numbers */
	bool pending_input;   /* ... of an input section (else of an output one) */
};

static void osec_close(struct parse *ps)
{
	if (ps->osec >= 0)
		ps->lm->osecs[ps->osec].n = ps->lm->nitems - ps->lm->osecs[ps->osec].first;
	ps->osec = -1;
}

static void osec_open(struct parse *ps, const char *name, uint64_t addr, uint64_t size)
{
	struct linkmap *lm = ps->lm;

	osec_close(ps);
	lm->osecs = xrealloc(lm->osecs, (lm->nosecs + 1) * sizeof(*lm->osecs));
	lm->osecs[lm->nosecs] = (struct linkmap_osec){ xstrdup(name), addr, size, lm->nitems, 0 };
	ps->osec = (long)lm->nosecs++;
	ps->group = -1;
}

static void input_add(struct parse *ps, const char *name, uint64_t addr, uint64_t size,
		      const char *file)
{
	struct linkmap_item *it;

	if (ps->osec < 0 || !*file)
		return;
	it = item_add(ps->lm, LM_INPUT);
	it->text = xstrdup(name);
	it->object = xstrdup(file);
	it->addr = addr;
	it->size = size;
	it->group = ps->group;
}

static void line_parse(struct parse *ps, char *line)
{
	uint64_t a, s;
	const char *file, *p;
	size_t len = strlen(line);

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' '))
		line[--len] = 0;
	if (!len)
		return;
	if (ps->pending) {   /* the numbers of a long name */
		char *name = ps->pending;
		bool input = ps->pending_input;

		ps->pending = NULL;
		if (addr_size(line, &a, &s, &file)) {
			if (input)
				input_add(ps, name, a, s, file);
			else
				osec_open(ps, name, a, s);
			free(name);
			return;
		}
		free(name);   /* not numbers: the line is read on its own */
		if (!input)   /* an output section without an address (/DISCARD/) */
			osec_close(ps);
	}
	if (line[0] != ' ') {   /* an output section, or the map's other lines */
		char name[512];
		int n = 0;

		if (sscanf(line, "%511s%n", name, &n) != 1 || !strcmp(name, "LOAD") ||
		    !strncmp(name, "OUTPUT(", 7) || !strcmp(name, "START") || !strcmp(name, "END")) {
			osec_close(ps);
			return;
		}
		if (!line[n]) {
			ps->pending = xstrdup(name);
			ps->pending_input = false;
		} else if (addr_size(line + n, &a, &s, &file)) {
			osec_open(ps, name, a, s);
		} else {
			osec_close(ps);
		}
		return;
	}
	if (ps->osec < 0)
		return;
	if (line[1] != ' ') {   /* column 1: a statement, an input section, a fill */
		char name[512];
		int n = 0;

		if (!strncmp(line + 1, "*fill*", 6))
			return;
		if (sscanf(line + 1, "%511s%n", name, &n) == 1 && !line[1 + n] && !strchr(name, '(')) {
			ps->pending = xstrdup(name);   /* a long input section name */
			ps->pending_input = true;
			return;
		}
		if (n && addr_size(line + 1 + n, &a, &s, &file) && !strchr(name, '(')) {
			input_add(ps, name, a, s, file);
			return;
		}
		if (strchr(line + 1, '(')) {
			struct linkmap_item *it = item_add(ps->lm, LM_STATEMENT);
			it->text = xstrdup(line + 1);
			ps->group = (long)(ps->lm->nitems - 1);
		}
		return;
	}
	/* after the blanks: a symbol in an input section, or an assignment */
	p = line;
	if (!hex_at(&p, &a))
		return;
	p = skip_blanks(p);
	if (strstr(p, " = "))
		assignment(ps->lm, a, p);
}

/* ---- alignments ------------------------------------------------------- */

/* The file an input section came from, under root: "dir/x.o", or a
 * member "lib.a(dir/x.o)" of a thin archive, whose members are files. */
static void object_path(const char *object, const char *root, struct strbuf *out)
{
	const char *lp = strchr(object, '(');
	size_t n = strlen(object);

	strbuf_reset(out);
	if (lp && n && object[n - 1] == ')')   /* the member's own path */
		strbuf_addf(out, "%s%s%.*s", object[lp + 1 - object] == '/' ? "" : root,
			    object[lp + 1 - object] == '/' ? "" : "/", (int)(n - (size_t)(lp - object) - 2),
			    lp + 1);
	else
		strbuf_addf(out, "%s%s%s", object[0] == '/' ? "" : root, object[0] == '/' ? "" : "/",
			    object);
}

/* Set the alignment of every input section of lm that came from the ELF
 * object at path (by name and size: a COMDAT name may repeat).  Returns
 * how many were set. */
static size_t align_from_object(struct linkmap *lm, const char *object, const char *path)
{
	int fd = open(path, O_RDONLY);
	size_t set = 0, shstrndx;
	Elf *e;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF && !elf_getshdrstrndx(e, &shstrndx)) {
		for (size_t i = 0; i < lm->nitems; i++) {
			struct linkmap_item *it = &lm->items[i];
			Elf_Scn *scn = NULL;

			if (it->kind != LM_INPUT || it->align || strcmp(it->object, object))
				continue;
			while ((scn = elf_nextscn(e, scn))) {
				GElf_Shdr sh;
				const char *nm;

				if (!gelf_getshdr(scn, &sh) || !(nm = elf_strptr(e, shstrndx, sh.sh_name)))
					continue;
				if (!strcmp(nm, it->text) && sh.sh_size == it->size) {
					it->align = sh.sh_addralign ? sh.sh_addralign : 1;
					set++;
					break;
				}
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return set;
}

static int item_by_object(const void *a, const void *b, void *lm)
{
	const struct linkmap_item *v = ((struct linkmap *)lm)->items;

	return strcmp(v[*(const size_t *)a].object, v[*(const size_t *)b].object);
}

static void align_from_objects(struct linkmap *lm, const char *root)
{
	size_t *idx = xcalloc(lm->nitems, sizeof(*idx)), n = 0;
	struct strbuf path = STRBUF_INIT;

	for (size_t i = 0; i < lm->nitems; i++)
		if (lm->items[i].kind == LM_INPUT && !lm->items[i].align)
			idx[n++] = i;
	qsort_r(idx, n, sizeof(*idx), item_by_object, lm);
	for (size_t i = 0; i < n; i++) {
		const char *obj = lm->items[idx[i]].object;

		if (i && !strcmp(obj, lm->items[idx[i - 1]].object))
			continue;   /* one read per object */
		object_path(obj, root, &path);
		align_from_object(lm, obj, path.buf);
	}
	strbuf_release(&path);
	free(idx);
}

/* PATH.align: "object<TAB>section<TAB>size<TAB>align" lines. */
static void align_from_file(struct linkmap *lm, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char *save = NULL;

	if (strbuf_read_file(&sb, path) < 0) {
		strbuf_release(&sb);
		return;
	}
	/* one pass over the file, matched against the items in order (the
	 * file is written in item order) with a fallback search */
	size_t next = 0;
	for (char *line = strtok_r(sb.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[4];
		int nf = 0;
		for (char *q = line; nf < 4; nf++) {
			f[nf] = q;
			q = strchr(q, '\t');
			if (!q) {
				nf++;
				break;
			}
			*q++ = 0;
		}
		if (nf != 4 || line[0] == '#')
			continue;
		uint64_t size = strtoull(f[2], NULL, 0), align = strtoull(f[3], NULL, 0);
		for (size_t k = 0; k < lm->nitems; k++) {
			struct linkmap_item *it = &lm->items[(next + k) % lm->nitems];
			if (it->kind == LM_INPUT && !it->align && it->size == size &&
			    !strcmp(it->text, f[1]) && !strcmp(it->object, f[0])) {
				it->align = align;
				next = (size_t)(it - lm->items) + 1;
				break;
			}
		}
	}
	strbuf_release(&sb);
}

int linkmap_write_align(const struct linkmap *lm, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int err;

	strbuf_addstr(&sb, "# lace: the alignment of each input section of the link map beside\n"
			   "# object\tsection\tsize\talign\n");
	for (size_t i = 0; i < lm->nitems; i++) {
		const struct linkmap_item *it = &lm->items[i];
		if (it->kind == LM_INPUT && it->align)
			strbuf_addf(&sb, "%s\t%s\t0x%" PRIx64 "\t%" PRIu64 "\n", it->object, it->text,
				    it->size, it->align);
	}
	err = fs_write_file(path, sb.buf, sb.len);
	strbuf_release(&sb);
	return err;
}

/* ---- loading -------------------------------------------------------------- */

int linkmap_load(const char *path, const char *objroot, struct linkmap *lm)
{
	struct strbuf sb = STRBUF_INIT, ap = STRBUF_INIT, root = STRBUF_INIT;
	struct parse ps = { lm, -1, -1, NULL, false };
	char *p, *start;
	int err;

	memset(lm, 0, sizeof(*lm));
	if ((err = strbuf_read_file(&sb, path)) < 0) {
		strbuf_release(&sb);
		return lace_error_set(-err, "%s: cannot read: %s", path, strerror(-err));
	}
	start = !strncmp(sb.buf, "Linker script and memory map\n", 29) ? sb.buf
		: strstr(sb.buf, "\nLinker script and memory map\n");
	if (!start) {
		strbuf_release(&sb);
		return lace_error_set(EINVAL, "%s: not a GNU ld link map (no \"Linker script and memory "
				      "map\")", path);
	}
	for (p = strchr(start + 1, '\n') + 1; *p;) {
		char *nl = strchr(p, '\n');

		if (nl)
			*nl = 0;
		line_parse(&ps, p);
		p = nl ? nl + 1 : p + strlen(p);
	}
	free(ps.pending);
	osec_close(&ps);
	strbuf_release(&sb);

	strbuf_addf(&ap, "%s.align", path);
	if (fs_is_file(ap.buf))
		align_from_file(lm, ap.buf);
	if (objroot) {
		strbuf_addstr(&root, objroot);
	} else {
		const char *slash = strrchr(path, '/');
		strbuf_addf(&root, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	}
	align_from_objects(lm, root.buf);
	for (size_t i = 0; i < lm->nitems; i++)
		lm->unaligned += lm->items[i].kind == LM_INPUT && lm->items[i].size &&
				 !lm->items[i].align;
	strbuf_release(&ap);
	strbuf_release(&root);
	return 0;
}

long linkmap_osec(const struct linkmap *lm, const char *name)
{
	for (size_t i = 0; i < lm->nosecs; i++)
		if (!strcmp(lm->osecs[i].name, name))
			return (long)i;
	return -1;
}

void linkmap_free(struct linkmap *lm)
{
	for (size_t i = 0; i < lm->nitems; i++) {
		free(lm->items[i].text);
		free(lm->items[i].object);
	}
	for (size_t i = 0; i < lm->nosecs; i++)
		free(lm->osecs[i].name);
	free(lm->items);
	free(lm->osecs);
	memset(lm, 0, sizeof(*lm));
}
