// `go test -bench` text, read as Go's benchfmt reads it. A result line is
//   BenchmarkName/sub=1-8   <N>   <value> <unit>   [<value> <unit>]...
// where "-8" is GOMAXPROCS (absent when 1) and N the iterations behind the
// per-op values. -count N repeats the line: one sample per line. A unit is
// anything without spaces: ns/op is wall_time, B/op, allocs/op and MB/s have
// names of their own, and any other (b.ReportMetric's "commas/op",
// "auxMetricUnits", a runner's "build-real-ns/op") is its own metric; a line
// need not have ns/op (ReportMetric(0, "ns/op") drops it). "pkg:" lines name
// the package of the lines that follow; "--- FAIL:" / "--- SKIP:" mark
// benchmarks that did not finish. Other lines (test logs, PASS, ok) are not
// benchmark output and are passed over.
//
// `go test -json` (test2json events, one JSON object per line) carries the
// same text in its "output" events, a line sometimes split across two
// events; each package's output is put back together and read as above.
#include <map>

#include "formats/json_support.h"
#include "formats/parsers.h"
#include "formats/text_lines.h"
#include "util/json_read.h"

namespace bb::formats::detail {

bool go_benchmark_name(std::string_view s) {
  if (s.substr(0, 9) != "Benchmark") return false;
  return s.size() == 9 || !(s[9] >= 'a' && s[9] <= 'z');
}

namespace {

struct Metric {
  const char* metric;
  const char* unit;
  double scale;
};

Metric metric_for(std::string_view unit) {
  if (unit == "ns/op") return {"wall_time", "s", 1e-9};
  if (unit == "B/op") return {"alloc_bytes", "bytes", 1};
  if (unit == "allocs/op") return {"allocs", "count", 1};
  if (unit == "MB/s") return {"throughput", "MB/s", 1};
  return {nullptr, nullptr, 1};  // a b.ReportMetric unit: metric and unit are its name
}

class Reader {
 public:
  explicit Reader(const Input& in) : in_(in) {}

  bool line(size_t n, std::string_view text) {
    auto f = fields(text);
    if (f.empty()) return true;
    // A configuration line; an empty value unsets the key (benchfmt).
    if (f[0].text == "pkg:") {
      pkg_ = f.size() >= 2 ? std::string(f[1].text) : std::string();
      return true;
    }
    if (f[0].text == "---" && f.size() >= 3 && (f[1].text == "FAIL:" || f[1].text == "SKIP:")) {
      if (!go_benchmark_name(f[2].text)) return true;  // a failing test, not ours
      pending_status_ = f[1].text == "FAIL:" ? model::BenchmarkStatus::failed : model::BenchmarkStatus::skipped;
      pending_name_ = std::string(f[2].text);
      pending_place_ = place(n, f[0].column);
      pending_reason_.clear();
      mark(pending_name_, pending_status_, pending_place_);
      return true;
    }
    // Indented lines after "--- FAIL" are its log: the reason.
    if (!pending_name_.empty() && (text.substr(0, 4) == "    " || text.substr(0, 1) == "\t")) {
      if (pending_reason_.empty()) set_reason(pending_name_, std::string(text.substr(text.find_first_not_of(" \t"))));
      pending_reason_ = "x";
      return true;
    }
    pending_name_.clear();
    if (!result_name(f)) return true;  // -v prints the bare name first; prose is not ours
    return result(n, f);
  }

  const Error* error() const { return error_ ? &*error_ : nullptr; }

  ParsedList finish() {
    std::vector<Parsed> ordered(entries_.size());
    for (auto& [key, entry] : entries_) ordered[order_.at(key)] = std::move(entry);
    ParsedList out;
    for (auto& p : ordered) out.push_back(std::move(p));
    return out;
  }

 private:
  // benchfmt reads every result line whose name begins with "Benchmark";
  // go test's own functions follow it with a capital letter. A name like
  // "Benchmarkethereum_storage_total" (golang.org/x/perf writes them) is
  // read when the line has a result's shape, an iteration count next, so
  // prose such as "Benchmarking x: warming up" beside it is still skipped.
  static bool result_name(const std::vector<Field>& f) {
    if (f.size() == 1 || f[0].text.substr(0, 9) != "Benchmark") return false;
    if (go_benchmark_name(f[0].text)) return true;
    return f.size() >= 4 && f[1].text.find_first_not_of("0123456789") == std::string_view::npos;
  }

  bool fail(size_t line, size_t col, const std::string& what) {
    error_ = error_at(in_.source, place(line, col), what);
    return false;
  }

