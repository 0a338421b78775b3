/* Reading 4 of lace study, "entry text moved out, slow paths pushed
 * cold", judged with the placement design (design.md, "Same execution";
 * pipeline/placement.h; the kernel study's reading 4 is the same design):
 *  - E executions of baseline's hackbench are recorded under the
 *    simulator (lace stat --backend sim --record), execution e with an
 *    environment 16 e characters larger (LACE_PERTURB: the environment's
 *    size moves the stack, Mytkowicz et al. 2009), which is another
 *    execution of the same code wherever the simulated run depends on it;
 *  - each recording is replayed (lace replay --virtual K) through K
 *    paired draws of baseline and of each variant, one job per variant (a
 *    variant replay refuses is not measured alone), fresh draws per
 *    execution; and through 2K draws of baseline alone (A vs A: draw 2k-1
 *    against 2k);
 *  - the first execution also through >= 1,000 draws of baseline's own
 *    family (where baseline as built ranks among them) and through the
 *    randomized builds of baseline (lace build --shuffle) as built (where
 *    they rank among the draws);
 *  - each variant's own live run: whether the execution depends on the
 *    build.
 * study_r4.c queues the jobs, study_analysis.c judges what they measured
 * and stores it, study_r4_report.c says it. */
#ifndef LACE_PIPELINE_STUDY_R4_H
#define LACE_PIPELINE_STUDY_R4_H

#include <stdio.h>

#include <jansson.h>

#include "pipeline/study_jobs.h"
#include "util/strbuf.h"

struct study_r4_spec {
	const char *variants_dir;   /* OUT/variants: NAME/hackbench */
	const char *runs_dir;       /* OUT/runs: the recordings */
	const json_t *variants;     /* the variants judged (baseline is not one) */
	const json_t *shuffles;     /* the randomized builds of baseline */
	const char *args;           /* hackbench's arguments */
	const char *events;         /* every event counted, comma-separated */
	unsigned executions, draws, family_draws;
};

/* Queue reading 4's recordings, replays and live runs into q, its
 * results skeleton into res's "q4_placement". */
void study_r4_queue(struct study_jobs *q, json_t *res, const struct study_r4_spec *s);

/* The report's section (Markdown), its figures (HTML) and the terminal's
 * lines, from results.json's "q4_placement" alone. */
void study_r4_section(struct strbuf *sb, const json_t *res);
void study_r4_figures(struct strbuf *html, const json_t *res);
void study_r4_summary(const json_t *res, FILE *f);

#endif
