#include "report/site_chunk.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "util/text.h"

namespace bb::report::site {

namespace {

static_assert(std::endian::native == std::endian::little, "the chunk's floats are written as the host stores them");

nlohmann::json deltas(const std::vector<int64_t>& v) {
  nlohmann::json out = nlohmann::json::array();
  int64_t last = 0;
  for (int64_t x : v) {
    out.push_back(x - last);
    last = x;
  }
  return out;
}

// float32 when every value survives it (7 significant digits, in range),
// else float64: a count of 1e40 must not become infinity.
bool fits_float32(double v) {
  if (!std::isfinite(v)) return true;  // NaN stays NaN
  const double a = std::fabs(v);
  return a == 0 || (a <= std::numeric_limits<float>::max() && a >= std::numeric_limits<float>::min());
}

nlohmann::json floats(const std::vector<double>& v) {
  bool f32 = true;
  for (double d : v) f32 = f32 && fits_float32(d);
  std::string bytes;
  if (f32) {
    bytes.resize(v.size() * 4);
    for (size_t i = 0; i < v.size(); ++i) {
      const float f = std::isfinite(v[i]) ? static_cast<float>(v[i]) : std::numeric_limits<float>::quiet_NaN();
      std::memcpy(bytes.data() + 4 * i, &f, 4);
    }
    return {{"f32", base64(bytes)}};
  }
  bytes.resize(v.size() * 8);
  for (size_t i = 0; i < v.size(); ++i) {
    const double d = std::isfinite(v[i]) ? v[i] : std::numeric_limits<double>::quiet_NaN();
    std::memcpy(bytes.data() + 8 * i, &d, 8);
  }
  return {{"f64", base64(bytes)}};
}

Error bad(const std::string& what) { return make_error(Errc::parse, "chunk: " + what); }

Result<std::vector<int64_t>> undelta(const nlohmann::json& j, const char* name, size_t n) {
  if (!j.contains(name) || !j[name].is_array() || j[name].size() != n)
    return bad(std::string("\"") + name + "\" is not an array of " + std::to_string(n));
  std::vector<int64_t> out;
  int64_t last = 0;
  for (const auto& d : j[name]) {
    if (!d.is_number_integer()) return bad(std::string("\"") + name + "\" holds a non-integer");
    last += d.get<int64_t>();
    out.push_back(last);
  }
  return out;
}

Result<std::vector<double>> unfloat(const nlohmann::json& j, const char* name, size_t n) {
  const nlohmann::json* col = j.contains(name) ? &j[name] : nullptr;
  const bool f32 = col && col->is_object() && col->contains("f32") && (*col)["f32"].is_string();
  const bool f64 = col && col->is_object() && col->contains("f64") && (*col)["f64"].is_string();
  if (!f32 && !f64) return bad(std::string("\"") + name + "\" is not {\"f32\"|\"f64\": base64}");
  auto bytes = from_base64((*col)[f32 ? "f32" : "f64"].get<std::string>());
  const size_t width = f32 ? 4 : 8;
  if (!bytes || bytes->size() != n * width)
    return bad(std::string("\"") + name + "\" does not hold " + std::to_string(n) + " values");
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) {
    if (f32) {
      float f;
      std::memcpy(&f, bytes->data() + 4 * i, 4);
      out[i] = f;
    } else {
      std::memcpy(&out[i], bytes->data() + 8 * i, 8);
    }
  }
  return out;
}

}  // namespace

nlohmann::json encode_chunk(const ChunkColumns& c, const std::string& commits_src, const std::string& commits_name) {
  nlohmann::json status_values = nlohmann::json::array(), status_index = nlohmann::json::array();
  for (const auto& s : c.status) {
    size_t i = 0;
    while (i < status_values.size() && status_values[i] != s) ++i;
    if (i == status_values.size()) status_values.push_back(s);
    status_index.push_back(i);
  }
  nlohmann::json labels = nlohmann::json::array();
  for (size_t i = 0; i < c.label.size(); ++i)
    if (!c.label[i].empty()) labels.push_back({i, c.label[i]});
  return {{"schema", kChunkSchema},
          {"points", c.x.size()},
          {"x", deltas(c.x)},
          {"time", deltas(c.time)},
          {"job", deltas(c.job)},
          {"median", floats(c.median)},
          {"q1", floats(c.q1)},
          {"q3", floats(c.q3)},
          {"n", c.n},
          {"env", c.env},
          {"status", {{"values", status_values}, {"index", status_index}}},
          {"labels", labels},
          {"commits", {{"src", commits_src}, {"name", commits_name}}}};
}

nlohmann::json encode_commits(const ChunkColumns& c) { return c.commit; }

Result<ChunkColumns> decode_chunk(const nlohmann::json& chunk, const nlohmann::json& commits) {
  if (!chunk.is_object() || chunk.value("schema", "") != kChunkSchema)
    return bad(std::string("not a ") + kChunkSchema + " object");
  if (!chunk.contains("points") || !chunk["points"].is_number_unsigned()) return bad("no \"points\"");
  const size_t n = chunk["points"].get<size_t>();
  ChunkColumns c;
  for (auto [name, out] : {std::pair{"x", &c.x}, {"time", &c.time}, {"job", &c.job}}) {
    auto v = undelta(chunk, name, n);
    if (!v) return v.error();
    *out = std::move(*v);
  }
  for (auto [name, out] : {std::pair{"median", &c.median}, {"q1", &c.q1}, {"q3", &c.q3}}) {
    auto v = unfloat(chunk, name, n);
    if (!v) return v.error();
    *out = std::move(*v);
  }
  for (auto [name, out] : {std::pair{"n", &c.n}, {"env", &c.env}}) {
    if (!chunk.contains(name) || !chunk[name].is_array() || chunk[name].size() != n)
      return bad(std::string("\"") + name + "\" is not an array of " + std::to_string(n));
    for (const auto& v : chunk[name]) {
      if (!v.is_number_integer()) return bad(std::string("\"") + name + "\" holds a non-integer");
      out->push_back(v.get<int64_t>());
    }
  }
  const auto& status = chunk.value("status", nlohmann::json::object());
  const auto& values = status.value("values", nlohmann::json::array());
  const auto& index = status.value("index", nlohmann::json::array());
  if (!index.is_array() || index.size() != n) return bad("\"status\" has no index per point");
  for (const auto& i : index) {
    if (!i.is_number_unsigned() || i.get<size_t>() >= values.size() || !values[i.get<size_t>()].is_string())
      return bad("a status index is out of range");
    c.status.push_back(values[i.get<size_t>()].get<std::string>());
  }
  c.label.assign(n, "");
  for (const auto& l : chunk.value("labels", nlohmann::json::array())) {
    if (!l.is_array() || l.size() != 2 || !l[0].is_number_unsigned() || l[0].get<size_t>() >= n || !l[1].is_string())
      return bad("a label is not [point, text]");
    c.label[l[0].get<size_t>()] = l[1].get<std::string>();
  }
  if (!commits.is_array() || commits.size() != n) return bad("the commits file does not hold one id per point");
  for (const auto& id : commits) {
    if (!id.is_string()) return bad("a commit id is not a string");
    c.commit.push_back(id.get<std::string>());
  }
  return c;
}

}  // namespace bb::report::site
