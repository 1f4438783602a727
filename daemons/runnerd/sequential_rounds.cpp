#include "sequential_rounds.h"

#include <algorithm>

namespace bb::runnerd {

SequentialRounds::SequentialRounds(const config::Suite& suite) : suite_(suite) {
  // The engine's defaults with the suite's own thresholds, as the reporter
  // will judge (they travel in the result set): a verdict the report would
  // not reach must not stop the sampling.
  options_.suite_thresholds[suite.name] = suite.thresholds;
}

SequentialRounds::PerBenchmark& SequentialRounds::state_for(const model::BenchmarkKey& key) {
  return state_[key];
}

void SequentialRounds::ask(PerBenchmark& st, const model::Benchmark& base, const model::Benchmark& head,
                           uint64_t rounds, bool final_round) {
  const size_t samples = std::min(base.samples.size(), head.samples.size());
  if (samples == 0) {
    st.stopped = true;
    st.stopped_round = rounds;
    st.note = "no samples to compare";
    return;
  }
  if (!st.sampler) {
    // The design counts samples. A harness may report several per round:
    // its looks and budget scale by that many (a look the samples jump
    // over is skipped, which only leaves error budget unspent).
    const size_t per_round = std::max<size_t>(1, samples / std::max<uint64_t>(1, rounds));
    compare::SequentialOptions seq;
    seq.min_rounds = samples;
    seq.max_rounds = std::max<size_t>(samples, per_round * suite_.sequential->max_repetitions);
    st.sampler = std::make_unique<compare::SequentialSampler>(options_, seq);
  }
  // The last round of the budget (or of the time) is a final look whatever
  // the sample count, so the suite never runs past its budget.
  compare::SequentialStep step = st.sampler->update(base, head, final_round);
  if (step.look >= 0) {
    ++st.looks;
    st.verdict = compare::to_string(step.result.verdict);
    st.look_confidence = step.look_confidence;
    st.look_base = base.samples.size();
    st.look_head = head.samples.size();
  }
  if (step.stop) {
    st.stopped = true;
    st.budget_exhausted = step.budget_exhausted;
    st.stopped_round = rounds;
  }
}

bool SequentialRounds::after_round(const SideSoFar& base, const SideSoFar& head, uint64_t rounds,
                                   bool out_of_time) {
  rounds_ = rounds;
  out_of_time_ = out_of_time_ || out_of_time;
  const bool final_round = out_of_time_ || rounds >= suite_.sequential->max_repetitions;
  // Only the metrics the report judges decide when to stop; the others
  // (context switches, say) are recorded along.
  const std::vector<std::string> shown = config::shown_metrics(suite_);
  std::vector<model::BenchmarkKey> keys;
  for (const auto* side : {&base.benchmarks, &head.benchmarks})
    for (const auto& [key, b] : *side)
      if (std::find(keys.begin(), keys.end(), key) == keys.end() &&
          (shown.empty() || std::find(shown.begin(), shown.end(), key.metric) != shown.end()))
        keys.push_back(key);

  bool all_stopped = true;
  for (const auto& key : keys) {
    PerBenchmark& st = state_for(key);
    if (st.stopped) continue;
    auto b = base.benchmarks.find(key), h = head.benchmarks.find(key);
    // Nothing more to learn from more rounds: the engine cannot compare it.
    std::string undecidable;
    if (base.failed || head.failed)
      undecidable = std::string("the ") + (base.failed ? "base" : "head") + " failed";
    else if (b == base.benchmarks.end() || h == head.benchmarks.end())
      undecidable = std::string("measured on the ") + (b == base.benchmarks.end() ? "head" : "base") + " only";
    else if (b->second.status != model::BenchmarkStatus::ok || h->second.status != model::BenchmarkStatus::ok)
      undecidable = "not measured ok on both sides";
    if (!undecidable.empty()) {
      st.stopped = true;
      st.stopped_round = rounds;
      st.note = undecidable;
      continue;
    }
    ask(st, b->second, h->second, rounds, final_round);
    all_stopped = all_stopped && st.stopped;
  }
  return all_stopped;
}

nlohmann::json SequentialRounds::record(const model::BenchmarkKey& key) const {
  nlohmann::json j = {{"rounds", rounds_},
                      {"min_rounds", suite_.repetitions},
                      {"max_rounds", suite_.sequential->max_repetitions},
                      {"stopped_early", rounds_ < suite_.sequential->max_repetitions},
                      {"out_of_time", out_of_time_},
                      {"budget_exhausted", false},
                      {"looks", 0}};
  if (suite_.sequential->max_seconds) j["max_seconds"] = suite_.sequential->max_seconds;
  auto it = state_.find(key);
  if (it == state_.end()) return j;
  const PerBenchmark& st = it->second;
  j["budget_exhausted"] = st.budget_exhausted;
  j["looks"] = st.looks;
  if (!st.verdict.empty()) {
    // The decision at the last look: its verdict, its interval level and
    // the samples it read. The report publishes exactly that decision
    // (compare.cpp), not a fixed-level test of every sample taken.
    j["verdict"] = st.verdict;
    j["look_confidence"] = st.look_confidence;
    j["look_samples"] = {st.look_base, st.look_head};
  }
  if (st.stopped && !st.budget_exhausted && st.note.empty()) j["decided_round"] = st.stopped_round;
  if (!st.note.empty()) j["note"] = st.note;
  return j;
}

}  // namespace bb::runnerd
