// The canary: fixed workloads the package ships and no repository changes,
// run on the benchmark CPUs to tell a slower box from a slower commit
// (issue #34). One is bound by the core (integer and floating-point work
// in registers), one by memory (a dependent walk through a buffer larger
// than the caches). Each returns a checksum of all its work, so nothing
// can be optimised away, and a box that computes another checksum is
// broken, not slow.
//
// Never change a workload: its results are a history. A change is a new
// canary (kVersion), whose history starts over.
#pragma once

#include <cstdint>
#include <vector>

namespace bb::canary {

inline constexpr int kVersion = 1;

struct Sizes {
  uint64_t cpu_steps = 20'000'000;        // about 20-40 ms on a current core
  uint64_t memory_bytes = 64ull << 20;    // beyond most last-level caches
  uint64_t memory_hops = 1'000'000;       // about 80-120 ms of DRAM latency
};

// The core-bound workload: `steps` rounds of xorshift64*, an integer
// multiply and a dependent floating-point multiply-add.
uint64_t cpu(uint64_t steps);

// The memory-bound workload: a walk through one random cycle over every
// 64-byte line of the buffer (fixed seed), each hop depending on the last.
class PointerChase {
 public:
  explicit PointerChase(uint64_t bytes);
  // Hops `hops` times from where the last walk stopped; the checksum of
  // the lines visited.
  uint64_t run(uint64_t hops);
  uint64_t lines() const { return next_.size() / kStride; }

 private:
  static constexpr uint64_t kStride = 8;  // uint64_t per 64-byte line
  std::vector<uint64_t> next_;            // next_[line * kStride]: the next line's index
  uint64_t at_ = 0;
};

}  // namespace bb::canary
