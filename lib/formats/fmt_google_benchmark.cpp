// Google Benchmark --benchmark_format=json / --benchmark_out. Each row of
// "benchmarks" is one run: run_type "iteration" rows are samples (a mean
// over `iterations` iterations), "aggregate" rows (mean, median, stddev,
// cv, user-defined) are summaries of the iteration rows with the same
// run_name, kept apart. Every other numeric member of a row is a user
// counter and becomes its own metric. Rows are streamed, so a file of
// hundreds of MB is never a DOM.
#include <algorithm>
#include <iterator>
#include <memory>
#include <string_view>
#include <unordered_map>

#include "formats/google_benchmark_rows.h"
#include "formats/json_support.h"
#include "formats/name_index.h"
#include "formats/parsers.h"
#include "formats/units.h"
#include "util/json_read.h"

namespace bb::formats::detail {

namespace {

std::string counter_unit(const std::string& name) {
  if (name == "bytes_per_second") return "bytes/s";
  if (name == "items_per_second") return "items/s";
  return "count";
}

// What the rows say of one metric of a run; it becomes a model::Benchmark
// only when the file is read, so a run held meanwhile is its data, not
// three or four whole benchmarks (a quarter of a large file's memory).
struct Series {
  std::vector<double> samples, iterations;
  model::Summary summary;
};

struct Group {
  std::string run_name, place;
  Series wall, cpu;
  std::map<std::string, Series, std::less<>> counters;
  json extra;  // null, like model::Benchmark::extra, until a row sets something
  model::BenchmarkStatus status = model::BenchmarkStatus::ok;
  std::string reason;
};

class Reader {
 public:
  Status row(const json& r, const Loc& at) {
    auto name = need_string(r, at, "name");
    if (!name) return name.error();
    auto run_name_v = maybe(r, at, "run_name", Kind::string);
    if (!run_name_v) return run_name_v.error();
    std::string run_name = *run_name_v ? (*run_name_v)->get<std::string>() : *name;
    std::string run_type = "iteration";
    if (auto v = maybe(r, at, "run_type", Kind::string); !v) return v.error();
    else if (*v) run_type = (*v)->get<std::string>();
    if (run_type != "iteration" && run_type != "aggregate")
      return at.child("run_type").bad("expected \"iteration\" or \"aggregate\", got \"" + run_type + "\"");
    std::string aggregate;
    if (run_type == "aggregate") {
      auto a = need_string(r, at, "aggregate_name");
      if (!a) return a.error();
      aggregate = *a;
      // Complexity fits (BigO, RMS) describe a whole family, not a run.
      if (aggregate == "BigO" || aggregate == "RMS") {
        Complexity& c = complexity_[run_name];
        c.fits[aggregate] = r;
        if (c.place.empty()) c.place = at.ptr;
        if (aggregate == "BigO") {
          auto unit = need_string(r, at, "time_unit");
          if (!unit) return unit.error();
          auto scale = seconds_per(*unit);
          if (!scale)
            return at.child("time_unit").bad("unknown unit \"" + *unit + "\", expected " + kTimeUnitsExpected);
          auto real = need_number(r, at, "real_coefficient");
          if (!real) return real.error();
          auto cpu = need_number(r, at, "cpu_coefficient");
          if (!cpu) return cpu.error();
          c.real = *real * *scale;
          c.cpu = *cpu * *scale;
        }
        return {};
      }
    }

    Group& g = group(run_name, at);
    if (auto st = status_of(r, at, g); !st) return st.error();
    if (g.status != model::BenchmarkStatus::ok && run_type == "iteration") return {};

    auto unit = need_string(r, at, "time_unit");
    if (!unit) return unit.error();
    auto scale = seconds_per(*unit);
    if (!scale)
      return at.child("time_unit").bad("unknown unit \"" + *unit + "\", expected " + kTimeUnitsExpected);
    auto real = need_number(r, at, "real_time");
    if (!real) return real.error();
    auto cpu = need_number(r, at, "cpu_time");
    if (!cpu) return cpu.error();

    if (run_type == "aggregate") {
      std::string agg_unit = "time";
      if (auto v = maybe(r, at, "aggregate_unit", Kind::string); !v) return v.error();
      else if (*v) agg_unit = (*v)->get<std::string>();
      // "percentage" (cv) is a plain ratio; "time" is in time_unit.
      double s = agg_unit == "percentage" ? 1.0 : *scale;
      g.wall.summary[aggregate] = *real * s;
      g.cpu.summary[aggregate] = *cpu * s;
      return for_counters(r, at, [&](const std::string& k, double v) {
        counter(g, k).summary[aggregate] = v;
      });
    }

    auto iters = need_number(r, at, "iterations");
    if (!iters) return iters.error();
    if (g.wall.samples.empty()) reserve_repetitions(r, g);
    g.wall.samples.push_back(*real * *scale);
    g.wall.iterations.push_back(*iters);
    g.cpu.samples.push_back(*cpu * *scale);
    g.cpu.iterations.push_back(*iters);
    if (auto t = r.find("threads"); t != r.end() && t->is_number() && *t != 1) g.extra["threads"] = *t;
    if (auto l = r.find("label"); l != r.end() && l->is_string()) g.extra["label"] = *l;
    return for_counters(r, at, [&](const std::string& k, double v) { counter(g, k).samples.push_back(v); });
  }

