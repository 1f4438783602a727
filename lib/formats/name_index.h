// Names (or any keys the caller hashes) to indices, for a reader that
// groups hundreds of thousands of rows by name, and for finish()'s search
// for a repeated key: open addressing over the names' hashes, so an insert neither
// allocates a node nor copies the name (the caller keeps the names; the
// index asks for one by position only where hashes are equal). A node-based
// map was the largest single cost of reading a large Google Benchmark file.
// Internal to lib/formats.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <string_view>
#include <vector>

namespace bb::formats::detail {

class NameIndex {
 public:
  // The position of `name` if it is in, else adds it as `next` and returns
  // that; `name_of(i)` gives the name added as i.
  template <class NameOf>
  size_t find_or_add(std::string_view name, size_t next, NameOf&& name_of) {
    return find_or_add_hashed(std::hash<std::string_view>{}(name), next,
                              [&](size_t position) { return name_of(position) == name; });
  }
  // The same for a key the caller hashed: `same(i)` says whether the key
  // added as i is this one (asked only where the hashes are equal).
  template <class Same>
  size_t find_or_add_hashed(uint64_t hash, size_t next, Same&& same) {
    if (2 * (count_ + 1) > slots_.size()) grow(slots_.empty() ? 64 : 2 * slots_.size());
    const uint32_t h = fold(hash);
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.position == kEmpty) {
        s = {h, uint32_t(next)};
        ++count_;
        return next;
      }
      if (s.hash == h && same(s.position)) return s.position;
    }
  }
  // Asks for the slot of hash `h` ahead of its find_or_add_hashed: over
  // hundreds of thousands of keys, each slot is a cache miss.
  void prefetch(uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[fold(hash) & (slots_.size() - 1)]);
  }
  void swap(NameIndex& other) {
    std::swap(slots_, other.slots_);
    std::swap(count_, other.count_);
  }
  // Room for `n` names without growing: sized once, not doubled up to it
  // (each doubling held the old table beside the new).
  void reserve(size_t n) {
    size_t size = slots_.empty() ? 64 : slots_.size();
    while (size < 2 * n) size *= 2;
    if (size > slots_.size()) grow(size);
  }

 private:
  // A slot is 8 bytes, not 16: finish()'s index over 300,000 benchmarks
  // was 16 MiB, most of what a parse held beyond its benchmarks. Positions
  // fit in 32 bits: 2^32 benchmarks would take 1.4 TB as model::Benchmark.
  // The hash folded to 32 bits picks the slot and filters keys; where it
  // is equal, keys are compared in full, as before.
  static constexpr uint32_t kEmpty = UINT32_MAX;
  static uint32_t fold(uint64_t hash) { return uint32_t(hash ^ (hash >> 32)); }
  struct Slot {
    uint32_t hash = 0;
    uint32_t position = kEmpty;
  };
  void grow(size_t size) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(size, Slot{});
    const size_t mask = slots_.size() - 1;
    for (const Slot& s : old)
      if (s.position != kEmpty) {
        size_t i = s.hash & mask;
        while (slots_[i].position != kEmpty) i = (i + 1) & mask;
        slots_[i] = s;
      }
  }
  std::vector<Slot> slots_;
  size_t count_ = 0;
};

}  // namespace bb::formats::detail
