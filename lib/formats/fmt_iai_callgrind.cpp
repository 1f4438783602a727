// iai-callgrind's (gungraun's since 0.17) benchmark summaries: one JSON
// object per benchmark, as `--save-summary=json|pretty-json` writes it to
// target/iai/.../summary.json and `--output-format=json` prints it (one line
// each; pretty-json: one indented object after another; `jq -s`: an array;
// `cat` of several summary.json files, which end without a newline).
// The terminal's text output is not read: it interleaves the benchmarks'
// own output, truncates descriptions and changed layout with most releases.
// Schema versions (summary.v1..v7.schema.json) and where the values sit:
//   v1, v2 (0.9-0.13)   callgrind_summary.summaries[].events.Ir = {"new", "old"}
//   v3 (0.14)           callgrind_summary.callgrind_run.total.summary.Ir =
//                         {"metrics": {"Left": new} | {"Right": old} | {"Both": [new, old]}};
//                       tool_summaries[].summaries.total = {"DhatSummary": {...}} | "None"
//   v4-v6 (0.15-0.19)   profiles[] = {"tool", "summaries": {"total": {"summary":
//                         {"Callgrind"|"Cachegrind"|"Dhat"|"ErrorTool": {...}} | "None"}}};
//                       v5 and v6 wrap each number as {"Int": n} or {"Float": x}
//   v7 (gungraun main)  profiles[] = {"tool", "data": {"total": {"metrics":
//                         {"Ir": {"values": {"new": n, "old": n}}}}}}
// The shape is read, not the "version" string (0.15.0 wrote "3" on a v4 shape).
// The new value of a total is the one sample; the old one is iai's own baseline.
#include "util/simdjson.h"

#include <algorithm>
#include <cctype>

#include "formats/callgrind.h"
#include "formats/json_support.h"
#include "formats/parsers.h"
#include "formats/text_lines.h"

