// hyperfine --export-json: {"results": [{"command", "mean", "stddev",
// "median", "user", "system", "min", "max", "times": [...],
// "exit_codes": [...], "parameters": {...}}]}; times are seconds.
#include "formats/json_support.h"
#include "formats/parsers.h"

namespace bb::formats::detail {

namespace {

Result<Parsed> one_result(const json& r, const Loc& at) {
  Parsed p;
  p.place = at.ptr;
  auto& b = p.bench;
  auto command = need_string(r, at, "command");
  if (!command) return command.error();
  b.key.name = *command;
  b.key.metric = "wall_time";
  b.unit = "s";

  auto params = maybe(r, at, "parameters", Kind::object);
  if (!params) return params.error();
  if (*params)
    for (const auto& [k, v] : (*params)->items()) b.key.params[k] = param_string(v);

  auto times = need(r, at, "times", Kind::array);
  if (!times) return times.error();
  for (size_t i = 0; i < (*times)->size(); ++i) {
    auto t = finite_number((**times)[i], [&] { return at.child("times").child(i); });
    if (!t) return t.error();
    b.samples.push_back(*t);
  }

  // Summaries hyperfine computed; stddev is null for a single run.
  for (const char* s : {"mean", "stddev", "median", "min", "max"}) {
    auto v = maybe(r, at, s, Kind::number);
    if (!v) return v.error();
    if (!*v) continue;
    auto n = finite_number(**v, [&] { return at.child(s); });
    if (!n) return n.error();
    b.summary[s] = *n;
  }
  // user/system are means over the runs; hyperfine keeps no per-run values.
  for (const char* s : {"user", "system"}) {
    auto v = maybe(r, at, s, Kind::number);
    if (!v) return v.error();
    if (!*v) continue;
    auto n = finite_number(**v, [&] { return at.child(s); });
    if (!n) return n.error();
    b.extra[std::string(s) + "_mean_s"] = *n;
  }

  auto codes = maybe(r, at, "exit_codes", Kind::array);
  if (!codes) return codes.error();
  if (*codes) {
    if ((*codes)->size() != b.samples.size())
      return at.child("exit_codes").bad("has " + std::to_string((*codes)->size()) +
                                        " entries for " + std::to_string(b.samples.size()) +
                                        " times; expected one per run");
    size_t failed = 0;
    int64_t last_bad = 0;
    for (size_t i = 0; i < (*codes)->size(); ++i) {
      const json& c = (**codes)[i];
      if (c.is_null()) {  // killed by a signal: hyperfine writes null
        ++failed;
        continue;
      }
      if (!c.is_number_integer())
        return at.child("exit_codes").child(i).bad("expected an integer exit code or null");
      if (c.get<int64_t>() != 0) {
        ++failed;
        last_bad = c.get<int64_t>();
      }
    }
    b.extra["exit_codes"] = **codes;
    if (failed) {
      b.status = model::BenchmarkStatus::failed;
      b.reason = "command failed in " + std::to_string(failed) + " of " +
                 std::to_string((*codes)->size()) + " runs (last non-zero exit status " +
                 std::to_string(last_bad) + ")";
    }
  }
  return p;
}

}  // namespace

Result<ParsedList> parse_hyperfine(const Input& in) {
  ParsedList out;
  auto streamed = stream_children(
      in.json(), in.source, "results", [&](const std::string&, json&& r, const Loc& at) -> Status {
        auto p = one_result(r, at);
        if (!p) return p.error();
        out.push_back(std::move(*p));
        return {};
      });
  if (!streamed) return streamed.error();
  if (auto st = expect_streamed(*streamed, in.source, "results", Kind::array,
                                "an object with a \"results\" array (hyperfine --export-json)");
      !st)
    return st.error();
  return out;
}

}  // namespace bb::formats::detail
