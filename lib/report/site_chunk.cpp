#include "report/site_chunk.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <tuple>
#include <utility>

#include "util/simdjson.h"

#include "util/text.h"

namespace bb::report::site {

namespace {

static_assert(std::endian::native == std::endian::little, "the chunk's floats are written as the host stores them");

// `e` set to `value`, in place where it holds a signed integer already: an
// assignment would build a json, swap it in and destroy the old one. Not
// over an unsigned one (what parsing gives a number without a sign):
// get_ptr hands out the same storage for both, and the value would keep
// the unsigned type, a delta of -7 written out as 18446744073709551609.
void set_integer(nlohmann::json& e, int64_t value) {
  if (e.type() == nlohmann::json::value_t::number_integer) *e.get_ptr<nlohmann::json::number_integer_t*>() = value;
  else e = value;
}

// `slot` made an array of `v`'s values (their deltas when `delta`), over
// the elements it already has.
void fill_integers(nlohmann::json& slot, const std::vector<int64_t>& v, bool delta) {
  if (!slot.is_array()) slot = nlohmann::json::array();
  auto& a = slot.get_ref<nlohmann::json::array_t&>();
  a.resize(v.size());
  int64_t last = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    set_integer(a[i], delta ? v[i] - last : v[i]);
    last = v[i];
  }
}

// `slot` made an array of the commits' jobs (their deltas) or ids, over
// the elements it already has, each id into its string's capacity.
void fill_commits(nlohmann::json& jobs, nlohmann::json& ids, const std::vector<std::pair<int64_t, std::string>>& v) {
  if (!jobs.is_array()) jobs = nlohmann::json::array();
  if (!ids.is_array()) ids = nlohmann::json::array();
  auto& j = jobs.get_ref<nlohmann::json::array_t&>();
  auto& c = ids.get_ref<nlohmann::json::array_t&>();
  j.resize(v.size());
  c.resize(v.size());
  int64_t last = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    set_integer(j[i], v[i].first - last);
    last = v[i].first;
    if (c[i].is_string()) c[i].get_ref<std::string&>().assign(v[i].second);
    else c[i] = v[i].second;
  }
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

using simdjson::dom::element;

// The member `name` of an object as an array of `n`, or an error naming it.
Result<simdjson::dom::array> array_of(element obj, const char* name, size_t n) {
  simdjson::dom::array a;
  if (obj[name].get_array().get(a) || a.size() != n)
    return bad(std::string("\"") + name + "\" is not an array of " + std::to_string(n));
  return a;
}

Result<std::vector<int64_t>> integers(element obj, const char* name, size_t n, bool delta) {
  auto a = array_of(obj, name, n);
  if (!a) return a.error();
  std::vector<int64_t> out;
  out.reserve(n);
  int64_t last = 0;
  for (element v : *a) {
    int64_t x;
    if (v.get_int64().get(x)) return bad(std::string("\"") + name + "\" holds a non-integer");
    last = delta ? last + x : x;
    out.push_back(last);
  }
  return out;
}

Result<std::vector<double>> unfloat(element obj, const char* name, size_t n) {
  std::string_view text;
  const bool f32 = !obj[name]["f32"].get_string().get(text);
  if (!f32 && obj[name]["f64"].get_string().get(text))
    return bad(std::string("\"") + name + "\" is not {\"f32\"|\"f64\": base64}");
  auto bytes = from_base64(text);
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

namespace {

// Calls f(member of a, member of b) for each column.
template <typename C, typename F>
void each_column(C& a, ChunkColumns& b, F&& f) {
  f(a.x, b.x), f(a.time, b.time), f(a.job, b.job), f(a.n, b.n), f(a.env, b.env);
  f(a.median, b.median), f(a.q1, b.q1), f(a.q3, b.q3), f(a.status, b.status), f(a.label, b.label);
}

}  // namespace

void ChunkColumns::append(ChunkColumns&& tail) {
  each_column(*this, tail, [](auto& to, auto& from) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  });
}

ChunkColumns ChunkColumns::split_off(size_t at) {
  // All of it (a push's tail): the columns themselves, with the room they
  // grew, so the next point appended to them is not a reallocation that
  // moves every status and label.
  if (at == 0) return std::exchange(*this, ChunkColumns{});
  ChunkColumns tail;
  each_column(*this, tail, [at](auto& from, auto& to) {
    const size_t cut = std::min(at, from.size());
    to.assign(std::make_move_iterator(from.begin() + static_cast<std::ptrdiff_t>(cut)),
              std::make_move_iterator(from.end()));
    from.resize(cut);
  });
  return tail;
}

const nlohmann::json& ChunkEncoder::chunk(const ChunkColumns& c, const std::string& commits_src,
                                         const std::string& commits_name) {
  encode_chunk_into(chunk_, c, commits_src, commits_name);
  return chunk_;
}

void encode_chunk_into(nlohmann::json& j, const ChunkColumns& c, const std::string& commits_src,
                       const std::string& commits_name) {
  if (!j.is_object()) j = nlohmann::json::object();
  j["schema"] = kChunkSchema;
  j["points"] = c.x.size();
  fill_integers(j["x"], c.x, true);
  fill_integers(j["time"], c.time, true);
  fill_integers(j["job"], c.job, true);
  fill_integers(j["n"], c.n, false);
  fill_integers(j["env"], c.env, false);
  j["median"] = floats(c.median);
  j["q1"] = floats(c.q1);
  j["q3"] = floats(c.q3);
  // A chunk holds a few distinct statuses: each point names one by index.
  std::vector<std::string> values;
  std::vector<int64_t> index;
  index.reserve(c.status.size());
  for (const auto& s : c.status) {
    size_t i = 0;
    while (i < values.size() && values[i] != s) ++i;
    if (i == values.size()) values.push_back(s);
    index.push_back(int64_t(i));
  }
  nlohmann::json& status = j["status"];
  status["values"] = values;
  fill_integers(status["index"], index, false);
  nlohmann::json labels = nlohmann::json::array();
  for (size_t i = 0; i < c.label.size(); ++i)
    if (!c.label[i].empty()) labels.push_back({i, c.label[i]});
  j["labels"] = std::move(labels);
  j["commits"] = {{"src", commits_src}, {"name", commits_name}};
}

const nlohmann::json& ChunkEncoder::commits(const std::vector<std::pair<int64_t, std::string>>& commits) {
  if (!commits_.is_object()) commits_ = nlohmann::json::object();
  commits_["schema"] = kCommitsSchema;
  commits_["points"] = commits.size();
  fill_commits(commits_["job"], commits_["commit"], commits);
  return commits_;
}

nlohmann::json encode_chunk(const ChunkColumns& c, const std::string& commits_src, const std::string& commits_name) {
  return ChunkEncoder().chunk(c, commits_src, commits_name);
}

nlohmann::json encode_commits(const std::vector<std::pair<int64_t, std::string>>& commits) {
  return ChunkEncoder().commits(commits);
}

namespace {

// simdjson: a push reads a chunk (or, after a restart, a series file's
// tail) back for every series it touched. One parser a thread, kept: a new
// one allocates (and the kernel maps) its buffers again for every chunk.
simdjson::dom::parser& parser() {
  static thread_local simdjson::dom::parser p;
  return p;
}

Result<ChunkColumns> decode(element chunk) {
  std::string_view schema;
  uint64_t points = 0;
  if (chunk["schema"].get_string().get(schema) || schema != kChunkSchema)
    return bad(std::string("not a ") + kChunkSchema + " object");
  if (chunk["points"].get_uint64().get(points)) return bad("no \"points\"");
  const size_t n = points;
  ChunkColumns c;
  for (auto [name, out, delta] : {std::tuple{"x", &c.x, true}, {"time", &c.time, true}, {"job", &c.job, true},
                                  {"n", &c.n, false}, {"env", &c.env, false}}) {
    auto v = integers(chunk, name, n, delta);
    if (!v) return v.error();
    *out = std::move(*v);
  }
  for (auto [name, out] : {std::pair{"median", &c.median}, {"q1", &c.q1}, {"q3", &c.q3}}) {
    auto v = unfloat(chunk, name, n);
    if (!v) return v.error();
    *out = std::move(*v);
  }
  simdjson::dom::array values, index;
  if (chunk["status"]["values"].get_array().get(values) || chunk["status"]["index"].get_array().get(index) ||
      index.size() != n)
    return bad("\"status\" has no index per point");
  std::vector<std::string> names;
  for (element v : values) {
    std::string_view name;
    if (v.get_string().get(name)) return bad("a status is not a string");
    names.emplace_back(name);
  }
  for (element i : index) {
    uint64_t k;
    if (i.get_uint64().get(k) || k >= names.size()) return bad("a status index is out of range");
    c.status.push_back(names[k]);
  }
  c.label.assign(n, "");
  simdjson::dom::array labels;
  if (chunk["labels"].get_array().get(labels)) return bad("no \"labels\"");
  for (element l : labels) {
    simdjson::dom::array pair;
    uint64_t at;
    std::string_view text;
    if (l.get_array().get(pair) || pair.size() != 2 || pair.at(0).get_uint64().get(at) || at >= n ||
        pair.at(1).get_string().get(text))
      return bad("a label is not [point, text]");
    c.label[at] = std::string(text);
  }
  return c;
}

}  // namespace

Result<ChunkColumns> decode_chunk(std::string_view chunk_json) {
  element chunk;
  if (parser().parse(simdjson::padded_string(chunk_json)).get(chunk))
    return bad(std::string("not a ") + kChunkSchema + " object");
  return decode(chunk);
}

Result<ChunkColumns> decode_series_tail(std::string_view series_json, const std::string& chunk) {
  element series;
  simdjson::dom::array entries;
  if (parser().parse(simdjson::padded_string(series_json)).get(series) || series["chunks"].get_array().get(entries))
    return bad("not a series file with a chunk list");
  for (element e : entries) {
    std::string_view id;
    bool tail = false;
    element data;
    if (e["chunk"].get_string().get(id) || id != chunk || e["tail"].get_bool().get(tail) || !tail) continue;
    if (e["data"].get(data)) return bad("chunk " + chunk + "'s tail entry has no \"data\"");
    return decode(data);
  }
  return bad("the series file lists no tail of chunk " + chunk);
}

}  // namespace bb::report::site
