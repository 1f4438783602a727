// The unpaired comparison (two result files, no rounds to pair): a
// Mann-Whitney test on log values, or, when the runs fall into clusters far
// apart (a host flipping between speed states), van Elteren's stratified
// test within them. Internal to the engine.
#pragma once

#include <string>
#include <vector>

#include "stats/rank_tests.h"

namespace bb::compare {

struct UnpairedTest {
  stats::RankTest test;  // head's log shift relative to base
  std::string method;    // "mann-whitney" or "mann-whitney-stratified"
  double noise = 0;      // robust spread of the log values (within clusters when stratified)
  std::string note;      // what the clusters were, when there were any
};

// Clusters whose shares of base and head runs differ at this level are not
// stratified over: the change itself may have made some runs slow.
inline constexpr double kSpeedStateBalanceLevel = 0.05;

UnpairedTest unpaired_test(const std::vector<double>& log_base, const std::vector<double>& log_head,
                           double confidence);

}  // namespace bb::compare
