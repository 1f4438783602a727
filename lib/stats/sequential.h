// Group-sequential designs: when to look at the data and how much of the
// error budget each look may spend, so that deciding early never raises the
// false-positive rate above its nominal level.
//
// The design is the one of repeated confidence intervals (Jennison &
// Turnbull, "Group Sequential Methods", ch. 9) with an alpha-spending
// function (Lan & DeMets 1983) of the Hwang-Shih-DeCani family:
//   spent(t) = alpha * (1 - exp(-gamma t)) / (1 - exp(-gamma)),  t = n / n_max
// Look k uses a confidence interval at level 1 - a_k with
//   a_k = spent(t_k) - spent(t_{k-1}).
// The a_k sum to alpha, so by the union bound the probability that ANY of
// the intervals a run looks at misses the true value is at most alpha,
// whatever the looks decide: stopping as soon as one interval is decisive
// cannot inflate the error rate. (The exact Armitage-McPherson-Rowe
// boundaries would spend a little less conservatively; the union bound needs
// no normality assumption, which rank intervals on this machine's noise do
// not give us.)
#pragma once

#include <cstddef>
#include <vector>

namespace bb::stats {

struct SequentialDesign {
  double alpha = 0.01;          // total two-sided error budget
  double gamma = 1.0;           // spending shape: 1 is Pocock-like (spends early), -4 O'Brien-Fleming-like
  std::vector<size_t> looks;    // sample counts (rounds) at which to decide, increasing
  std::vector<double> look_alpha;  // alpha spent at each look; sums to alpha
};

// Cumulative alpha spent at information fraction t in [0, 1].
double hsd_spending(double t, double alpha, double gamma);

// Looks at min_rounds, then every `growth` times more rounds, and always at
// max_rounds (the budget). growth > 1; min_rounds >= 1; max_rounds >= min_rounds.
SequentialDesign make_sequential_design(double alpha, size_t min_rounds, size_t max_rounds,
                                        double growth = 1.5, double gamma = 1.0);

// Index of the look at `rounds`, or -1 if the design does not look there.
int look_index(const SequentialDesign& d, size_t rounds);

}  // namespace bb::stats
