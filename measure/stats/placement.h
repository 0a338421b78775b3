/* The statistics of a placement verdict (issue 34; design.md, "Same
 * execution").  Pure: numbers in, numbers out.
 *
 * The estimand is the effect of B's placement over A's averaged over
 * executions e and incidental layouts pi, on the log scale:
 *     theta = E_e E_pi [ln Y_B(e, pi) - ln Y_A(e, pi)],
 * both arms laid out by the same draw pi (paired).  The design is nested:
 * E recorded executions, each replayed through K_e layout pairs, giving
 * the cells d[e][j] = ln(B/A).  Executions are the scarce level (each is
 * a boot), so the test is on the E per-execution means m_e:
 *  - a one-sample t test of mean(m) = 0, df E - 1, two-sided, with its
 *    confidence interval; the effect is reported as a percentage,
 *    100 (exp(x) - 1);
 *  - beside it a sign-flip permutation test of the same mean (under the
 *    null each m_e is symmetric about 0): exact over the 2^E sign
 *    patterns up to E = 20, else 100,000 seeded random patterns;
 *  - the Shapiro-Wilk test of the m_e (Royston's 1995 algorithm, AS R94)
 *    says whether the t test's normality holds; the sign-flip p does not
 *    need it;
 *  - TOST against +-margin (each one-sided test at alpha: the 1 - 2 alpha
 *    interval inside the margin);
 *  - the smallest effect the design detects with 80% power at alpha,
 *    two-sided: (t(1 - alpha/2, E-1) + t(0.8, E-1)) * sd(m) / sqrt(E), as
 *    a percentage;
 *  - the variance components of the nested design: within an execution
 *    (across draws), s_w^2 = the mean of the executions' sample
 *    variances; between executions, s_b^2 = var(m) - s_w^2 / K (the
 *    harmonic mean of the K_e), at least 0.
 * placement_choose() picks E and K for a target smallest effect from a
 * pilot's components and the costs of a boot and of a replay; the verdict
 * puts the pieces together.  Every comparison with alpha is p <= alpha. */
#ifndef LACE_MEASURE_STATS_PLACEMENT_H
#define LACE_MEASURE_STATS_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct placement_result {
	size_t E;                  /* executions with at least one cell */
	size_t cells;              /* all cells */
	double k_harmonic;         /* harmonic mean of the K_e */
	double mean_log;           /* mean of the m_e: the estimate of theta */
	double sd_exec;            /* sd of the m_e */
	double se;                 /* sd_exec / sqrt(E) */
	double effect, ci_low, ci_high;   /* percent: 100 (exp(x) - 1) */
	double t, df, p;           /* one-sample t, two-sided */
	double p_signflip;         /* sign-flip permutation p, two-sided */
	bool signflip_exact;
	double normality_w, normality_p;  /* Shapiro-Wilk of the m_e (E >= 3; else NaN) */
	double tost_p;             /* TOST within +-margin (percent) */
	double mde;                /* smallest detectable effect, percent (80%, alpha) */
	double var_within, var_between;  /* the components, log scale */
};

/* Analyse cells d[0..n) of executions exec[0..n) (0..E-1, in any order)
 * at alpha (0.05) with the equivalence margin in percent (1 for +-1%).
 * -EINVAL (message set) with fewer than 2 executions. */
int placement_analyze(const double *d, const size_t *exec, size_t n, double alpha, double margin,
		      uint64_t seed, struct placement_result *r);

/* Exact sign-flip p (two-sided) of mean(x) = 0 over all 2^n patterns
 * (n <= 20), else a Monte Carlo estimate from `trials` seeded patterns
 * ((1 + hits) / (1 + trials)).  *exact says which. */
double placement_signflip_p(const double *x, size_t n, uint64_t seed, size_t trials, bool *exact);

/* Shapiro-Wilk W and its p (Royston 1995, AS R94) of x[0..n), 3 <= n <=
 * 5000; NaN otherwise or when every value is the same. */
double placement_shapiro_wilk(const double *x, size_t n, double *w);

/* The smallest effect (percent) the design detects with power 0.8 at
 * alpha, two-sided, from the sd of the per-execution means and E. */
double placement_mde(double sd_exec, size_t E, double alpha);

/* E and K for a smallest detectable effect of target percent: the
 * components (log scale) of a pilot, the cost of one execution (a boot)
 * and of one cell (a replay of A and B), K in [k_min, k_max], E at least
 * e_min, the whole at most budget (the costs' unit; 0: no budget).
 * *E, *K the choice; returns the smallest effect it reaches (percent):
 * the target or better, else the best the budget allows. */
double placement_choose(double var_between, double var_within, double cost_exec, double cost_cell,
			double target, double alpha, size_t e_min, size_t k_min, size_t k_max,
			double budget, size_t *E, size_t *K);

enum placement_verdict {
	PV_NO_VERDICT = 0,   /* the design cannot see an effect of the margin */
	PV_SLOWER,           /* B is significantly above A */
	PV_FASTER,           /* B is significantly below A */
	PV_EQUIVALENT,       /* TOST: the effect lies inside +-margin */
	PV_INCONCLUSIVE,     /* the design could see one, neither test decided */
};

/* The verdict of one primary event: slower or faster when its Holm p
 * (over the primaries) is <= alpha; else equivalent when tost_p <= alpha;
 * else "no verdict possible" when the smallest detectable effect is above
 * the margin; else inconclusive. */
enum placement_verdict placement_verdict(const struct placement_result *r, double p_holm,
					 double alpha, double margin);
const char *placement_verdict_name(enum placement_verdict v);

#endif