  // A row of the fast reader (google_benchmark_rows.h), as row() reads
  // the same row; false where row() would word an error or keep a fit,
  // so the DOM reader reads the file instead. `place` makes the row's
  // pointer only when a run is new.
  template <class Place>
  bool plain_row(const GbRow& r, Place&& place) {
    const std::string_view run_type = r.run_type.value_or("iteration");
    const bool aggregate = run_type == "aggregate";
    if (!aggregate && run_type != "iteration") return false;
    if (aggregate && (!r.aggregate_name || *r.aggregate_name == "BigO" || *r.aggregate_name == "RMS")) return false;
    Group& g = group(r.run_name.value_or(r.name), place);
    if (r.error_occurred) {
      g.status = model::BenchmarkStatus::failed;
      g.reason = std::string(r.error_message.value_or("error_occurred"));
    } else if (r.skipped) {
      g.status = model::BenchmarkStatus::skipped;
      g.reason = std::string(r.skip_message.value_or(r.error_message.value_or("skipped")));
    }
    if (g.status != model::BenchmarkStatus::ok && !aggregate) return true;
    if (!r.time_unit || !r.real_time || !r.cpu_time || (!aggregate && !r.iterations)) return false;
    auto scale = seconds_per(*r.time_unit);
    if (!scale) return false;
    if (aggregate) {
      const std::string name(*r.aggregate_name);
      // "percentage" (cv) is a plain ratio; "time" is in time_unit.
      const double s = r.aggregate_unit.value_or("time") == "percentage" ? 1.0 : *scale;
      g.wall.summary[name] = *r.real_time * s;
      g.cpu.summary[name] = *r.cpu_time * s;
      for (const auto& [k, v] : r.counters) counter(g, k).summary[name] = v;
      return true;
    }
    if (g.wall.samples.empty() && r.repetitions) reserve(g, *r.repetitions);
    g.wall.samples.push_back(*r.real_time * *scale);
    g.wall.iterations.push_back(*r.iterations);
    g.cpu.samples.push_back(*r.cpu_time * *scale);
    g.cpu.iterations.push_back(*r.iterations);
    if (!r.threads.is_null()) g.extra["threads"] = r.threads;
    if (r.label) g.extra["label"] = std::string(*r.label);
    for (const auto& [k, v] : r.counters) counter(g, k).samples.push_back(v);
    return true;
  }

  void expect_runs(size_t n) { index_.reserve(n); }

  ParsedList finish() {
    NameIndex().swap(index_);  // its memory goes before the benchmarks are built
    ParsedList out;
    // One group per run name, each metric of it once, and a fit only for a
    // family no run carries: no key can come twice.
    out.keys_unique = true;
    size_t n = 2 * complexity_.size();
    for (const auto& g : groups_) n += 2 + g->counters.size();
    out.reserve(n);
    for (auto& g : groups_) {
      Complexity* fits = fits_of(g->run_name);
      emit(out, *g, fits, "wall_time", "s", std::move(g->wall), false);
      emit(out, *g, fits, "cpu_time", "s", std::move(g->cpu), g->counters.empty());
      for (auto it = g->counters.begin(); it != g->counters.end(); ++it)
        emit(out, *g, fits, it->first, counter_unit(it->first), std::move(it->second),
             std::next(it) == g->counters.end());
      g.reset();  // a group's memory goes as soon as its benchmarks are out
    }
    emit_fits(out);
    return out;
  }

