/* lace study: what the measured rows mean, computed once after the runs
 * and stored in the results (so the report only renders numbers):
 * the layout noise floor of each workload, the marginal cost of the
 * disabled tracepoint as a slope over sizes, and the rank of each
 * placement variant among the randomized-layout builds. */
#ifndef LACE_PIPELINE_STUDY_ANALYSIS_H
#define LACE_PIPELINE_STUDY_ANALYSIS_H

#include <jansson.h>

/* The significance level of the rank verdicts (one-sided). */
#define STUDY_ALPHA 0.05

void study_analyse(json_t *results);

#endif
