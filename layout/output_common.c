/* Names shared by the output formats. */
#include "layout/output.h"

#include "layout/disasm.h"

const char *region_kind_name(enum lace_region_kind k)
{
	switch (k) {
	case LACE_REGION_SECTION: return "section";
	case LACE_REGION_MARKER: return "marker";
	case LACE_REGION_COLD: return "cold";
	}
	return "?";
}

const char *arch_name(enum lace_arch a)
{
	switch (a) {
	case LACE_ARCH_X86_64: return "x86-64";
	case LACE_ARCH_PPC64LE: return "ppc64le";
	case LACE_ARCH_PPC64: return "ppc64";
	case LACE_ARCH_OTHER: return "other";
	}
	return "other";
}

const char *layout_branch_kind(enum lace_branch_kind k)
{
	return branch_kind_name(k);
}
