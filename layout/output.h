/* lace layout's three output formats, each in one file: output_text.c,
 * output_json.c, output_csv.c.  JSON field names are the struct field
 * names of layout/image.h (doc/lace-layout.1 lists them). */
#ifndef LACE_LAYOUT_OUTPUT_H
#define LACE_LAYOUT_OUTPUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "layout/image.h"

enum layout_table {
	LAYOUT_ALL = 0,
	LAYOUT_SECTIONS,
	LAYOUT_REGIONS,
	LAYOUT_FUNCTIONS,
	LAYOUT_JUMPS,
	LAYOUT_PROBES,
	LAYOUT_BRANCHES,
};

/* Human-readable tables (all, or one). */
void layout_print_text(FILE *f, const struct lace_image *img, enum layout_table what);
/* The model as one JSON object: the whole image, or the header fields and
 * one table.  Streamed element by element (a vmlinux has millions of
 * branches), each element built with jansson. */
void layout_print_json(FILE *f, const struct lace_image *img, enum layout_table what);
/* Single elements, for the streamer and for other commands' JSON. */
json_t *section_to_json(const struct lace_image *img, size_t i);
json_t *region_to_json(const struct lace_image *img, size_t i);
json_t *function_to_json(const struct lace_image *img, size_t i);
json_t *branch_to_json(const struct lace_image *img, size_t i);
json_t *jump_to_json(const struct lace_image *img, size_t i);
json_t *probe_to_json(const struct lace_image *img, size_t i);
/* "0x..." */
json_t *layout_json_hex(uint64_t v);
/* One CSV table with a header row: functions (LAYOUT_ALL too), branches,
 * sections, regions, jumps or probes.  Addresses are hex with 0x. */
void layout_print_csv(FILE *f, const struct lace_image *img, enum layout_table what);

/* Names used by every format. */
const char *region_kind_name(enum lace_region_kind k);
const char *arch_name(enum lace_arch a);
/* branch_kind_name() of layout/disasm.h */
const char *layout_branch_kind(enum lace_branch_kind k);

#endif
