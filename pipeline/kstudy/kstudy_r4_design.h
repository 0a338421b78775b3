/* Reading 4 of the kernel study: what its jobs measured, judged
 * (kstudy_r4_design.c), and the facts the jobs and the report share.
 *
 * The verdicts are those of pipeline/placement.h's design, computed with
 * measure/stats/placement.h: per pair A -> B, CPU profile and event the
 * cells d = ln(B/A) of each execution's K paired draws; the t test on the
 * E per-execution means, its sign-flip p, Shapiro-Wilk, TOST against the
 * margin, the smallest detectable effect; Holm over every pair x profile x
 * primary event.  The controls are judged first: a study whose controls
 * fail gives no verdicts. */
#ifndef LACE_PIPELINE_KSTUDY_R4_DESIGN_H
#define LACE_PIPELINE_KSTUDY_R4_DESIGN_H

#include <jansson.h>

#define KSTUDY_R4_NKERNELS 4
#define KSTUDY_R4_NPROFILES 2
#define KSTUDY_R4_NCONFLICTS 4
/* the family's draws per replay job */
#define KSTUDY_R4_FAMILY_CHUNK 250

/* the seed's pair, A -> B: the kprobes patch's .entry.text (ALIGN(8))
 * against the entry code in .text (the verdicts', the report's and the
 * same-draws check's first pair) */
#define KSTUDY_R4_SEED_A "x86_64-entry-align-8"
#define KSTUDY_R4_SEED_B "x86_64-entry-in-text"

/* the kernels whose boots are recorded, round robin, and whose draws
 * every execution is replayed through: baseline first */
extern const char *const kstudy_r4_kernels[KSTUDY_R4_NKERNELS];
/* the CPU profiles each execution is replayed on: Skylake, then the
 * seed's Core i7-920 */
extern const char *const kstudy_r4_profiles[KSTUDY_R4_NPROFILES];
/* the positive control's doses: N hot functions in one L1i set */
extern const unsigned kstudy_r4_conflicts[KSTUDY_R4_NCONFLICTS];

/* Judge reading 4's results (r: results.json's "r4_entry_text"), adding
 * "verdicts", "aa", "positive", "power", "family_checks", "live" and
 * "controls" to it. */
void kstudy_r4_judge(json_t *r);

#endif