  bool result(size_t n, const std::vector<Field>& f) {
    std::string name(f[0].text);
    std::string procs = "1";
    if (auto dash = name.rfind('-'); dash != std::string::npos && dash + 1 < name.size() &&
                                     name.find_first_not_of("0123456789", dash + 1) == std::string::npos) {
      procs = name.substr(dash + 1);
      name.resize(dash);
    }
    last_procs_ = procs;
    auto iters = parse_decimal(f[1].text);
    if (!iters || f[1].text.find_first_not_of("0123456789") != std::string_view::npos)
      return fail(n, f[1].column, "expected the iteration count after '" + std::string(f[0].text) +
                                      "', got '" + std::string(f[1].text) + "'");
    if (f.size() < 4 || (f.size() - 2) % 2 != 0)
      return fail(n, f.back().column, "expected pairs of <value> <unit> after the iteration count");
    for (size_t i = 2; i + 1 < f.size(); i += 2) {
      auto v = parse_decimal(f[i].text);
      if (!v) return fail(n, f[i].column, "expected a finite number, got '" + std::string(f[i].text) + "'");
      std::string unit(f[i + 1].text);
      // A number where the unit belongs: the pairs are out of step.
      if (parse_decimal(unit))
        return fail(n, f[i + 1].column, "expected a unit after the value " + std::string(f[i].text) + ", got '" +
                                            unit + "'");
      Metric m = metric_for(unit);
      model::Benchmark& b = entry(name, procs, m.metric ? m.metric : unit, m.unit ? m.unit : unit, n);
      b.samples.push_back(*v * m.scale);
      b.iterations.push_back(*iters);
    }
    return true;
  }

  model::Benchmark& entry(const std::string& name, const std::string& procs, const std::string& metric,
                          const std::string& unit, size_t line) {
    model::BenchmarkKey key;
    key.name = name;
    if (!pkg_.empty()) key.params["pkg"] = pkg_;
    key.params["procs"] = procs;
    key.metric = metric;
    auto it = entries_.find(key);
    if (it == entries_.end()) {
      Parsed p;
      p.bench.key = key;
      p.bench.unit = unit;
      p.bench.direction = model::direction_for_unit(unit);  // MB/s and a ReportMetric rate
      p.place = place(line, 1);
      order_[key] = order_.size();
      it = entries_.emplace(key, std::move(p)).first;
    }
    return it->second.bench;
  }

  void mark(const std::string& name, model::BenchmarkStatus status, const std::string& where) {
    bool found = false;
    for (auto& [key, p] : entries_)
      if (key.name == name && (pkg_.empty() || (key.params.count("pkg") && key.params.at("pkg") == pkg_))) {
        p.bench.status = status;
        found = true;
      }
    if (found) return;
    // A benchmark that failed or was skipped before producing a line.
    model::BenchmarkKey key;
    key.name = name;
    if (!pkg_.empty()) key.params["pkg"] = pkg_;
    key.params["procs"] = last_procs_;
    key.metric = "wall_time";
    Parsed p;
    p.bench.key = key;
    p.bench.status = status;
    p.bench.reason = status == model::BenchmarkStatus::failed ? "failed" : "skipped";
    p.place = where;
    order_[key] = order_.size();
    entries_.emplace(key, std::move(p));
  }

  void set_reason(const std::string& name, const std::string& reason) {
    for (auto& [key, p] : entries_)
      if (key.name == name && p.bench.status != model::BenchmarkStatus::ok) p.bench.reason = reason;
  }

  const Input& in_;
  std::string pkg_, last_procs_ = "1";
  std::map<model::BenchmarkKey, Parsed> entries_;
  std::map<model::BenchmarkKey, size_t> order_;
  std::string pending_name_, pending_place_, pending_reason_;
  model::BenchmarkStatus pending_status_ = model::BenchmarkStatus::ok;
  std::optional<Error> error_;
};

// test2json's events put back into each package's text, packages in the
// order they first spoke; a package's text starts with its "pkg:" line.
Result<std::string> from_test2json(const Input& in) {
  std::vector<std::string> order;
  std::map<std::string, std::string> text;
  bool ok = for_each_line(in.text, [&](size_t n, std::string_view line) {
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) return true;
    if (line[line.find_first_not_of(" \t")] != '{') {
      text[""] = in.source + ":" + std::to_string(n) + ": not a test2json event (one JSON object per line)";
      return false;
    }
    auto parsed = parse_json(line, in.source);
    if (!parsed || !parsed->is_object()) {
      const std::string at = in.source + ":" + std::to_string(n);
      std::string why = parsed ? at + ": not a test2json event (one JSON object per line)" : parsed.error().message;
      // The event's own "1:column" is this line's.
      if (!parsed && why.rfind(in.source + ":1:", 0) == 0) why = at + why.substr(in.source.size() + 2);
      text[""] = why;
      return false;
    }
    const nlohmann::json& e = *parsed;
    // json::value() throws on a member of another type (found by fuzz-go-test).
    std::string action, pkg;
    read_member(e, "Action", action);
    if (action != "output") return true;
    auto out = e.find("Output");
    if (out == e.end() || !out->is_string()) return true;
    read_member(e, "Package", pkg);
    auto [it, first] = text.emplace(pkg, pkg.empty() ? "" : "pkg: " + pkg + "\n");
    if (first) order.push_back(pkg);
    it->second += out->get<std::string>();
    return true;
  });
  if (!ok) return make_error(Errc::parse, text[""]);
  std::string all;
  for (const auto& pkg : order) all += text[pkg] + "\n";
  return all;
}

}  // namespace

Result<ParsedList> parse_go_test(const Input& in) {
  const size_t first = in.text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && in.text[first] == '{') {
    auto text = from_test2json(in);
    if (!text) return text.error();
    const std::string source = in.source + " (go test -json output, as text)";
    Input again{*text, source, in.options};
    return parse_go_test(again);
  }
  Reader r(in);
  if (!for_each_line(in.text, [&](size_t n, std::string_view line) { return r.line(n, line); }))
    return *r.error();
  return r.finish();
}

}  // namespace bb::formats::detail
