/* Jump-label sites from __jump_table / __lace_jump_table: found as a
 * section of that name or, in a linked kernel where the table sits inside
 * .data, between __start___jump_table and __stop___jump_table. */
#include "layout/jumptable.h"
#include "layout/image_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/xalloc.h"

static uint32_t rd32(const uint8_t *p, bool be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t rd64(const uint8_t *p, bool be)
{
	uint64_t a = rd32(p, be), b = rd32(p + 4, be);
	return be ? a << 32 | b : b << 32 | a;
}

void jump_entry_decode(const uint8_t *e, uint64_t entry_addr, bool big_endian,
		       struct lace_jump_site *site)
{
	int32_t code = (int32_t)rd32(e, big_endian);
	int32_t target = (int32_t)rd32(e + 4, big_endian);
	int64_t key = (int64_t)rd64(e + 8, big_endian);

	site->code = entry_addr + (uint64_t)(int64_t)code;
	site->target = entry_addr + 4 + (uint64_t)(int64_t)target;
	site->key_flags = (unsigned)((uint64_t)key & 3);
	site->key = (entry_addr + 8 + (uint64_t)key) & ~(uint64_t)3;
}

/* "sym" or "sym+0x10" for an address inside a sized symbol, else NULL */
static char *symbol_name_for(const struct lace_image *img, uint64_t addr)
{
	const struct image_symbol *s = image_symbol_at(img, addr);
	if (s)
		return xstrdup(s->name);
	const struct image_priv *p = image_priv(img);
	size_t lo = image_syms_upper(p, addr);
	/* a few back: a sized object may precede zero-sized labels */
	for (size_t i = lo, k = 0; i > 0 && k < 8; i--, k++) {
		const struct image_symbol *c = &p->syms[i - 1];
		if (c->size && addr - c->addr < c->size) {
			char buf[64];
			snprintf(buf, sizeof(buf), "+%#llx", (unsigned long long)(addr - c->addr));
			size_t n = strlen(c->name);
			char *r = xmalloc(n + strlen(buf) + 1);
			memcpy(r, c->name, n);
			strcpy(r + n, buf);
			return r;
		}
	}
	return NULL;
}

/* Sections the kernel frees after boot. */
static bool section_is_init(const struct lace_image *img, int sec)
{
	const char *n = sec >= 0 && (size_t)sec < img->nsections ? img->sections[sec].name : NULL;
	return n && (!strncmp(n, ".init.", 6) || !strncmp(n, ".exit.", 6) || strstr(n, "init.text"));
}

static bool in_code(const struct lace_image *img, uint64_t addr)
{
	int sec = image_section_at(img, addr);
	return sec >= 0 && img->sections[sec].code;
}

static void table_read(struct lace_image *img, size_t *alloc, const char *table, int sec,
		       uint64_t start, uint64_t end)
{
	struct image_priv *p = image_priv(img);
	size_t len;
	const uint8_t *d = image_section_data(img, sec, &len);
	const struct lace_section *s = &img->sections[sec];

	if (!d || start < s->addr || end < start || end - s->addr > len) {
		image_warn(img, "%s: table contents unreadable", table);
		return;
	}
	/* the relative format puts every site in code: if most entries decode
	 * outside it, this is the old absolute format (or not a jump table) */
	size_t total = 0, outside = 0;
	for (uint64_t a = start; a + LACE_JUMP_ENTRY_SIZE <= end; a += LACE_JUMP_ENTRY_SIZE) {
		struct lace_jump_site j;
		jump_entry_decode(d + (a - s->addr), a, p->big_endian, &j);
		total++;
		outside += !in_code(img, j.code);
	}
	if (total && outside * 2 > total) {
		image_warn(img, "%s: %zu of %zu entries point outside the code as relative entries: an old "
			   "absolute-format table (before HAVE_ARCH_JUMP_LABEL_RELATIVE)? sites not listed",
			   table, outside, total);
		return;
	}
	if ((end - start) % LACE_JUMP_ENTRY_SIZE)
		image_warn(img, "%s: size %llu is not a multiple of %d; trailing bytes ignored", table,
			   (unsigned long long)(end - start), LACE_JUMP_ENTRY_SIZE);
	for (uint64_t a = start; a + LACE_JUMP_ENTRY_SIZE <= end; a += LACE_JUMP_ENTRY_SIZE) {
		ALLOC_GROW(img->jumps, img->njumps + 1, *alloc);
		struct lace_jump_site *j = &img->jumps[img->njumps++];
		memset(j, 0, sizeof(*j));
		jump_entry_decode(d + (a - s->addr), a, p->big_endian, j);
		j->table = xstrdup(table);
		j->func = image_func_at(img, j->code);
		j->region = image_region_at(img, j->code);
		j->target_func = image_func_at(img, j->target);
		j->target_region = image_region_at(img, j->target);
		j->key_symbol = symbol_name_for(img, j->key);
		j->init = section_is_init(img, image_section_at(img, j->code));
	}
}

int jump_tables_load(struct lace_image *img)
{
	static const char *const tables[] = { "__jump_table", "__lace_jump_table" };
	size_t alloc = 0;

	for (size_t t = 0; t < ARRAY_SIZE(tables); t++) {
		bool found = false;
		for (size_t i = 0; i < img->nsections; i++) {
			const struct lace_section *s = &img->sections[i];
			if (strcmp(s->name, tables[t]))
				continue;
			table_read(img, &alloc, tables[t], (int)i, s->addr, s->addr + s->size);
			found = true;
		}
		if (found || !img->has_symbols)
			continue;
		char sn[64], en[64];
		snprintf(sn, sizeof(sn), "__start_%s", tables[t]);
		snprintf(en, sizeof(en), "__stop_%s", tables[t]);
		const struct image_symbol *st = image_symbol_find(img, sn), *sp = image_symbol_find(img, en);
		if (!st || !sp || sp->addr < st->addr)
			continue;
		int sec = image_section_at(img, st->addr);
		if (sec < 0 && sp->addr == st->addr)
			continue;
		if (sec < 0) {
			image_warn(img, "%s: %s is outside every section", tables[t], sn);
			continue;
		}
		table_read(img, &alloc, tables[t], sec, st->addr, sp->addr);
	}
	return 0;
}
