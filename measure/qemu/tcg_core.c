/* Pure parts of the TCG plugin; see tcg_core.h. */
#include "measure/qemu/tcg_core.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const uint8_t tcg_mark_open_x86[TCG_MARK_LEN] = { 0x0f, 0x1f, 0x80, 0x4f, 0x43, 0x41, 0x4c };
const uint8_t tcg_mark_close_x86[TCG_MARK_LEN] = { 0x0f, 0x1f, 0x80, 0x43, 0x43, 0x41, 0x4c };

enum tcg_mark tcg_mark_kind(const uint8_t *bytes, size_t len)
{
	if (len != TCG_MARK_LEN || !bytes)
		return TCG_MARK_NONE;
	if (!memcmp(bytes, tcg_mark_open_x86, TCG_MARK_LEN))
		return TCG_MARK_OPEN;
	if (!memcmp(bytes, tcg_mark_close_x86, TCG_MARK_LEN))
		return TCG_MARK_CLOSE;
	return TCG_MARK_NONE;
}

#define FIELDS(X) X(instructions) X(l1i_loads) X(l1i_misses) X(itlb_loads) \
	X(itlb_misses) X(stlb_loads) X(stlb_misses) X(fetch_blocks)

void tcg_split_account(struct tcg_split *w, int kernel, const struct sim_totals *now,
		       struct sim_totals *last)
{
	struct sim_totals *side = kernel ? &w->k : &w->u;

#define ADD(f) side->f += now->f - last->f;
	FIELDS(ADD)
#undef ADD
	*last = *now;
}

int tcg_split_format(char *buf, size_t size, unsigned window, const struct tcg_split *w)
{
	return snprintf(buf, size,
			"window %u"
#define FMT(f) " u." #f "=%" PRIu64
			FIELDS(FMT)
#undef FMT
#define FMT(f) " k." #f "=%" PRIu64
			FIELDS(FMT)
#undef FMT
			"\n", window
#define ARG(f) , w->u.f
			FIELDS(ARG)
#undef ARG
#define ARG(f) , w->k.f
			FIELDS(ARG)
#undef ARG
			);
}

static uint64_t *split_field(struct tcg_split *w, const char *key, size_t len)
{
	struct sim_totals *side;

	if (len > 2 && key[0] == 'u' && key[1] == '.')
		side = &w->u;
	else if (len > 2 && key[0] == 'k' && key[1] == '.')
		side = &w->k;
	else
		return NULL;
	key += 2;
	len -= 2;
#define KEY(f) if (len == sizeof(#f) - 1 && !memcmp(key, #f, len)) return &side->f;
	FIELDS(KEY)
#undef KEY
	return NULL;
}

int tcg_split_parse(const char *line, unsigned *window, struct tcg_split *w)
{
	const char *p;
	char *end;
	unsigned long n;

	if (strncmp(line, "window ", 7))
		return -1;
	n = strtoul(line + 7, &end, 10);
	if (end == line + 7)
		return -1;
	memset(w, 0, sizeof(*w));
	*window = (unsigned)n;
	p = end;
	while (*p == ' ') {
		const char *key = ++p, *eq = strchr(key, '=');
		uint64_t *field;

		if (!eq)
			return -1;
		field = split_field(w, key, (size_t)(eq - key));
		if (!field)
			return -1;
		*field = strtoull(eq + 1, &end, 10);
		if (end == eq + 1)
			return -1;
		p = end;
	}
	return *p == '\n' || *p == '\0' ? 0 : -1;
}