namespace bb::formats::detail {

namespace {

enum class Tool { callgrind, cachegrind, dhat, other };

Tool tool_of(std::string name) {
  for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (name == "callgrind") return Tool::callgrind;
  if (name == "cachegrind") return Tool::cachegrind;
  if (name == "dhat") return Tool::dhat;
  return Tool::other;  // memcheck/helgrind/drd (error counts), massif, bbv, perf: not read
}

const char* tool_name(Tool t) {
  return t == Tool::callgrind ? "callgrind" : t == Tool::cachegrind ? "cachegrind" : "dhat";
}

struct Metric {
  std::string name, unit;
};

// What benchbox records an event of `tool` as; an empty name: not recorded
// (the *Rate percentages, SysTime, Ge, DHAT's lifetimes and ad-hoc units...).
Metric metric_for(Tool tool, const std::string& event) {
  if (tool != Tool::dhat) return {callgrind_metric(event), "count"};
  static const std::map<std::string, Metric> kDhat = {
      {"TotalBytes", {"alloc_bytes", "bytes"}},       {"TotalBlocks", {"allocs", "count"}},
      {"AtTGmaxBytes", {"heap_peak_bytes", "bytes"}}, {"AtTGmaxBlocks", {"heap_peak_blocks", "count"}},
      {"AtTEndBytes", {"heap_end_bytes", "bytes"}},   {"AtTEndBlocks", {"heap_end_blocks", "count"}},
      {"ReadsBytes", {"heap_read_bytes", "bytes"}},   {"WritesBytes", {"heap_write_bytes", "bytes"}},
  };
  auto it = kDhat.find(event);
  return it == kDhat.end() ? Metric{} : it->second;
}

// The new value of one event's entry, in any version's shape; nullopt when
// the entry has only the old value (the event was not measured this run).
Result<std::optional<double>> new_value(const json& e, const Loc& at) {
  if (auto st = expect(e, at, Kind::object); !st) return st.error();
  const json* v = nullptr;
  Loc vat = at;
  auto pick = [&](const json& obj, const Loc& oat, const char* key) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return false;
    v = &*it;
    vat = oat.child(key);
    return true;
  };
  if (e.contains("values")) {  // v7
    auto vals = need(e, at, "values", Kind::object);
    if (!vals) return vals.error();
    if (!pick(**vals, at.child("values"), "new")) return std::optional<double>{};
  } else if (e.contains("metrics")) {  // v3-v6
    auto m = need(e, at, "metrics", Kind::object);
    if (!m) return m.error();
    const Loc mat = at.child("metrics");
    if (pick(**m, mat, "Both")) {
      if (!v->is_array() || v->size() != 2) return vat.bad("expected [new, old]");
      v = &(*v)[0];
      vat = vat.child(size_t{0});
    } else if (!pick(**m, mat, "Left")) {
      if ((*m)->contains("Right")) return std::optional<double>{};
      return mat.bad("expected \"Left\" (new), \"Right\" (old) or \"Both\" ([new, old])");
    }
  } else if (!pick(e, at, "new")) {  // v1, v2
    if (e.contains("old")) return std::optional<double>{};
    return at.bad("expected \"new\"/\"old\" (v1, v2), \"metrics\" (v3-v6) or \"values\" (v7)");
  }
  if (v->is_object()) {  // v5, v6: {"Int": n} or {"Float": x}; v7's perf: {"value": n, ...}
    const json& wrapped = *v;
    if (!pick(wrapped, vat, "Int") && !pick(wrapped, vat, "Float") && !pick(wrapped, vat, "value"))
      return vat.bad("expected a number, {\"Int\": n} or {\"Float\": x}");
  }
  if (auto st = expect(*v, vat, Kind::number); !st) return st.error();
  auto n = finite_number(*v, vat);
  if (!n) return n.error();
  if (*n < 0) return vat.bad("expected a count, got a negative number");
  return std::optional<double>(*n);
}

// Event name -> its new value and where it is. v1/v2 list one callgrind
// summary per process: those are summed, as later versions' total is.
struct Event {
  double value = 0;
  std::string ptr;
};
using Events = std::map<std::string, Event>;

Status add_events(const json& map, const Loc& at, Tool tool, Events& into) {
  if (auto st = expect(map, at, Kind::object); !st) return st.error();
  for (const auto& [event, entry] : map.items()) {
    if (metric_for(tool, event).name.empty()) continue;
    auto v = new_value(entry, at.child(event));
    if (!v) return v.error();
    if (!*v) continue;
    auto [it, fresh] = into.try_emplace(event);
    if (fresh) it->second.ptr = at.child(event).ptr;
    it->second.value += **v;
  }
  return {};
}

// A tool's total (v3-v6): "None", or one member naming the tool whose value
// holds the events ({"Callgrind": {...}}; v3: {"DhatSummary": {...}}).
Status add_variant(const json& v, const Loc& at, Tool tool, Events& into) {
  if (v.is_string() && v.get_ref<const std::string&>() == "None") return {};
  if (!v.is_object() || v.size() != 1)
    return at.bad("expected \"None\" or one member naming the tool ({\"Callgrind\": {...}})");
  return add_events(v.begin().value(), at.child(v.begin().key()), tool, into);
}

// `path` (keys) from `obj`, each an object but the last, which is of `last`.
Result<const json*> dig(const json& obj, Loc& at, std::initializer_list<const char*> path, Kind last) {
  const json* cur = &obj;
  size_t i = 0;
  for (const char* key : path) {
    auto next = need(*cur, at, key, ++i == path.size() ? last : Kind::object);
    if (!next) return next.error();
    cur = *next;
    at = at.child(key);
  }
  return cur;
}

Status read_summary(const json& s, const Loc& at, const std::string& prefix, ParsedList& out) {
  if (auto st = expect(s, at, Kind::object); !st) return st.error();
  auto version = need_string(s, at, "version");
  if (!version) return version.error();
  if (version->size() != 1 || (*version)[0] < '1' || (*version)[0] > '7')
    return at.child("version").bad("unknown summary version \"" + *version + "\", expected 1 to 7");
  auto module = need_string(s, at, "module_path");
  if (!module) return module.error();
  auto id = maybe(s, at, "id", Kind::string);
  if (!id) return id.error();
  const std::string name = *id ? *module + "::" + (*id)->get<std::string>() : *module;
  json extra = {{"deterministic", true}, {"summary_version", *version}};
  for (const char* k : {"kind", "details", "description"})
    if (auto it = s.find(k); it != s.end() && it->is_string()) extra[k[0] == 'k' ? "kind" : "description"] = *it;

  std::vector<std::pair<Tool, Events>> tools;
  auto profiles = maybe(s, at, "profiles", Kind::array);
  if (!profiles) return profiles.error();
  auto cs = maybe(s, at, "callgrind_summary", Kind::object);
  if (!cs) return cs.error();
  auto ts = maybe(s, at, "tool_summaries", Kind::array);
  if (!ts) return ts.error();
  if (*profiles) {  // v4-v7
    for (size_t i = 0; i < (*profiles)->size(); ++i) {
      const json& p = (**profiles)[i];
      const Loc pat = at.child("profiles").child(i);
      auto tool = need_string(p, pat, "tool");
      if (!tool) return tool.error();
      const Tool t = tool_of(*tool);
      if (t == Tool::other) continue;
      Loc mat = pat;
      const bool v7 = p.contains("data");
      auto total = dig(p, mat, {v7 ? "data" : "summaries", "total", v7 ? "metrics" : "summary"},
                       v7 ? Kind::object : Kind::any);
      if (!total) return total.error();
      tools.emplace_back(t, Events{});
      Status st = v7 ? add_events(**total, mat, t, tools.back().second)
                     : add_variant(**total, mat, t, tools.back().second);
      if (!st) return st;
    }
  } else if (*cs || *ts) {  // v1-v3
    const Loc cat = at.child("callgrind_summary");
    if (*cs) tools.emplace_back(Tool::callgrind, Events{});
    if (*cs && (*cs)->contains("callgrind_run")) {  // v3
      Loc mat = cat;
      auto total = dig(**cs, mat, {"callgrind_run", "total", "summary"}, Kind::object);
      if (!total) return total.error();
      if (auto st = add_events(**total, mat, Tool::callgrind, tools.back().second); !st) return st;
    } else if (*cs) {  // v1, v2
      auto runs = need(**cs, cat, "summaries", Kind::array);
      if (!runs) return runs.error();
      for (size_t j = 0; j < (*runs)->size(); ++j) {
        Loc mat = cat.child("summaries").child(j);
        auto events = dig((**runs)[j], mat, {"events"}, Kind::object);
        if (!events) return events.error();
        if (auto st = add_events(**events, mat, Tool::callgrind, tools.back().second); !st) return st;
      }
    }
    for (size_t k = 0; *ts && k < (*ts)->size(); ++k) {
      const json& tool = (**ts)[k];
      const Loc tat = at.child("tool_summaries").child(k);
      auto tname = need_string(tool, tat, "tool");
      if (!tname) return tname.error();
      // Only v3 has DHAT's metrics; v1 and v2 keep the tools' log lines as text.
      auto runs = tool.find("summaries");
      if (tool_of(*tname) != Tool::dhat || runs == tool.end() || !runs->is_object()) continue;
      Loc mat = tat;
      auto total = dig(tool, mat, {"summaries", "total"}, Kind::any);
      if (!total) return total.error();
      tools.emplace_back(Tool::dhat, Events{});
      if (auto st = add_variant(**total, mat, Tool::dhat, tools.back().second); !st) return st;
    }
  } else {
    return at.bad("expected \"profiles\" (iai-callgrind 0.15 and later, gungraun) or \"callgrind_summary\" "
                  "(0.9 to 0.14): not an iai-callgrind summary");
  }
  for (const auto& [tool, events] : tools)
    for (const auto& [event, e] : events) {
      const Metric m = metric_for(tool, event);
      Parsed p;
      p.place = prefix + e.ptr;
      model::Benchmark& b = p.bench;
      b.key.name = name;
      if (tool == Tool::cachegrind) b.key.params["tool"] = "cachegrind";
      b.key.metric = m.name;
      b.unit = m.unit;
      b.direction = model::Direction::lower_is_better;
      b.samples = {e.value};
      b.extra = extra;
      b.extra["tool"] = tool_name(tool);
      b.extra["event"] = event;
      out.push_back(std::move(p));
    }
  return {};
}

// The error parse_json gives for the summary at [start, end) of the whole
// text, placed where it is in the file: the text before it is blanked
// (newlines kept), so line:column count from the file's start.
Error placed_error(std::string_view text, size_t start, size_t end, const std::string& source) {
  std::string blanked(text.substr(0, end));
  for (size_t i = 0; i < start; ++i)
    if (blanked[i] != '\n') blanked[i] = ' ';
  auto doc = parse_json(blanked, source);
  if (!doc) return doc.error();
  return error_at(source, line_col(text, start), "expected one JSON summary here");
}

Error not_a_summary(std::string_view text, size_t at, const std::string& source) {
  std::string_view rest = text.substr(at, std::min(text.find('\n', at), text.size()) - at);
  size_t n = std::min<size_t>(rest.size(), 40);
  while (n < rest.size() && (rest[n] & 0xC0) == 0x80) --n;  // not inside a UTF-8 character
  return error_at(source, line_col(text, at),
                  "expected a summary, one JSON object a line as --output-format=json prints them, got '" +
                      std::string(rest.substr(0, n)) + "'");
}

// Summaries one after another: --output-format=json prints one a line,
// pretty-json indented ones, `cat` of summary.json files none between.
// simdjson's document stream says where each one starts and ends.
Status read_stream(const Input& in, ParsedList& out) {
  const std::string_view t = in.text;
  simdjson::padded_string buf(t);
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document_stream docs;
  // One batch as large as the text: a summary never spans two.
  if (parser.iterate_many(buf, std::max<size_t>(buf.size(), 64)).get(docs))
    return placed_error(t, 0, t.size(), in.source);
  size_t next = 0;  // the end of the last summary read
  for (auto it = docs.begin(); it != docs.end(); ++it) {
    const size_t start = it.current_index();
    if (size_t gap = t.find_first_not_of(" \t\r\n", next); gap != std::string_view::npos && gap < start)
      return not_a_summary(t, gap, in.source);
    if (start >= t.size() || t[start] != '{') return not_a_summary(t, start, in.source);
    // A summary cut off or broken: parse_json says where. (source() is not
    // asked of a broken one: simdjson 3.0 reads past the text there.)
    if (it.error()) return placed_error(t, start, t.size(), in.source);
    const std::string_view src = it.source();
    if (src.empty() || src.data() != buf.data() + start || start + src.size() > t.size())
      return placed_error(t, start, t.size(), in.source);
    next = start + src.size();
    auto doc = parse_json(src, in.source);
    if (!doc) return placed_error(t, start, next, in.source);
    // Where it starts: its line, and the column when it does not start one.
    const std::string lc = line_col(t, start);
    const std::string at = lc.substr(lc.size() - 2) == ":1" ? lc.substr(0, lc.size() - 2) : lc;
    const std::string where = in.source + ":" + at;
    if (auto st = read_summary(*doc, Loc{&where, ""}, at + ":", out); !st) return st;
  }
  if (size_t rest = t.find_first_not_of(" \t\r\n", next); rest != std::string_view::npos)
    return t[rest] == '{' ? placed_error(t, rest, t.size(), in.source) : not_a_summary(t, rest, in.source);
  return {};
}

}  // namespace

Result<ParsedList> parse_iai_callgrind(const Input& in) {
  ParsedList out;
  const size_t first = in.text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return out;  // nothing printed; finish() says so
  if (in.text[first] != '{' && in.text[first] != '[')
    return error_at(in.source, line_col(in.text, first),
                    "expected iai-callgrind's JSON summary (--save-summary=json, or --output-format=json "
                    "on stdout); its terminal text is not read");
  auto doc = parse_json(in.json(), in.source);
  const Loc root{&in.source, ""};
  if (!doc && in.text[first] == '{') {  // several summaries, not one document
    if (auto st = read_stream(in, out); !st) return st.error();
    return out;
  }
  if (!doc) return doc.error();
  for (size_t i = 0; i < (doc->is_array() ? doc->size() : 1); ++i)  // `jq -s`: an array of them
    if (auto st = read_summary(doc->is_array() ? (*doc)[i] : *doc, doc->is_array() ? root.child(i) : root, "", out);
        !st)
      return st.error();
  return out;
}

}  // namespace bb::formats::detail
