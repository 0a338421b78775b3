/* Which builds a comparison compares; see build_scope.h. */
#include "measure/build_scope.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/fs.h"
#include "util/sha256.h"

int (*build_scope_build_id_reader)(const char *path, char *hex, size_t len);

void build_scope_add(struct build_scope *s, enum build_kind k, const char *fmt, ...)
{
	char clause[sizeof(s->why)];
	va_list ap;

	if (k < s->kind)
		return;
	va_start(ap, fmt);
	vsnprintf(clause, sizeof(clause), fmt, ap);
	va_end(ap);
	if (k > s->kind) {
		s->kind = k;
		s->why[0] = '\0';
	}
	size_t l = strlen(s->why);
	snprintf(s->why + l, sizeof(s->why) - l, "%s%s", l ? "; " : "", clause);
}

bool build_scope_two(const struct build_scope *s)
{
	return s->kind != BUILDS_SAME;
}

const char *build_scope_kind_name(enum build_kind k)
{
	return k == BUILDS_SAME ? "same" : k == BUILDS_DIFFERENT ? "different" : "unknown";
}

const char *build_scope_label(const struct build_scope *s)
{
	return build_scope_two(s) ? "two binaries" : "one build";
}

void build_scope_file_id(const char *path, char *id, size_t len)
{
	char hex[160] = "";

	if (!fs_is_file(path)) {
		snprintf(id, len, "%s", path);
		return;
	}
	/* a build-id names the build whatever else differs (a stripped copy) */
	if (build_scope_build_id_reader && !build_scope_build_id_reader(path, hex, sizeof(hex)) && hex[0]) {
		snprintf(id, len, "build-id %s", hex);
		return;
	}
	if (sha256_file_hex(path, hex)) {
		/* unreadable: only the name is left to tell it by */
		snprintf(id, len, "%s", path);
		return;
	}
	snprintf(id, len, "sha256 %s", hex);
}

/* "build-id 1a2b3c4d5e6f..." : enough of an identity to tell two apart */
static void short_id(char *out, size_t len, const char *id)
{
	const char *sp = strchr(id, ' ');
	size_t keep = sp ? (size_t)(sp - id) + 1 + 12 : 40;

	snprintf(out, len, "%.*s%s", (int)keep, id, strlen(id) > keep ? "..." : "");
}

void build_scope_files(struct build_scope *s, const char *what, const char *a, const char *b)
{
	char ia[200], ib[200], sa[64], sb[64];

	build_scope_file_id(a, ia, sizeof(ia));
	build_scope_file_id(b, ib, sizeof(ib));
	short_id(sa, sizeof(sa), ia);
	short_id(sb, sizeof(sb), ib);
	if (!strcmp(ia, ib))
		build_scope_add(s, BUILDS_SAME, "one %s on both sides, %s", what, sa);
	else
		build_scope_add(s, BUILDS_DIFFERENT, "the %ss differ: %s and %s", what, sa, sb);
}

json_t *build_scope_json(const struct build_scope *s)
{
	return json_pack("{s:s,s:s}", "builds", build_scope_kind_name(s->kind), "why", s->why);
}

void build_scope_from_json(const json_t *j, struct build_scope *s)
{
	const char *k = json_string_value(json_object_get(j, "builds"));
	const char *why = json_string_value(json_object_get(j, "why"));

	memset(s, 0, sizeof(*s));
	if (!k) {
		build_scope_add(s, BUILDS_UNKNOWN, "the results file does not say: written before lace recorded it");
		return;
	}
	s->kind = !strcmp(k, "same") ? BUILDS_SAME : !strcmp(k, "different") ? BUILDS_DIFFERENT : BUILDS_UNKNOWN;
	snprintf(s->why, sizeof(s->why), "%s", why ? why : "");
}

void build_scope_note(const struct build_scope *s, const struct layout_noise *ln, const char *src,
		      struct strbuf *sb)
{
	struct strbuf spread = STRBUF_INIT;

	layout_noise_describe(ln, &spread);
	if (!build_scope_two(s)) {
		if (spread.len)
			strbuf_addf(sb, "layout spread %s (%s) not folded in: A and B are one build, so one "
					"layout (%s)\n", spread.buf, src, s->why);
		strbuf_release(&spread);
		return;
	}
	strbuf_addstr(sb, "two binaries, not a placement: ");
	if (s->kind == BUILDS_DIFFERENT)
		strbuf_addf(sb, "A and B are different builds (%s)", s->why);
	else
		strbuf_addf(sb, "lace cannot tell whether A and B are one build (%s) and takes them as two",
			    s->why);
	strbuf_addstr(sb, "; these verdicts judge the two binaries, one layout draw each, not their "
			  "placement. To judge the placement: lace ab --same-execution (recorded executions "
			  "replayed through virtual layouts of both builds)\n");
	if (spread.len)
		strbuf_addf(sb, "layout spread %s folded into the intervals (%s: the sd of an event across "
				"layouts of one build, one draw a side: se^2 + 2 sd^2 on the log scale); the "
				"verdicts use the widened intervals\n", spread.buf, src);
	else
		strbuf_addstr(sb, "no layout spread folded in (a relink alone can move L1i misses by "
				  "percents): give a known one with --layout-noise PCT\n");
	strbuf_release(&spread);
}
