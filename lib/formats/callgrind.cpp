#include "formats/callgrind.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <vector>

#include "formats/text_lines.h"

namespace bb::formats {

namespace {

// The fields of a line, without their columns.
std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  for (const auto& f : detail::fields(line)) out.push_back(f.text);
  return out;
}

}  // namespace

Result<std::map<std::string, double>> parse_callgrind_totals(std::string_view text, const std::string& source) {
  std::vector<std::string_view> events, summary, totals;
  detail::for_each_line(text, [&](size_t, std::string_view line) {
    if (line.rfind("events:", 0) == 0) events = words(line.substr(7));
    else if (line.rfind("summary:", 0) == 0) summary = words(line.substr(8));
    else if (line.rfind("totals:", 0) == 0) totals = words(line.substr(7));
    return true;
  });
  if (events.empty()) return make_error(Errc::parse, source + ": no 'events:' line; not a callgrind output file");
  const auto& counts = summary.empty() ? totals : summary;
  if (counts.empty()) return make_error(Errc::parse, source + ": no 'summary:' or 'totals:' line (did valgrind finish?)");
  if (counts.size() > events.size())
    return make_error(Errc::parse, source + ": more counts than events");
  std::map<std::string, double> out;
  for (size_t i = 0; i < events.size(); ++i) {
    double v = 0;  // callgrind leaves trailing zero counts out
    if (i < counts.size()) {
      std::string number(counts[i]);
      char* e = nullptr;
      v = std::strtod(number.c_str(), &e);
      if (e == number.c_str() || *e != '\0' || !(v >= 0))
        return make_error(Errc::parse, source + ": count '" + number + "' of " + std::string(events[i]) + " is not a number");
    }
    out[std::string(events[i])] = v;
  }
  return out;
}

Status add_callgrind_functions(std::string_view text, const std::string& source,
                               std::map<std::string, FunctionCost>& into) {
  CallGraph graph;
  graph.functions = std::move(into);
  auto st = add_callgrind_calls(text, source, graph);
  into = std::move(graph.functions);
  return st;
}

Status add_callgrind_calls(std::string_view text, const std::string& source, CallGraph& into) {
  // The format (valgrind's docs/callgrind-format): "fn=(id) name" defines
  // a compressed name, "fn=(id)" refers to it; a cost line is `positions`
  // position columns, then the events in order (Ir first). The cost line
  // after "calls=" is what that call cost, inclusive: the caller's, not its
  // self cost.
  std::map<std::string, std::string> names;  // "(id)" -> name, shared by fn= and cfn=
  size_t positions = 1;
  std::string fn, callee;
  bool after_calls = false, ir_first = false;
  auto name_of = [&](std::string_view spec) -> std::string {
    std::string s(spec);
    if (s.empty() || s[0] != '(') return s;
    const size_t close = s.find(')');
    if (close == std::string::npos) return s;
    const std::string id = s.substr(0, close + 1);
    std::string rest = s.substr(close + 1);
    if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
    if (!rest.empty()) return names[id] = rest;
    auto it = names.find(id);
    return it == names.end() ? id : it->second;
  };
  std::optional<Error> bad;
  detail::for_each_line(text, [&](size_t line_no, std::string_view line) {
    if (line.empty()) return true;
    if (line.rfind("positions:", 0) == 0) {
      positions = words(line.substr(10)).size();
      if (positions == 0) positions = 1;
    } else if (line.rfind("events:", 0) == 0) {
      auto ev = words(line.substr(7));
      ir_first = !ev.empty() && ev[0] == "Ir";
    } else if (line.rfind("fn=", 0) == 0) {
      fn = name_of(line.substr(3));
      callee.clear();
      after_calls = false;
    } else if (line.rfind("cfn=", 0) == 0) {
      callee = name_of(line.substr(4));  // and defines the name if new
    } else if (line.rfind("calls=", 0) == 0) {
      after_calls = true;
    } else if ((line[0] >= '0' && line[0] <= '9') || line[0] == '+' || line[0] == '-' || line[0] == '*') {
      if (fn.empty()) return true;
      auto w = words(line);
      double ir = 0;
      if (w.size() > positions) {
        std::string number(w[positions]);
        char* e = nullptr;
        ir = std::strtod(number.c_str(), &e);
        if (e == number.c_str() || *e != '\0') {
          bad = make_error(Errc::parse, source + ":" + std::to_string(line_no) + ": expected a cost, got '" + number + "'");
          return false;
        }
      }
      FunctionCost& c = into.functions[fn];
      c.inclusive += ir;
      if (!after_calls) c.self += ir;
      else if (!callee.empty()) into.calls[fn][callee] += ir;
      after_calls = false;
    }
    return true;
  });
  if (bad) return *bad;
  if (!ir_first) return make_error(Errc::parse, source + ": no 'events: Ir ...' line; not a callgrind profile");
  return {};
}

std::vector<FunctionChange> profile_diff(const std::map<std::string, FunctionCost>& base,
                                         const std::map<std::string, FunctionCost>& head, size_t limit) {
  std::vector<FunctionChange> all;
  double total_base = 0, total_head = 0;
  for (const auto& [f, c] : base) total_base += c.self;
  for (const auto& [f, c] : head) total_head += c.self;
  auto add = [&](const std::string& f) {
    FunctionChange ch;
    ch.function = f;
    if (auto it = base.find(f); it != base.end()) ch.base = it->second;
    if (auto it = head.find(f); it != head.end()) ch.head = it->second;
    if (ch.base.self == ch.head.self && ch.base.inclusive == ch.head.inclusive) return;
    const double total = total_head - total_base;
    ch.share = total != 0 ? (ch.head.self - ch.base.self) / total : 0;
    all.push_back(ch);
  };
  for (const auto& [f, c] : base) add(f);
  for (const auto& [f, c] : head)
    if (!base.count(f)) add(f);
  std::sort(all.begin(), all.end(), [](const FunctionChange& a, const FunctionChange& b) {
    const double da = std::fabs(a.head.self - a.base.self), db = std::fabs(b.head.self - b.base.self);
    if (da != db) return da > db;
    const double ia = std::fabs(a.head.inclusive - a.base.inclusive), ib = std::fabs(b.head.inclusive - b.base.inclusive);
    if (ia != ib) return ia > ib;
    return a.function < b.function;
  });
  if (all.size() > limit) all.resize(limit);
  return all;
}

std::string callgrind_metric(const std::string& event) {
  static const std::map<std::string, std::string> names = {
      {"Ir", "instructions"},
      {"Dr", "data_reads"},
      {"Dw", "data_writes"},
      {"I1mr", "l1i_misses"},
      {"D1mr", "l1d_read_misses"},
      {"D1mw", "l1d_write_misses"},
      {"ILmr", "ll_instruction_misses"},
      {"DLmr", "ll_data_read_misses"},
      {"DLmw", "ll_data_write_misses"},
      {"Bc", "conditional_branches"},
      {"Bcm", "conditional_branch_misses"},
      {"Bi", "indirect_branches"},
      {"Bim", "indirect_branch_misses"},
      // Derived from the cache events by iai-callgrind/gungraun (its summary
      // JSON's names; its terminal output says "L1 Hits", "LL Hits", ...).
      {"L1hits", "l1_hits"},
      {"LLhits", "ll_hits"},
      {"RamHits", "ram_hits"},
      {"TotalRW", "total_rw"},
      {"EstimatedCycles", "estimated_cycles"},
  };
  auto it = names.find(event);
  return it == names.end() ? "" : it->second;
}

}  // namespace bb::formats
