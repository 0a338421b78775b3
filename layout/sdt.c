/* SDT probes from .note.stapsdt (<sys/sdt.h>): one note per probe with
 * pc, the link-time address of .stapsdt.base, the semaphore, then
 * "provider\0name\0args\0".  If the file was prelinked or relocated, the
 * pc moves by how far .stapsdt.base moved, as systemtap computes it. */
#include "layout/image_priv.h"

#include <string.h>

#include "util/xalloc.h"

#define NT_STAPSDT 3

static uint64_t rd(const uint8_t *p, unsigned n, bool be)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[be ? i : n - 1 - i] << (8 * (n - 1 - i));
	return v;
}

int sdt_probes_load(struct lace_image *img)
{
	struct image_priv *p = image_priv(img);
	int notes = -1;
	bool have_base = false;
	uint64_t base_addr = 0;
	size_t alloc = 0;
	unsigned asz = p->elf64 ? 8 : 4;

	for (size_t i = 0; i < img->nsections; i++) {
		if (!strcmp(img->sections[i].name, ".note.stapsdt"))
			notes = (int)i;
		if (!strcmp(img->sections[i].name, ".stapsdt.base")) {
			have_base = true;
			base_addr = img->sections[i].addr;
		}
	}
	if (notes < 0)
		return 0;
	size_t len;
	const uint8_t *d = image_section_data(img, notes, &len);
	if (!d)
		return 0;
	for (size_t off = 0; off + 12 <= len;) {
		uint64_t namesz = rd(d + off, 4, p->big_endian);
		uint64_t descsz = rd(d + off + 4, 4, p->big_endian);
		uint64_t type = rd(d + off + 8, 4, p->big_endian);
		uint64_t name_off = off + 12, desc_off = name_off + ((namesz + 3) & ~3ull);
		uint64_t next = desc_off + ((descsz + 3) & ~3ull);
		if (namesz > len || descsz > len || next > len) {
			image_warn(img, ".note.stapsdt: truncated note at offset %zu", off);
			break;
		}
		off = (size_t)next;
		if (type != NT_STAPSDT || namesz != 8 || memcmp(d + name_off, "stapsdt", 8) ||
		    descsz < 3 * asz + 3)
			continue;
		const uint8_t *desc = d + desc_off;
		const char *s = (const char *)desc + 3 * asz, *end = (const char *)desc + descsz;
		const char *prov = s, *name = memchr(prov, 0, (size_t)(end - prov));
		if (!name || ++name >= end) /* no NUL: NULL + 1 is undefined */
			continue;
		const char *args = memchr(name, 0, (size_t)(end - name));
		if (!args || ++args > end)
			continue;
		const char *args_end = args < end ? memchr(args, 0, (size_t)(end - args)) : NULL;

		ALLOC_GROW(img->probes, img->nprobes + 1, alloc);
		struct lace_sdt_probe *pr = &img->probes[img->nprobes++];
		memset(pr, 0, sizeof(*pr));
		pr->pc = rd(desc, asz, p->big_endian);
		pr->base = rd(desc + asz, asz, p->big_endian);
		pr->semaphore = rd(desc + 2 * asz, asz, p->big_endian);
		if (have_base && pr->base)
			pr->pc += base_addr - pr->base;
		pr->provider = xstrdup(prov);
		pr->name = xstrdup(name);
		pr->args = args_end ? xstrndup(args, (size_t)(args_end - args)) : xstrdup("");
		pr->func = image_func_at(img, pr->pc);
	}
	return 0;
}
