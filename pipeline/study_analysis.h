/* lace study: what the measured rows mean, computed once after the runs
 * and stored in the results (so the report only renders numbers, and
 * `lace study --report-only` recomputes them from the rows): the layout
 * noise floor of reading 1's workloads, the marginal cost of the disabled
 * tracepoint as a slope over sizes, and reading 4's judgement by the
 * placement design (study_r4.h): each variant's effect, test and verdict,
 * Holm over every variant x primary event, A vs A, whether the executions
 * differ, baseline as built among its family's draws. */
#ifndef LACE_PIPELINE_STUDY_ANALYSIS_H
#define LACE_PIPELINE_STUDY_ANALYSIS_H

#include <jansson.h>

void study_analyse(json_t *results);

#endif