 private:
  Group& group(const std::string& run_name, const Loc& at) {
    return group(std::string_view(run_name), [&] { return at.ptr; });
  }
  // `place()` gives the row's pointer, asked only for a new run.
  template <class Place>
  Group& group(std::string_view run_name, Place&& place) {
    // A run's rows mostly come together (its repetitions, then its
    // aggregates): the last group, without hashing its name again.
    if (!groups_.empty() && groups_[last_]->run_name == run_name) return *groups_[last_];
    last_ = index_.find_or_add(run_name, groups_.size(), [&](size_t i) -> std::string_view {
      return groups_[i]->run_name;
    });
    if (last_ == groups_.size()) {
      groups_.push_back(std::make_unique<Group>());
      Group& g = *groups_.back();
      g.run_name = std::string(run_name);
      g.place = place();
    }
    return *groups_[last_];
  }

  static Series& counter(Group& g, std::string_view name) {
    auto it = g.counters.find(name);  // by view: no string made for a counter the run has
    if (it == g.counters.end()) {
      it = g.counters.emplace(std::string(name), Series{}).first;
      it->second.samples.reserve(g.wall.samples.capacity());  // as many as the run's repetitions
    }
    return it->second;
  }

  // A run's first sample: room for as many as its "repetitions" says will
  // come, so each of its series is allocated once, not grown.
  static void reserve_repetitions(const json& r, Group& g) {
    auto reps = r.find("repetitions");
    if (reps == r.end() || !reps->is_number_unsigned()) return;
    reserve(g, reps->get<uint64_t>());
  }
  static void reserve(Group& g, uint64_t repetitions) {
    const size_t n = std::min<uint64_t>(repetitions, 1024);
    for (Series* s : {&g.wall, &g.cpu}) {
      s->samples.reserve(n);
      s->iterations.reserve(n);
    }
  }

  template <class Fn>
  Status for_counters(const json& r, const Loc& at, Fn fn) {
    const std::string_view* builtin = std::begin(kGbBuiltin);
    for (const auto& [k, v] : r.items()) {  // in key order
      while (builtin != std::end(kGbBuiltin) && *builtin < k) ++builtin;
      if (builtin != std::end(kGbBuiltin) && *builtin == k) continue;
      if (!v.is_number()) continue;  // e.g. a string a newer version added
      auto n = finite_number(v, [&, &name = k] { return at.child(name); });  // clang 14 captures no binding
      if (!n) return n.error();
      fn(k, *n);
    }
    return {};
  }

  // json::value() throws when the member is there but not a string (found
  // by fuzz-google-benchmark); a message of the wrong type falls back.
  static std::string string_or(const json& r, const char* key, std::string fallback) {
    read_member(r, key, fallback);  // absent, null or not a string: leaves the fallback
    return fallback;
  }

  Status status_of(const json& r, const Loc& at, Group& g) {
    auto err = maybe(r, at, "error_occurred", Kind::boolean);
    if (!err) return err.error();
    if (*err && (*err)->get<bool>()) {
      g.status = model::BenchmarkStatus::failed;
      g.reason = string_or(r, "error_message", "error_occurred");
      return {};
    }
    auto skipped = maybe(r, at, "skipped", Kind::any);
    if (!skipped) return skipped.error();
    if (*skipped && (((*skipped)->is_boolean() && (*skipped)->get<bool>()) ||
                     ((*skipped)->is_number() && (*skipped)->get<double>() != 0))) {
      g.status = model::BenchmarkStatus::skipped;
      g.reason = string_or(r, "skip_message", string_or(r, "error_message", "skipped"));
    }
    return {};
  }

  // The complexity fits of the family run `run_name` belongs to, if any
  // (the last such family, as the map orders them).
  struct Complexity;
  Complexity* fits_of(const std::string& run_name) {
    Complexity* fits = nullptr;
    for (auto& [family, c] : complexity_)
      if (run_name.size() >= family.size() && run_name.compare(0, family.size(), family) == 0 &&
          (run_name.size() == family.size() || run_name[family.size()] == '/'))
        fits = &c;
    return fits;
  }

