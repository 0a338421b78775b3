/* The layout model of one ELF: sections, regions, functions, branches,
 * jump-label sites and SDT probes.  Everything `lace layout` prints and
 * `lace diff` compares is a field here; JSON names follow these names
 * (doc/lace-layout.1 documents them).
 *
 * Indices (region, section, func) are positions in the image's arrays; -1
 * means none.  Addresses are link-time VMAs; for relocatable inputs every
 * SEC_ALLOC section is given its own distinct VMA at load time. */
#ifndef LACE_LAYOUT_IMAGE_H
#define LACE_LAYOUT_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lace_geometry {
	unsigned line;  /* cache line, bytes (64) */
	unsigned page;  /* page, bytes (4096) */
	unsigned fetch; /* fetch block, bytes (32) */
};
#define LACE_GEOMETRY_DEFAULT { 64, 4096, 32 }

enum lace_arch {
	LACE_ARCH_OTHER = 0,
	LACE_ARCH_X86_64,
	LACE_ARCH_PPC64LE,
	LACE_ARCH_PPC64, /* big-endian */
};

struct lace_section {
	char *name;
	uint64_t addr;
	uint64_t size;
	uint64_t file_offset;
	uint64_t flags;       /* bfd SEC_* flags */
	unsigned align_pow;   /* alignment = 1 << align_pow */
	bool code;            /* SEC_CODE */
	bool alloc;           /* SEC_ALLOC */
	int elf_index;        /* section header index */
};

enum lace_region_kind {
	LACE_REGION_SECTION, /* a whole code section not covered by markers */
	LACE_REGION_MARKER,  /* bracketed by start/end marker symbols */
	LACE_REGION_COLD,    /* the run of GCC .cold parts merged into .text */
};

/* A code sub-range that matters for placement.  Regions of one image never
 * cross: a marker region carves its range out of its section's region, and
 * marker regions may nest (the kernel's irqentry text lies inside its entry
 * text).  An address belongs to its innermost region (image_region_at());
 * nfuncs/func_bytes count the functions whose innermost region this is.
 * Sorted by start address, enclosing regions before those they hold. */
struct lace_region {
	char *name;          /* ".text", "entry", "noinstr", "cold", ".entry.text" ... */
	enum lace_region_kind kind;
	uint64_t start, end; /* [start, end) */
	int section;         /* containing section */
	char *start_symbol;  /* marker names, NULL for section regions */
	char *end_symbol;
	size_t nfuncs;
	uint64_t func_bytes; /* sum of function sizes inside */
	int parent;          /* the region enclosing this one, or -1 */
};

enum lace_suffix {
	LACE_SUFFIX_NONE = 0,
	LACE_SUFFIX_COLD,      /* .cold, .cold.N */
	LACE_SUFFIX_PART,      /* .part.N */
	LACE_SUFFIX_ISRA,      /* .isra.N */
	LACE_SUFFIX_CONSTPROP, /* .constprop.N */
	LACE_SUFFIX_LLVM,      /* .llvm.N */
	LACE_SUFFIX_OTHER,     /* some other .something.N */
};

struct lace_function {
	char *name;           /* symbol name as in the ELF */
	char *base_name;      /* name with compiler suffixes removed */
	uint64_t addr;
	uint64_t size;        /* st_size (libelf) */
	int section;
	int region;
	bool global;          /* STB_GLOBAL / STB_WEAK */
	char *file;           /* STT_FILE in force for a local symbol, or NULL */
	unsigned static_ordinal; /* n-th local of this name within the same file */
	enum lace_suffix suffix;
	int parent;           /* for a cold/part piece: its parent function, or -1 */
	/* geometry under the image's lace_geometry */
	uint64_t alignment;   /* largest power of two dividing addr (capped at page) */
	uint64_t pad_before;  /* gap since the previous function's end in its section */
	unsigned lines;       /* cache lines spanned */
	unsigned pages;       /* pages spanned */
	bool straddles_line;  /* spans more lines than its size needs */
	bool straddles_page;  /* spans more pages than its size needs */
	/* DWARF (absent: src_file NULL) */
	char *src_file;
	unsigned src_line;
	unsigned inlined;     /* inlined instances inside this function */
	/* branch range in image->branches: [first_branch, first_branch + nbranches) */
	size_t first_branch, nbranches;
};

