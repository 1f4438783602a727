// The runner's side of a bisection, for tests that play it against a real
// benchbox-queued and benchbox-reporterd (bisect_test.cpp, the dashboard's
// browser test): claim each compare job and answer it as a box would where
// one commit of a range made the benchmark slower.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reporterd_fixture.h"

namespace bb::test {

// Claims the next queued job as the test's runner, if one is queued now.
inline bool try_claim(ReporterFixture& s, nlohmann::json& job) {
  int64_t id = 0;
  return !s.queue->claim("test-runner", 60, &id, &job) && id != 0;
}

// The next queued job, claimed: null when none is queued within the wait
// (a test that expects one waits long: an ASan reporterd beside a compiler
// is slow; one that expects none asks for a short wait).
inline nlohmann::json claim_next(ReporterFixture& s, int seconds = 30) {
  nlohmann::json job;
  const bool claimed = wait_until([&] { return try_claim(s, job); }, std::chrono::seconds(seconds));
  return claimed ? job : nlohmann::json();
}

// Claims and answers (`each`) every job reporterd queues until `done()`
// holds; returns how many it answered. What ends a bisection is its
// outcome, never a pause: under ASan, beside the compiler the test command
// runs next to these tests, reporterd may take seconds to queue the next
// step. Fails when neither a job nor the outcome came within `seconds`.
template <class Each>
int answer_until(ReporterFixture& s, const std::function<bool()>& done, Each each, int seconds = 60) {
  for (int answered = 0;; ++answered) {
    nlohmann::json job;
    bool claimed = false, finished = false;
    wait_until([&] { return (claimed = try_claim(s, job)) || (finished = done()); }, std::chrono::seconds(seconds));
    if (!claimed) {
      if (!finished) FAIL("after " << answered << " jobs, neither another job nor the outcome in " << seconds << " s");
      return answered;
    }
    each(job);
  }
}

// Commits 10 (last good) .. 10+n (first bad): commit 10+k for k >= culprit_k is slow.
struct History {
  int n, culprit_k;
  double fast = 0.100, slow = 0.110;
  double seconds_at(const std::string& sha) const {
    for (int k = 0; k <= n; ++k)
      if (fake_sha(10 + k) == sha) return k >= culprit_k ? slow : fast;
    FAIL("not a commit of the range: " << sha);
    return 0;
  }
  std::vector<model::RangeCommit> range() const {
    std::vector<model::RangeCommit> out;
    for (int k = 1; k <= n; ++k)
      out.push_back({fake_sha(10 + k),
                     {1700000000 + k, "Dev " + std::to_string(k) + " <dev@example.org>",
                      k == culprit_k ? "Unroll the loop (#42)" : "change " + std::to_string(k), 10 + k}});
    return out;
  }
};

// Answers a compare job as the runner would (its threshold travels in the
// result sets); `same` makes both sides equally fast (a false alarm);
// `too_small` makes each step's change half its threshold, under noise
// that keeps the interval wide enough to hold both no change and the
// threshold: the step cannot decide, however often it is run.
inline void answer(ReporterFixture& s, const nlohmann::json& job, const History& h, bool same = false, bool too_small = false) {
  model::JobResult jr;
  jr.kind = "compare";
  const std::string base = job["base_sha"], head = job["head_sha"];
  const double t = job.value("threshold", 0.0);
  double b = h.seconds_at(base), hd = same ? b : h.seconds_at(head);
  if (too_small && t > 0 && hd > b) hd = b * (1 + t / 2);
  jr.base = result_set(base, b, "base", -1);
  jr.head = result_set(head, hd, "head", -1);
  if (too_small && t > 0 && hd > b)  // ±5 % round to round: the interval holds 1 and 1 + t
    for (size_t i = 0; i < jr.head.benchmarks[0].samples.size(); ++i)
      jr.head.benchmarks[0].samples[i] *= i % 2 ? 1.05 : 0.95;
  if (t > 0) {
    jr.base->thresholds["micro"][""] = t;
    jr.head.thresholds["micro"][""] = t;
  }
  if (base == fake_sha(10) && head == fake_sha(10 + h.n)) jr.range = h.range();
  s.complete(job["id"].get<int64_t>(), jr);
}

}  // namespace bb::test