  // One metric of a run as a benchmark, built where it will stay.
  // `last`: the group's last benchmark, which may take its name.
  static void emit(ParsedList& out, Group& g, Complexity* fits, const std::string& metric,
                   const std::string& unit, Series&& series, bool last) {
    const bool ok = g.status == model::BenchmarkStatus::ok;
    // --benchmark_report_aggregates_only gives summaries alone; with neither
    // there is nothing to report.
    if (ok && series.samples.empty() && series.summary.empty()) return;
    model::Benchmark& b = out.emplace(g.place);
    if (last) b.key.name = std::move(g.run_name);
    else b.key.name = g.run_name;
    b.key.metric = metric;
    b.unit = unit;
    // The JSON does not carry a counter's flags: the two rates the library
    // itself sets (SetBytesProcessed/SetItemsProcessed) are higher-is-better,
    // a user counter is taken as lower-is-better.
    b.direction = model::direction_for_unit(unit);
    b.summary = std::move(series.summary);
    b.status = g.status;
    b.reason = g.reason;
    b.extra = g.extra;
    if (ok) {
      b.samples = std::move(series.samples);
      b.iterations = std::move(series.iterations);
    }
    if (ok && b.samples.empty()) {
      b.summary_only = true;
      auto mean = b.summary.find("mean");
      b.samples.push_back(mean != b.summary.end() ? mean->second : b.summary.begin()->second);
    }
    if (b.iterations.size() != b.samples.size()) b.iterations.clear();
    if (fits) {
      b.extra["complexity"] = fits->fits;
      fits->claimed = true;  // a run of the family carries it
    }
  }

  // A family whose fit came without its runs (a filtered or trimmed file):
  // the fit's coefficients are what it measured, kept as summaries of the
  // family (seconds per unit of its big_o), or, with only an RMS row,
  // recorded as skipped with why, never dropped.
  void emit_fits(ParsedList& out) {
    for (auto& [family, c] : complexity_) {
      if (c.claimed) continue;
      const std::pair<const char*, std::optional<double>> coefficients[] = {{"real_coefficient", c.real},
                                                                            {"cpu_coefficient", c.cpu}};
      for (const auto& [metric, value] : coefficients) {
        model::Benchmark b;
        b.key.name = family;
        b.key.metric = metric;
        b.unit = "s";
        b.extra["complexity"] = c.fits;
        if (value) {
          b.summary_only = true;
          b.samples = {*value};
          b.summary["BigO"] = *value;
        } else {
          b.status = model::BenchmarkStatus::skipped;
          b.reason = "a complexity fit (RMS) without its BigO row or its runs: nothing measured";
        }
        out.push_back(Parsed{std::move(b), c.place});
      }
    }
  }

  std::vector<std::unique_ptr<Group>> groups_;
  NameIndex index_;
  size_t last_ = 0;  // the group of the last row
  struct Complexity {
    json fits = json::object();  // "BigO" and "RMS" rows as the harness wrote them
    std::optional<double> real, cpu;  // BigO's coefficients, in seconds
    std::string place;
    bool claimed = false;  // a run of the family carries it
  };
  std::map<std::string, Complexity> complexity_;
};

}  // namespace

Result<ParsedList> parse_google_benchmark(const Input& in) {
  {
    // The plain shape straight from simdjson; anything else, and every
    // error, from the DOM reader below.
    Reader fast;
    // A run's rows (its repetitions and aggregates) are a kilobyte or more:
    // room for that many runs, so the index is not rehashed as it grows.
    fast.expect_runs(in.text.size() / 1024);
    const Loc rows = Loc{&in.source, ""}.child("benchmarks");
    if (for_each_plain_row(in.json(), [&](const GbRow& r, size_t i) {
          return fast.plain_row(r, [&] { return rows.child(i).ptr; });
        }))
      return fast.finish();
  }
  Reader reader;
  auto streamed = stream_children(in.json(), in.source, "benchmarks",
                                  [&](const std::string&, json&& r, const Loc& at) -> Status {
                                    if (auto st = expect(r, at, Kind::object); !st) return st;
                                    return reader.row(r, at);
                                  });
  if (!streamed) return streamed.error();
  if (auto st = expect_streamed(*streamed, in.source, "benchmarks", Kind::array,
                                "an object with a \"benchmarks\" array (Google Benchmark JSON)");
      !st)
    return st.error();
  return reader.finish();
}

}  // namespace bb::formats::detail
