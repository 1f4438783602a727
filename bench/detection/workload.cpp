// The CPU-bound program the detection benchmark measures: a deterministic
// mix of integer arithmetic and table lookups (a 256 KiB table, so caches
// matter as they do for real code). `workload ITERATIONS` does exactly
// ITERATIONS steps; a variant "e % slower" is the same program run with
// ITERATIONS * (1 + e): exactly e more work, in instructions and, to first
// order, in time. About 80 ms at the default iteration count on this machine.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  const uint64_t iterations = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 24000000;
  std::vector<uint32_t> table(1 << 16);
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (auto& t : table) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    t = static_cast<uint32_t>(x);
  }
  uint64_t acc = 0;
  for (uint64_t i = 0; i < iterations; ++i) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    acc += table[x & 0xffff] ^ (acc >> 3);
  }
  // Printing the result keeps the compiler from deleting the loop.
  std::printf("%llu\n", static_cast<unsigned long long>(acc));
  return 0;
}