enum lace_branch_kind {
	LACE_BR_JUMP,          /* direct unconditional jump */
	LACE_BR_COND,          /* direct conditional jump */
	LACE_BR_CALL,          /* direct call */
	LACE_BR_INDIRECT_JUMP,
	LACE_BR_INDIRECT_CALL,
	LACE_BR_RET,
};

struct lace_branch {
	uint64_t addr;
	uint64_t target;      /* 0 and has_target false when unknown */
	bool has_target;
	enum lace_branch_kind kind;
	int func;             /* function holding the instruction */
	int region;           /* region of the instruction */
	int target_region;    /* region of the target, -1 when unknown/outside */
	int target_func;
};

/* One kernel-style jump-label entry (code, target, key). */
struct lace_jump_site {
	uint64_t code;        /* address of the nop/jmp */
	uint64_t target;      /* the slow path */
	uint64_t key;         /* key address with the flag bits cleared */
	unsigned key_flags;   /* low bits of the key field as stored (bit 0 branch polarity;
			       * bit 1 is "init" only at run time: x86 objtool sets it at
			       * build time on most sites, so see init below) */
	bool init;            /* code lies in an init section (.init.text ...): freed after boot */
	char *table;          /* "__jump_table" or "__lace_jump_table" */
	int func;             /* function holding the site */
	int region;
	int target_func;
	int target_region;
	char *key_symbol;     /* symbol at key, or NULL */
};

struct lace_sdt_probe {
	char *provider;
	char *name;
	uint64_t pc;
	uint64_t base;        /* .stapsdt.base address recorded in the note */
	uint64_t semaphore;
	char *args;
	int func;
};

/* A sized symbol as `nm --size-sort` lists it with type t or T: defined in
 * a code section, not weak, not an ifunc or unique symbol, st_size > 0.
 * Aliases are separate entries (bloat-o-meter counts each name). */
struct lace_text_symbol {
	const char *name;     /* lives as long as the image */
	uint64_t size;
};
struct lace_image {
	char *path;
	enum lace_arch arch;
	char *arch_name;      /* bfd printable name, e.g. "i386:x86-64" */
	bool relocatable;     /* ET_REL: addresses were assigned by lace */
	bool has_symbols;     /* false: stripped, sections only */
	bool has_dwarf;
	bool disassembled;    /* branches filled */
	struct lace_geometry geom;

	struct lace_section *sections; size_t nsections;
	struct lace_region *regions;   size_t nregions;
	struct lace_function *funcs;   size_t nfuncs;   /* sorted by address */
	struct lace_branch *branches;  size_t nbranches;/* sorted by address */
	struct lace_jump_site *jumps;  size_t njumps;
	struct lace_sdt_probe *probes; size_t nprobes;
	struct lace_text_symbol *text_syms; size_t ntext_syms; /* .symtab order */

	char **warnings;      size_t nwarnings;   /* one line each */
	void *priv;           /* loader state (bfd, elf handles) */
};

struct lace_load_opts {
	struct lace_geometry geom;
	bool dwarf;           /* read DWARF when present */
	bool branches;        /* disassemble */
	/* called before each long step ("symbols", "DWARF", "branches") when
	 * set; the CLI shows it on a terminal */
	void (*progress)(void *arg, const char *step);
	void *progress_arg;
};

/* Load path; returns 0 and *out, or a negative code with lace_error_msg()
 * naming the reason (without the path). */
int image_load(const char *path, const struct lace_load_opts *opts, struct lace_image **out);
void image_free(struct lace_image *img);

/* Contents of section idx (relocated for ET_REL inputs), or NULL with
 * *len = 0 when it has none (SEC_NO_CONTENTS / unreadable).  Owned by img. */
const uint8_t *image_section_data(struct lace_image *img, int idx, size_t *len);

/* Lookups (binary search over sorted arrays); -1 when none. */
int image_func_at(const struct lace_image *img, uint64_t addr);
int image_region_at(const struct lace_image *img, uint64_t addr);

/* What kind of file path is (util/file_probe.h's facts, read with
 * libelf; layout/file_probe.c): the probe cli/ registers for the code
 * that must not read ELF itself (the qemu backend). */
struct file_facts;
int layout_file_probe(const char *path, struct file_facts *f);

#endif
