#include "compare/sequential.h"

#include <algorithm>

namespace bb::compare {

SequentialSampler::SequentialSampler(Options options, SequentialOptions sequential)
    : options_(std::move(options)),
      design_(stats::make_sequential_design(1 - options_.confidence, sequential.min_rounds, sequential.max_rounds,
                                            sequential.growth, sequential.gamma)) {}

SequentialStep SequentialSampler::update(const model::Benchmark& base, const model::Benchmark& head,
                                         bool out_of_time) {
  SequentialStep step;
  const size_t rounds = std::min(base.samples.size(), head.samples.size());
  bool final_look = out_of_time;
  if (rounds >= design_.looks.back()) {
    step.look = int(design_.looks.size()) - 1;
    final_look = true;
  } else {
    step.look = stats::look_index(design_, rounds);
    if (step.look < 0 && !out_of_time) return step;  // not a planned look: keep sampling
    if (step.look < 0) step.look = int(design_.looks.size()) - 1;
  }
  // Planned looks spend what the design gives them; a final look spends the rest.
  double alpha = final_look ? design_.alpha - spent_ : design_.look_alpha[size_t(step.look)];
  alpha = std::max(alpha, 1e-12);
  spent_ += alpha;
  Options at_look = options_;
  at_look.confidence = 1 - alpha;
  step.look_confidence = at_look.confidence;
  step.result = compare_benchmark(base, head, at_look);
  const Verdict v = step.result.verdict;
  const bool decided = v == Verdict::regressed || v == Verdict::improved || v == Verdict::unchanged ||
                       v == Verdict::not_comparable;
  step.budget_exhausted = final_look;
  step.stop = decided || step.budget_exhausted;
  return step;
}

}  // namespace bb::compare
