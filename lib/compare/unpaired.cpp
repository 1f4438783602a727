#include "compare/unpaired.h"

#include <cmath>

#include "stats/describe.h"
#include "stats/stratified.h"

namespace bb::compare {

namespace {

std::string shares(const std::vector<size_t>& counts) {
  std::string s;
  for (size_t c : counts) s += (s.empty() ? "" : "/") + std::to_string(c);
  return s;
}

double pooled_noise(const std::vector<double>& lb, const std::vector<double>& lh) {
  const double mb = stats::mad(lb), mh = stats::mad(lh);
  return std::sqrt((mb * mb + mh * mh) / 2);
}

// Spread within the clusters: each value's distance from its cluster's
// median (head moved back by the estimated shift), pooled.
double within_noise(const std::vector<double>& lb, const std::vector<double>& lh, double shift,
                    const std::vector<double>& cuts) {
  std::vector<std::vector<double>> by(cuts.size() + 1);
  for (double v : lb) by[stats::stratum_of(v, cuts)].push_back(v);
  for (double v : lh) by[stats::stratum_of(v - shift, cuts)].push_back(v - shift);
  std::vector<double> residuals;
  for (auto& c : by) {
    const double m = stats::median(c);
    for (double v : c) residuals.push_back(v - m);
  }
  return stats::mad(residuals);
}

}  // namespace

UnpairedTest unpaired_test(const std::vector<double>& lb, const std::vector<double>& lh, double confidence) {
  UnpairedTest out;
  out.test = stats::mann_whitney_test(lh, lb, confidence);
  out.method = "mann-whitney";
  out.noise = pooled_noise(lb, lh);
  if (std::isnan(out.test.estimate)) return out;

  // Clusters of the pooled runs, head moved back by the first estimate so
  // that the change itself does not look like a cluster.
  const double shift = out.test.estimate;
  std::vector<double> pooled(lb);
  for (double v : lh) pooled.push_back(v - shift);
  const auto cuts = stats::speed_state_cuts(pooled);
  if (cuts.empty()) return out;

  const auto s = stats::stratified_shift_test(lh, lb, cuts, confidence, shift);
  const std::string states = std::to_string(cuts.size() + 1) + " speed states (runs per state, fastest first: base " +
                             shares(s.y_counts) + ", head " + shares(s.x_counts) + ")";
  if (s.balance_p < kSpeedStateBalanceLevel || std::isnan(s.test.estimate)) {
    out.note = "runs fell into " + states + " in different shares, so the change may be in the shares: compared "
               "unstratified";
    return out;
  }
  out.test = s.test;
  out.method = "mann-whitney-stratified";
  out.noise = within_noise(lb, lh, s.test.estimate, cuts);
  out.note = "the host switched between " + states + ": compared within each";
  return out;
}

}  // namespace bb::compare
