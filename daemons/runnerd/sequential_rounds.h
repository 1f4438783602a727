// Sequential sampling of one suite in a pull request job (`sequential:` in
// .benchbox.yml): from `repetitions` rounds on, after every round, each
// benchmark's compare::SequentialSampler says whether its verdict is
// decided; the suite stops once every benchmark is decided or its budget
// (max_repetitions rounds, max_seconds) is spent. The samplers' design keeps
// the false-positive rate at the engine's nominal level however early the
// suite stops (docs/statistics.md). What happened is recorded in each
// benchmark's extra.sequential so the report can say so.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "compare/sequential.h"
#include "config/suite.h"
#include "model/result_set.h"

namespace bb::runnerd {

using BenchmarkMap = std::map<model::BenchmarkKey, model::Benchmark>;

// One side's samples of the suite so far. `failed`: that side stopped
// measuring (its command failed), so nothing can be decided any more.
struct SideSoFar {
  const BenchmarkMap& benchmarks;
  bool failed = false;
};

class SequentialRounds {
 public:
  // `suite.sequential` must be set.
  explicit SequentialRounds(const config::Suite& suite);

  // After measured round `rounds` (1-based count) with every sample so far.
  // out_of_time: the suite's max_seconds are spent. Returns true when the
  // suite should stop: every benchmark is decided or out of budget.
  bool after_round(const SideSoFar& base, const SideSoFar& head, uint64_t rounds, bool out_of_time);

  // extra.sequential for a benchmark of this suite (either side).
  nlohmann::json record(const model::BenchmarkKey& key) const;

 private:
  struct PerBenchmark {
    std::unique_ptr<compare::SequentialSampler> sampler;  // created at the first look
    int looks = 0;
    bool stopped = false;
    bool budget_exhausted = false;
    uint64_t stopped_round = 0;
    std::string verdict;  // the engine's at the last look ("" before any)
    std::string note;     // why undecidable (one side failed or lacks it)
    double look_confidence = 0;
    size_t look_base = 0, look_head = 0;  // the samples each side had at the last look
  };

  PerBenchmark& state_for(const model::BenchmarkKey& key);
  void ask(PerBenchmark& st, const model::Benchmark& base, const model::Benchmark& head, uint64_t rounds,
           bool final_round);

  config::Suite suite_;
  compare::Options options_;
  std::map<model::BenchmarkKey, PerBenchmark> state_;
  uint64_t rounds_ = 0;
  bool out_of_time_ = false;
};

}  // namespace bb::runnerd
