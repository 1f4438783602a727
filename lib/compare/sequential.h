// Sequential sampling for the runner: after each interleaved round it asks
// whether to run another. The answer comes from a group-sequential design
// (lib/stats/sequential.h): at planned looks the engine computes the
// benchmark's interval at that look's share of the error budget and stops as
// soon as the verdict is decided (regressed, improved or unchanged), or when
// the budget of rounds is exhausted. Between looks it always says continue,
// without computing anything.
#pragma once

#include <string>

#include "compare/compare.h"
#include "stats/sequential.h"

namespace bb::compare {

struct SequentialOptions {
  size_t min_rounds = 10;   // first look
  size_t max_rounds = 300;  // the budget: the runner derives it from its time limit
  double growth = 1.5;      // next look after `growth` times more rounds
  double gamma = 1.0;       // alpha-spending shape (see stats/sequential.h)
};

struct SequentialStep {
  bool stop = false;            // false: run another round
  bool budget_exhausted = false;
  int look = -1;                // which planned look this was (-1: not a look)
  double look_confidence = 0;   // the interval level used at this look
  BenchmarkComparison result;   // valid when look >= 0
};

class SequentialSampler {
 public:
  // options.confidence sets the total error budget (alpha = 1 - confidence).
  SequentialSampler(Options options, SequentialOptions sequential);

  // Called after every round with all samples so far (rounds filled in).
  // out_of_time: the runner's time budget is spent; this becomes the final
  // look and uses all the error budget that is left (still at most alpha in
  // total, because when time runs out does not depend on the data's ratio).
  SequentialStep update(const model::Benchmark& base, const model::Benchmark& head, bool out_of_time = false);

  const stats::SequentialDesign& design() const { return design_; }

 private:
  Options options_;
  stats::SequentialDesign design_;
  double spent_ = 0;  // alpha spent by the looks taken so far
};

}  // namespace bb::compare
