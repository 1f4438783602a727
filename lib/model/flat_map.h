// A small map from names to values, kept sorted in one vector. A result
// holds 100,000s of benchmarks, each with a few summary names (a
// pytest-benchmark row has about a dozen) and a few parameters. A std::map
// made one allocation per name and is 48 bytes in every benchmark; this is
// one allocation for all of them, 24 bytes, and names of up to 15 bytes
// (all of the formats' own) need none of their own.
//
// The interface is std::map's, as far as benchbox uses it: find/at/[]/
// count/emplace, iteration in name order, and std::map's comparisons, so
// JSON, keys and every report read the same as before. Unlike std::map's, a
// reference is good only until the next insertion.
#pragma once

#include <algorithm>
#include <compare>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bb::model {

template <class V>
class FlatMap {
 public:
  using key_type = std::string;
  using mapped_type = V;
  using value_type = std::pair<std::string, V>;
  using iterator = typename std::vector<value_type>::iterator;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  FlatMap() = default;
  // As a std::map's: a repeated name keeps its first value.
  FlatMap(std::initializer_list<value_type> entries) {
    for (const auto& [k, v] : entries) emplace(k, v);
  }

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  void clear() { entries_.clear(); }
  void reserve(size_t n) { entries_.reserve(n); }
  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }

  iterator find(std::string_view key) {
    auto it = lower_bound(key);
    return it != entries_.end() && it->first == key ? it : entries_.end();
  }
  const_iterator find(std::string_view key) const { return const_cast<FlatMap*>(this)->find(key); }
  size_t count(std::string_view key) const { return find(key) != end() ? 1 : 0; }
  bool contains(std::string_view key) const { return find(key) != end(); }

  V& at(std::string_view key) {
    auto it = find(key);
    if (it == end()) throw std::out_of_range("no '" + std::string(key) + "' here");
    return it->second;
  }
  const V& at(std::string_view key) const { return const_cast<FlatMap*>(this)->at(key); }
  // The value of `key`, made V{} when it is new.
  V& operator[](std::string_view key) { return emplace(std::string(key), V{}).first->second; }

  // Inserts unless `key` is there (then returns it, unchanged).
  std::pair<iterator, bool> emplace(std::string key, V value) {
    // Readers mostly add names in order: appending is the common case.
    if (entries_.empty() || entries_.back().first < key) {
      entries_.emplace_back(std::move(key), std::move(value));
      return {entries_.end() - 1, true};
    }
    auto it = lower_bound(key);
    if (it != entries_.end() && it->first == key) return {it, false};
    return {entries_.emplace(it, std::move(key), std::move(value)), true};
  }
  // The hint is not needed: emplace appends in order at the same cost.
  iterator emplace_hint(const_iterator, std::string key, V value) {
    return emplace(std::move(key), std::move(value)).first;
  }

  size_t erase(std::string_view key) {
    auto it = find(key);
    if (it == end()) return 0;
    entries_.erase(it);
    return 1;
  }
  iterator erase(const_iterator it) { return entries_.erase(it); }

  // std::map's: entry by entry in name order, names first.
  bool operator==(const FlatMap&) const = default;
  auto operator<=>(const FlatMap&) const = default;

 private:
  iterator lower_bound(std::string_view key) {
    return std::lower_bound(entries_.begin(), entries_.end(), key,
                            [](const value_type& e, std::string_view k) { return e.first < k; });
  }

  std::vector<value_type> entries_;
};

}  // namespace bb::model
