// A benchmark's summary statistics as its harness reported them (mean,
// median, stddev, min, max, ...): a few names per benchmark, and a result
// holds 100,000s of benchmarks. A std::map made one allocation per name
// (a pytest-benchmark row has about a dozen); this keeps them sorted in one
// vector: one allocation for all of them, and names of up to 15 bytes
// (all of the formats' own) need none of their own.
//
// The interface is std::map's, as far as benchbox uses it: find/at/[]/
// count/emplace iterate in name order, so JSON and every report read the
// same as before.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace bb::model {

class Summary {
 public:
  using key_type = std::string;
  using mapped_type = double;
  using value_type = std::pair<std::string, double>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

  Summary() = default;
  // As a std::map's: a repeated name keeps its first value.
  Summary(std::initializer_list<value_type> entries) {
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
  const_iterator find(std::string_view key) const { return const_cast<Summary*>(this)->find(key); }
  size_t count(std::string_view key) const { return find(key) != end() ? 1 : 0; }
  bool contains(std::string_view key) const { return find(key) != end(); }

  double& at(std::string_view key) {
    auto it = find(key);
    if (it == end()) throw std::out_of_range("summary has no '" + std::string(key) + "'");
    return it->second;
  }
  const double& at(std::string_view key) const { return const_cast<Summary*>(this)->at(key); }
  // The value of `key`, made 0 when it is new.
  double& operator[](std::string_view key) { return emplace(std::string(key), 0.0).first->second; }

  // Inserts unless `key` is there (then returns it, unchanged).
  std::pair<iterator, bool> emplace(std::string key, double value) {
    // Readers mostly add names in order: appending is the common case.
    if (entries_.empty() || entries_.back().first < key) {
      entries_.emplace_back(std::move(key), value);
      return {entries_.end() - 1, true};
    }
    auto it = lower_bound(key);
    if (it != entries_.end() && it->first == key) return {it, false};
    return {entries_.emplace(it, std::move(key), value), true};
  }
  // The hint is not needed: emplace appends in order at the same cost.
  iterator emplace_hint(const_iterator, std::string key, double value) {
    return emplace(std::move(key), value).first;
  }

  size_t erase(std::string_view key) {
    auto it = find(key);
    if (it == end()) return 0;
    entries_.erase(it);
    return 1;
  }
  iterator erase(const_iterator it) { return entries_.erase(it); }

  bool operator==(const Summary&) const = default;

 private:
  iterator lower_bound(std::string_view key) {
    return std::lower_bound(entries_.begin(), entries_.end(), key,
                            [](const value_type& e, std::string_view k) { return e.first < k; });
  }

  std::vector<value_type> entries_;
};

// A JSON object of the names and values, in name order.
void to_json(nlohmann::json& j, const Summary& s);

}  // namespace bb::model
