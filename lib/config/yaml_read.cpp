#include "config/yaml_read.h"

#include <algorithm>
#include <cmath>

namespace bb::config {

Error yaml_error(const std::string& source, const YAML::Mark& mark, const std::string& what) {
  std::string where = source;
  if (mark.line >= 0) where += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  return make_error(Errc::invalid_argument, where + ": " + what);
}

Error yaml_error(const std::string& source, const YAML::Node& node, const std::string& path,
                 const std::string& what) {
  return yaml_error(source, node.Mark(), (path.empty() ? std::string() : path + ": ") + what);
}

static std::string join(const std::string& path, const char* key) {
  return path.empty() ? key : path + "." + key;
}

template <class T>
static Status read_scalar(const std::string& source, const YAML::Node& map, const std::string& path,
                          const char* key, T& out, const char* expected) {
  YAML::Node n = map[key];
  if (!n || n.IsNull()) return {};
  if (!n.IsScalar()) return yaml_error(source, n, join(path, key), std::string("expected ") + expected);
  try {
    out = n.as<T>();
  } catch (const YAML::Exception&) {
    return yaml_error(source, n, join(path, key),
                      std::string("expected ") + expected + ", got '" + n.Scalar() + "'");
  }
  return {};
}

Status read_string(const std::string& source, const YAML::Node& map, const std::string& path,
                   const char* key, std::string& out) {
  return read_scalar(source, map, path, key, out, "a string");
}

Status read_bool(const std::string& source, const YAML::Node& map, const std::string& path,
                 const char* key, bool& out) {
  return read_scalar(source, map, path, key, out, "true or false");
}

Status read_uint(const std::string& source, const YAML::Node& map, const std::string& path,
                 const char* key, uint64_t& out) {
  int64_t v = static_cast<int64_t>(out);
  if (auto st = read_scalar(source, map, path, key, v, "a non-negative integer"); !st) return st;
  if (v < 0) return yaml_error(source, map[key], join(path, key), "expected a non-negative integer");
  out = static_cast<uint64_t>(v);
  return {};
}

Status read_int(const std::string& source, const YAML::Node& map, const std::string& path,
                const char* key, int64_t& out) {
  return read_scalar(source, map, path, key, out, "an integer");
}

Status read_double(const std::string& source, const YAML::Node& map, const std::string& path,
                   const char* key, double& out) {
  if (auto st = read_scalar(source, map, path, key, out, "a number"); !st) return st;
  if (!std::isfinite(out)) return yaml_error(source, map[key], join(path, key), "expected a finite number");
  return {};
}

Status read_string_list(const std::string& source, const YAML::Node& map, const std::string& path,
                        const char* key, std::vector<std::string>& out) {
  YAML::Node n = map[key];
  if (!n || n.IsNull()) return {};
  if (n.IsScalar()) {  // a single pattern is accepted as a one-item list
    out = {n.Scalar()};
    return {};
  }
  if (!n.IsSequence()) return yaml_error(source, n, join(path, key), "expected a list of strings");
  out.clear();
  for (const auto& item : n) {
    if (!item.IsScalar()) return yaml_error(source, item, join(path, key), "expected a string");
    out.push_back(item.Scalar());
  }
  return {};
}

Status check_keys(const std::string& source, const YAML::Node& map, const std::string& path,
                  const std::vector<std::string>& known) {
  if (!map.IsMap()) return yaml_error(source, map, path, "expected a mapping");
  for (const auto& kv : map) {
    std::string k = kv.first.Scalar();
    if (std::find(known.begin(), known.end(), k) == known.end()) {
      std::string list;
      for (const auto& s : known) list += (list.empty() ? "" : ", ") + s;
      return yaml_error(source, kv.first, path, "unknown key '" + k + "' (known: " + list + ")");
    }
  }
  return {};
}

}  // namespace bb::config
