// bench/webhook's load generator: deliveries made before the clock starts,
// sent by libcurl multi with a fixed number in flight, a fresh connection
// per delivery as GitHub makes them; statuses and latencies per phase.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace bb::bench {

using Clock = std::chrono::steady_clock;

struct Request {
  std::string body;
  std::vector<std::string> headers;
};

struct PhaseResult {
  std::string name;
  size_t done = 0;
  std::map<long, size_t> statuses;
  std::vector<double> latencies_ms;
  double seconds = 0;
  double rate() const { return seconds > 0 ? static_cast<double>(done) / seconds : 0; }
  double percentile(double p) const {
    if (latencies_ms.empty()) return 0;
    std::vector<double> v = latencies_ms;
    std::sort(v.begin(), v.end());
    size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
    return v[i];
  }
};

// A commit id of its own for delivery n.
std::string sha_of(size_t n);

// `count` push deliveries, each for a new commit (new work, not "same
// work"), signed with `secret` (or wrongly when !good_signature). A
// non-empty `padding` fills head_commit.message so the body grows.
std::vector<Request> make_requests(const nlohmann::json& push, size_t count, const std::string& run,
                                   bool good_signature, const std::string& secret, size_t sha_offset = 0,
                                   size_t padding = 0);

// Runs `requests` against `url` with `concurrency` transfers in flight,
// until all are done or `seconds` pass.
PhaseResult run_http(const std::string& name, const std::string& url, const std::vector<Request>& requests,
                     size_t concurrency, double seconds);

void print(const PhaseResult& r);

}  // namespace bb::bench
