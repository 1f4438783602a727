// Typed reads from yaml-cpp nodes that turn every mistake into an error
// naming file:line:column and the key path. yaml-cpp throws; these helpers
// catch at the boundary so callers only see Result.
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "util/result.h"

namespace bb::config {

Error yaml_error(const std::string& source, const YAML::Node& node, const std::string& path,
                 const std::string& what);
Error yaml_error(const std::string& source, const YAML::Mark& mark, const std::string& what);

// Each reads node[key] into out when present; absent or null leaves out alone.
Status read_string(const std::string& source, const YAML::Node& map, const std::string& path,
                   const char* key, std::string& out);
Status read_bool(const std::string& source, const YAML::Node& map, const std::string& path,
                 const char* key, bool& out);
Status read_uint(const std::string& source, const YAML::Node& map, const std::string& path,
                 const char* key, uint64_t& out);
// read_uint, and the value must lie in [min, max] ("expected 1 to 65535, got 0").
template <class T>
Status read_uint_in(const std::string& source, const YAML::Node& map, const std::string& path,
                    const char* key, T& out, uint64_t min, uint64_t max);
Status read_int(const std::string& source, const YAML::Node& map, const std::string& path,
                const char* key, int64_t& out);
Status read_double(const std::string& source, const YAML::Node& map, const std::string& path,
                   const char* key, double& out);
Status read_string_list(const std::string& source, const YAML::Node& map, const std::string& path,
                        const char* key, std::vector<std::string>& out);
template <class T>
Status read_uint_in(const std::string& source, const YAML::Node& map, const std::string& path,
                    const char* key, T& out, uint64_t min, uint64_t max) {
  uint64_t v = out;
  if (auto st = read_uint(source, map, path, key, v); !st) return st;
  if (v < min || v > max)
    return yaml_error(source, map[key], path.empty() ? key : path + "." + key,
                      "expected " + std::to_string(min) + " to " + std::to_string(max) + ", got " +
                          std::to_string(v));
  out = static_cast<T>(v);
  return {};
}

// Keys not in `known` are an error (typos must not be silently ignored).
Status check_keys(const std::string& source, const YAML::Node& map, const std::string& path,
                  const std::vector<std::string>& known);

}  // namespace bb::config
