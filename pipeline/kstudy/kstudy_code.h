/* lace study --kernel, reading 1: what a jump-label site's code does when
 * the key is off, read from the vmlinux itself (lace's layout model and
 * its branch decoder) rather than described by hand. */
#ifndef LACE_PIPELINE_KSTUDY_CODE_H
#define LACE_PIPELINE_KSTUDY_CODE_H

#include <jansson.h>

/* The jump-label sites in vmlinux whose key symbol starts with
 * key_prefix, as a new JSON array (empty: no site), one object each:
 *   function, site_offset      where the site is
 *   words[]                    {offset, word, kind} from 2 instructions
 *                              before the site to 3 after (ppc64: the
 *                              4-byte words; kind nop, b, bl, bc, blr, or
 *                              "other")
 *   slow_path {inline, function, region, offset, instructions}
 *                              where the tracepoint's call sits, and its
 *                              length: inline, up to the b that skips it;
 *                              out of line, up to the first branch that
 *                              leaves it (back, or a return)
 *   disabled_instructions      what a call with the key off executes of
 *                              the site: 1 (the nop, then falls through)
 *                              or 2 (the nop and a taken b over an inline
 *                              slow path)
 *   before_site {instructions, mr, branches}
 *                              the instructions from the function's start
 *                              to the site, how many are register moves
 *                              (`mr`: what a call's operands add) and how
 *                              many jump or branch (0: every call runs
 *                              them all)
 * 0, or -errno with the message set (ppc64le only: -ENOTSUP otherwise). */
int kstudy_site_code(const char *vmlinux, const char *key_prefix, json_t **out);

#endif
