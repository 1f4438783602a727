// Typed reads from parsed JSON that never trip undefined behaviour.
//
// nlohmann's get<long>() on 1e20 is a float-to-integer conversion out of
// range (undefined behaviour, found by the fuzzers), and get<int>() on
// 5000000000 silently wraps. Everything we read from JSON that someone else
// wrote (result files, job records, payloads) goes through json_as<T>, which
// wants a JSON integer in range where T is an integer and refuses the rest.
#pragma once

#include <limits>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/result.h"

namespace bb {

namespace detail {
template <class T>
struct is_vector : std::false_type {};
template <class E>
struct is_vector<std::vector<E>> : std::true_type {};
// std::map<std::string, V>, or a map-like type of its own (model::Summary).
template <class T, class = void>
struct is_string_map : std::false_type {};
template <class T>
struct is_string_map<T, std::void_t<typename T::key_type, typename T::mapped_type>>
    : std::is_same<typename T::key_type, std::string> {};
}  // namespace detail

// The value of `j` as T, or nullopt when `j` does not hold a T exactly.
template <class T>
std::optional<T> json_as(const nlohmann::json& j) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!j.is_boolean()) return std::nullopt;
    return j.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    if (j.is_number_unsigned()) {
      const auto v = j.get<uint64_t>();
      if (v > uint64_t(std::numeric_limits<T>::max())) return std::nullopt;
      return T(v);
    }
    if (!j.is_number_integer()) return std::nullopt;  // floats are not integers here
    const auto v = j.get<int64_t>();
    if constexpr (std::is_signed_v<T>) {
      if (v < int64_t(std::numeric_limits<T>::min()) || v > int64_t(std::numeric_limits<T>::max()))
        return std::nullopt;
    } else {
      if (v < 0 || uint64_t(v) > uint64_t(std::numeric_limits<T>::max())) return std::nullopt;
    }
    return T(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!j.is_number()) return std::nullopt;
    return j.get<T>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!j.is_string()) return std::nullopt;
    return j.get<std::string>();
  } else if constexpr (detail::is_vector<T>::value) {
    if (!j.is_array()) return std::nullopt;
    T out;
    out.reserve(j.size());
    for (const auto& e : j) {
      auto v = json_as<typename T::value_type>(e);
      if (!v) return std::nullopt;
      out.push_back(std::move(*v));
    }
    return out;
  } else if constexpr (detail::is_string_map<T>::value) {
    if (!j.is_object()) return std::nullopt;
    T out;
    for (const auto& [k, e] : j.items()) {
      auto v = json_as<typename T::mapped_type>(e);
      if (!v) return std::nullopt;
      out.emplace(k, std::move(*v));
    }
    return out;
  } else {
    static_assert(std::is_same_v<T, nlohmann::json>, "json_as: add this type");
    return j;
  }
}

// Reads member `key` of `obj` into `out`. An absent or null member leaves
// `out` alone and counts as success; a member of the wrong type returns false
// and also leaves `out` alone, so the caller can name the field in its error.
template <class T>
bool read_member(const nlohmann::json& obj, const char* key, T& out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return true;
  auto v = json_as<T>(*it);
  if (!v) return false;
  out = std::move(*v);
  return true;
}

// read_member as a Status: a member of the wrong type is an invalid_argument
// error naming it, as "<what> '<key>' has the wrong type".
template <class T>
Status take_member(const nlohmann::json& obj, const char* key, T& out, const char* what = "field") {
  if (read_member(obj, key, out)) return {};
  return make_error(Errc::invalid_argument, std::string(what) + " '" + key + "' has the wrong type");
}

}  // namespace bb
