// A seeded pseudo-random generator (xoshiro256**, seeded through
// splitmix64), so every resampling decision in benchbox can be replayed from
// the seed recorded with it. Not for cryptography.
#pragma once

#include <cmath>
#include <cstdint>

namespace bb::stats {

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& s : s_) s = splitmix(seed);
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, n) without modulo bias (Lemire's method).
  uint64_t below(uint64_t n) {
    if (n == 0) return 0;
    unsigned __int128 m = (unsigned __int128)next() * n;
    uint64_t low = uint64_t(m);
    if (low < n) {
      const uint64_t threshold = -n % n;
      while (low < threshold) {
        m = (unsigned __int128)next() * n;
        low = uint64_t(m);
      }
    }
    return uint64_t(m >> 64);
  }

  // Standard normal (Box-Muller; the second value is discarded for simplicity).
  double normal() {
    double u1 = uniform();
    while (u1 <= 0) u1 = uniform();
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * uniform());
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t s_[4];
};

}  // namespace bb::stats
