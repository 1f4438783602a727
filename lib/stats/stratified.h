// A rank test that is not swayed by a host flipping between speed states.
//
// On a box whose clock drops now and then, or whose neighbour wakes up, a
// benchmark's runs fall into two or three clusters far apart (a 30 % gap),
// each tight (1 %). Two result files hold different shares of slow runs by
// chance, and a plain Mann-Whitney reads the difference in shares as a
// shift: most of its noise is the flip. Comparing like with like, base's
// fast runs with head's fast runs and slow with slow, removes it.
//
// speed_state_cuts() finds the clusters in the pooled sample (labels
// unseen, so under "no change" the labels stay exchangeable within each
// cluster and the test below keeps its level). stratified_shift_test() is
// van Elteren's stratified Wilcoxon-Mann-Whitney test (each cluster's U
// weighted by 1/(N_k + 1), normal approximation), with the common shift
// estimated and bounded by inverting it: a weighted Hodges-Lehmann median of
// the within-cluster differences and weighted quantiles of them. With one
// cluster it is the normal-approximation Mann-Whitney interval.
#pragma once

#include <cstddef>
#include <vector>

#include "stats/rank_tests.h"

namespace bb::stats {

struct StrataOptions {
  // A cut goes in a gap this many times wider than the robust spread (MAD)
  // of the values on either side of it ...
  double min_gap_ratio = 2.5;
  // ... and at least this wide: states closer than this are not worth
  // telling apart (and a coarse timer's steps are not states).
  double min_gap = 0.03;
  // Each cluster holds at least max(min_stratum, N * min_stratum_share)
  // values, so that a few outliers never form one.
  size_t min_stratum = 6;
  double min_stratum_share = 0.1;
  size_t max_strata = 3;
};

// Cut points, ascending, between the clusters of `pooled` (log values);
// empty when it is one cluster.
std::vector<double> speed_state_cuts(std::vector<double> pooled, const StrataOptions& options = {});

// The cluster of v: the number of cuts below it.
size_t stratum_of(double v, const std::vector<double>& cuts);

struct StratifiedTest {
  RankTest test;  // estimate, interval and two-sided p of x's shift relative to y
  std::vector<size_t> x_counts, y_counts;  // values of x and y in each cluster
  // Chi-square test that x and y fall into the clusters in the same
  // proportions. Small: the shares differ more than chance allows, so the
  // "flip" may be the change itself (a new slow path taken in some runs),
  // and a stratified comparison would hide it.
  double balance_p = 1;
};

// x's values are placed in clusters as x - x_offset, so that the shift
// being estimated (pass a first estimate of it) moves none across a cut.
StratifiedTest stratified_shift_test(const std::vector<double>& x, const std::vector<double>& y,
                                     const std::vector<double>& cuts, double confidence, double x_offset = 0);

}  // namespace bb::stats
