/* lace ab --same-execution; see ab_same.h. */
#include "pipeline/ab_same.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/symkeys.h"
#include "measure/model_results.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/xalloc.h"

/* EVENT[:k|:u] into the simulator's name and the replay's side */
static int event_split(const char *name, char *base, size_t len, const char **side)
{
	const char *colon = strrchr(name, ':');
	size_t n = colon ? (size_t)(colon - name) : strlen(name);

	*side = "counts";
	if (colon && !strcmp(colon, ":k"))
		*side = "kernel";
	else if (colon && !strcmp(colon, ":u"))
		*side = "user";
	else if (colon)
		return -EINVAL;
	if (n >= len)
		return -EINVAL;
	memcpy(base, name, n);
	base[n] = 0;
	return sim_event_index(base) < 0 ? -EINVAL : 0;
}

int ab_same_events_check(const struct strvec *events)
{
	for (size_t i = 0; i < events->nr; i++) {
		char base[64];
		const char *side;

		if (event_split(events->v[i], base, sizeof(base), &side))
			return lace_error_set(EINVAL, "-e %s: not an event the simulator counts "
					      "(--same-execution compares the model's events, "
					      "EVENT, EVENT:k or EVENT:u)", events->v[i]);
	}
	return 0;
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Before A's boot: is B a build of A's code at all?  Replay decides by
 * the executed code, after the boot; a B that holds few of A's function
 * names (another program, another kernel) is refused now.  Half is far
 * below what two builds of one source share (a relink or a placement
 * variant all of them, a stable update nearly all) and far above what
 * unrelated ELFs do. */
static int same_code_precheck(const char *va, const char *vb, const char *kernel_b)
{
	struct symkeys a, b;
	size_t found = 0;
	int rc;

	if ((rc = symkeys_load(va, &a)))
		return rc;
	if ((rc = symkeys_load(vb, &b))) {
		symkeys_free(&a);
		return rc;
	}
	char **names = xcalloc(b.n, sizeof(*names));
	for (size_t i = 0; i < b.n; i++)
		names[i] = b.v[i].key;
	qsort(names, b.n, sizeof(*names), key_cmp);
	for (size_t i = 0; i < a.n; i++)
		found += bsearch(&a.v[i].key, names, b.n, sizeof(*names), key_cmp) != NULL;
	if (!a.n || found * 2 < a.n)
		rc = lace_error_set(EINVAL, "%s is not a build of A's code: %zu of A's %zu functions "
				    "have their name in it", kernel_b, found, a.n);
	free(names);
	symkeys_free(&a);
	symkeys_free(&b);
	return rc;
}

int ab_same_prepare(struct placement_spec *spec)
{
	char *va = NULL, *vb = NULL;
	int rc;

	if ((rc = ab_same_events_check(&spec->events)) || (rc = ab_same_events_check(&spec->primaries)))
		return rc;
	for (size_t i = 0; i < spec->primaries.nr; i++)
		if (strvec_find(&spec->events, spec->primaries.v[i]) < 0)
			strvec_push(&spec->events, spec->primaries.v[i]);
	if (!(va = symkeys_build_of(spec->boot[0])) || !(vb = symkeys_build_of(spec->boot[1]))) {
		free(va);
		return -EINVAL;
	}
	if ((rc = same_code_precheck(va, vb, spec->boot[1]))) {
		free(va);
		free(vb);
		return rc;
	}
	spec->elf[0] = va;
	spec->elf[1] = vb;
	spec->same_build = fs_same_content(va, vb);
	return 0;
}
