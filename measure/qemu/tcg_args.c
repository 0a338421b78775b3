/* The TCG plugin's arguments; see tcg_core.h. */
#include "measure/qemu/tcg_core.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "util/array.h"
#include "util/error.h"
#include "util/parse_num.h"

/* The numeric keys: where each goes and its largest value. */
static int number_key(struct tcg_args *a, const char *k, size_t klen, uint64_t **u64,
		      uint32_t **u32)
{
	static const struct { const char *name; size_t off; int wide; } keys[] = {
		{ "l1i_size", offsetof(struct sim_config, l1i_size), 1 },
		{ "l1i_ways", offsetof(struct sim_config, l1i_ways), 0 },
		{ "l1i_line", offsetof(struct sim_config, l1i_line), 0 },
		{ "itlb_entries", offsetof(struct sim_config, itlb_entries), 0 },
		{ "itlb_ways", offsetof(struct sim_config, itlb_ways), 0 },
		{ "stlb_entries", offsetof(struct sim_config, stlb_entries), 0 },
		{ "stlb_ways", offsetof(struct sim_config, stlb_ways), 0 },
		{ "page", offsetof(struct sim_config, page), 1 },
		{ "fetch_block", offsetof(struct sim_config, fetch_block), 0 },
		{ "large_page", offsetof(struct sim_config, large_page), 1 },
		{ "litlb_entries", offsetof(struct sim_config, litlb_entries), 0 },
		{ "litlb_ways", offsetof(struct sim_config, litlb_ways), 0 },
		{ "stlb_large", offsetof(struct sim_config, stlb_large), 0 },
		{ "large_lo", offsetof(struct sim_config, large_lo), 1 },
		{ "large_hi", offsetof(struct sim_config, large_hi), 1 },
	};

	*u64 = NULL;
	*u32 = NULL;
	if (klen == strlen("switch") && !strncmp(k, "switch", klen)) {
		*u64 = &a->switch_addr;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		struct sim_config *cfg = a->nmore ? &a->more[a->nmore - 1] : &a->cfg;
		char *field = (char *)cfg + keys[i].off;

		if (klen != strlen(keys[i].name) || strncmp(k, keys[i].name, klen))
			continue;
		if (keys[i].wide)
			*u64 = (uint64_t *)(void *)field;
		else
			*u32 = (uint32_t *)(void *)field;
		return 0;
	}
	return -ENOENT;
}

static int arg_parse(struct tcg_args *a, const char *arg)
{
	const char *eq = strchr(arg, '=');
	const char *v;
	size_t klen;
	uint64_t *u64;
	uint32_t *u32;
	unsigned long x;

	if (!eq)
		return lace_error_set(EINVAL, "argument is not key=value: %s", arg);
	klen = (size_t)(eq - arg);
	v = eq + 1;
	if (!*v)
		return lace_error_set(EINVAL, "%.*s: empty value", (int)klen, arg);
	if (klen == 3 && !strncmp(arg, "out", 3)) {
		a->out = v;
		return 0;
	}
	if (klen == 3 && !strncmp(arg, "map", 3)) {
		a->map = v;
		return 0;
	}
	if (klen == 6 && !strncmp(arg, "record", 6)) {
		a->record = v;
		return 0;
	}
	if (klen == 4 && !strncmp(arg, "path", 4)) {
		if (a->npath == TCG_MAX_PATHS)
			return lace_error_set(EINVAL, "more than %d path= functions", TCG_MAX_PATHS);
		a->path[a->npath++] = v;
		return 0;
	}
	if (klen == 7 && !strncmp(arg, "profile", 7)) {
		if (a->nmore == TCG_MAX_PROFILES - 1)
			return lace_error_set(EINVAL, "more than %d profiles", TCG_MAX_PROFILES);
		a->more_name[a->nmore] = v;
		a->more[a->nmore++] = (struct sim_config)SIM_CONFIG_SKYLAKE;
		return 0;
	}
	if (klen == 3 && !strncmp(arg, "exc", 3)) {
		if (a->nexc == TCG_MAX_EXC)
			return lace_error_set(EINVAL, "more than %d exc= addresses", TCG_MAX_EXC);
		if (parse_ulong(v, &x))
			return lace_error_set(EINVAL, "exc: '%s' is not an address", v);
		a->exc[a->nexc++] = x;
		return 0;
	}
	if (number_key(a, arg, klen, &u64, &u32))
		return lace_error_set(EINVAL, "unknown argument: %.*s", (int)klen, arg);
	if (parse_ulong(v, &x)) {
		char why[256];

		snprintf(why, sizeof(why), "%s", lace_error_msg());
		return lace_error_set(EINVAL, "%.*s: %s", (int)klen, arg, why);
	}
	if (u32 && x > UINT32_MAX)
		return lace_error_set(EINVAL, "%.*s: %s is out of range", (int)klen, arg, v);
	if (u64)
		*u64 = x;
	else
		*u32 = (uint32_t)x;
	return 0;
}

int tcg_args_parse(int argc, char *const *argv, struct tcg_args *a)
{
	memset(a, 0, sizeof(*a));
	a->cfg = (struct sim_config)SIM_CONFIG_SKYLAKE;
	for (int i = 0; i < argc; i++) {
		int err = arg_parse(a, argv[i]);

		if (err)
			return err;
	}
	return 0;
}
