// Names to indices, for a reader that groups hundreds of thousands of rows
// by name: open addressing over the names' hashes, so an insert neither
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
    if (2 * (count_ + 1) > slots_.size()) grow();
    const uint64_t h = std::hash<std::string_view>{}(name);
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.position == kEmpty) {
        s = {h, next};
        ++count_;
        return next;
      }
      if (s.hash == h && name_of(s.position) == name) return s.position;
    }
  }
  void swap(NameIndex& other) {
    std::swap(slots_, other.slots_);
    std::swap(count_, other.count_);
  }
  // Room for `n` names without growing.
  void reserve(size_t n) {
    while (slots_.size() < 2 * n) grow();
  }

 private:
  static constexpr size_t kEmpty = SIZE_MAX;
  struct Slot {
    uint64_t hash = 0;
    size_t position = kEmpty;
  };
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : 2 * old.size(), Slot{});
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
