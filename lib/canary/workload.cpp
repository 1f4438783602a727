#include "canary/workload.h"

#include <cstring>

namespace bb::canary {

uint64_t cpu(uint64_t steps) {
  uint64_t x = 0x9e3779b97f4a7c15ull, acc = 0;
  double f = 1.0;
  for (uint64_t i = 0; i < steps; ++i) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    const uint64_t r = x * 0x2545f4914f6cdd1dull;
    acc += r >> 32;
    // Bounded: f stays in [1, 2), so no step is a denormal or an infinity.
    f = f * 1.0000001 + static_cast<double>(r >> 60) * 1e-9;
    if (f >= 2.0) f -= 1.0;
  }
  uint64_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return acc ^ bits;
}

PointerChase::PointerChase(uint64_t bytes) {
  const uint64_t lines = bytes / (kStride * sizeof(uint64_t)) < 2 ? 2 : bytes / (kStride * sizeof(uint64_t));
  next_.assign(lines * kStride, 0);
  // Sattolo's algorithm: a random permutation that is one cycle, so the
  // walk visits every line before it repeats (a fixed seed: the same walk
  // on every box).
  std::vector<uint64_t> order(lines);
  for (uint64_t i = 0; i < lines; ++i) order[i] = i;
  uint64_t x = 88172645463325252ull;
  for (uint64_t i = lines - 1; i > 0; --i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const uint64_t j = x % i;  // j < i: one cycle
    const uint64_t t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (uint64_t i = 0; i < lines; ++i) next_[i * kStride] = order[i];
}

uint64_t PointerChase::run(uint64_t hops) {
  uint64_t at = at_, sum = 0;
  for (uint64_t i = 0; i < hops; ++i) {
    at = next_[at * kStride];
    sum += at;
  }
  at_ = at;
  return sum;
}

}  // namespace bb::canary
