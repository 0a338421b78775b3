/* Which builds a comparison compares: one build (the same binary run
 * twice: an A/A comparison, one ELF or kernel on both sides), two builds
 * (build-ids or kernel images differ), or lace cannot tell (perf stat
 * output records no build-id; two different -A/-B commands), which it
 * takes as two.
 *
 * Why it matters: two builds are two layouts.  A relink alone moves a
 * kernel's L1i misses by an sd of 2.5-2.8 % (lace's kernel study), so a
 * verdict between two builds judges these two binaries -- one layout draw
 * each -- not their placement.  The placement has its own question, lace
 * ab --same-execution (recorded executions replayed through virtual
 * layouts of both builds), and a known layout spread can be folded into
 * the interval (--layout-noise, stats_ratio_fold()).  lace ab and lace
 * compare decide the scope here and print its one note from here. */
#ifndef LACE_MEASURE_BUILD_SCOPE_H
#define LACE_MEASURE_BUILD_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "measure/layout_noise.h"
#include "util/strbuf.h"

enum build_kind {
	BUILDS_SAME = 0,
	BUILDS_UNKNOWN,   /* taken as two */
	BUILDS_DIFFERENT,
};

struct build_scope {
	enum build_kind kind;
	char why[384];    /* how lace knows, clauses joined by "; " */
};

/* A part of the evidence: a different part makes the scope different
 * (its reason replaces weaker ones), else an unknown part makes it
 * unknown; reasons of the deciding kind accumulate.  Start from a zeroed
 * struct (one build, no reason). */
void build_scope_add(struct build_scope *s, enum build_kind k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Different or unknown: the verdicts judge two binaries. */
bool build_scope_two(const struct build_scope *s);
/* "same", "different", "unknown" */
const char *build_scope_kind_name(enum build_kind k);
/* The per-comparison JSON value: "two binaries" or "one build". */
const char *build_scope_label(const struct build_scope *s);

/* Reads an ELF's GNU build-id as lowercase hex (0, or -errno): measure/
 * reads no ELF, so the CLI sets this to layout's reader; NULL: files are
 * told apart by their content alone. */
extern int (*build_scope_build_id_reader)(const char *path, char *hex, size_t len);
/* A file's identity: "build-id HEX" when it is an ELF with one, else
 * "sha256 HEX" of its bytes (a bzImage); a name that is no file (a Debian
 * kernel lace fetches, e.g. 6.1.0-57-amd64) is its own identity.  Two
 * files are one build when their identities are equal. */
void build_scope_file_id(const char *path, char *id, size_t len);
/* A's and B's file of one kind (what: "kernel image", "ELF") added to
 * the scope: equal identities are one build, else two, with both named. */
void build_scope_files(struct build_scope *s, const char *what, const char *a, const char *b);

/* {"builds": "same"|"different"|"unknown", "why": ...}, for a results
 * file's header, and back; absent (a file from before lace recorded it)
 * reads as unknown. */
json_t *build_scope_json(const struct build_scope *s);
void build_scope_from_json(const json_t *j, struct build_scope *s);

/* The report's note on the scope, one line ending in \n each: for two
 * binaries, what the verdicts judge and how to ask about the placement;
 * then the layout spread ln folded in and where it came from (src, e.g.
 * "--layout-noise"), or how to give one.  For one build, nothing -- or,
 * when a spread was given, that it was not folded in (one build is one
 * layout). */
void build_scope_note(const struct build_scope *s, const struct layout_noise *ln, const char *src,
		      struct strbuf *sb);

#endif
