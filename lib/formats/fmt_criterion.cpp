// criterion.rs keeps each benchmark in target/criterion/<id...>/new/:
//   benchmark.json  {"group_id", "function_id"|null, "value_str"|null,
//                    "throughput"|null, "full_id", "directory_name", "title"}
//   sample.json     {"sampling_mode": "Linear"|"Flat", "iters": [...],
//                    "times": [...]}  total ns for iters[i] iterations
//   estimates.json  {"mean"|"median"|"std_dev"|"median_abs_dev"|"slope":
//                    {"point_estimate", "standard_error", "confidence_interval"}}
// A sample is times[i]/iters[i] (seconds per iteration) with iters[i]
// as its iteration count. Before 0.3, sample.json was a pair of arrays
// [[iters...], [times...]] and estimates' keys were capitalised ("Mean",
// "Median", "StdDev", "MedianAbsDev", "Slope"); both layouts are read. Other directories (base/, change/, report/)
// hold older baselines and HTML and are not read.
#include <algorithm>
#include <filesystem>
#include <tuple>

#include "formats/json_support.h"
#include "formats/parsers.h"
#include "util/file.h"

namespace bb::formats::detail {

Result<Parsed> parse_criterion_files(const CriterionFiles& files) {
  Parsed p;
  p.place = "(document root)";
  auto& b = p.bench;
  b.key.metric = "wall_time";
  b.unit = "s";

  auto bench = parse_json(files.benchmark_json, files.benchmark_source);
  if (!bench) return bench.error();
  Loc broot{&files.benchmark_source, ""};
  if (auto st = expect(*bench, broot, Kind::object); !st) return st.error();
  auto group = need_string(*bench, broot, "group_id");
  if (!group) return group.error();
  b.key.name = *group;
  auto function = maybe(*bench, broot, "function_id", Kind::string);
  if (!function) return function.error();
  if (*function) b.key.name += "/" + (*function)->get<std::string>();
  auto value = maybe(*bench, broot, "value_str", Kind::string);
  if (!value) return value.error();
  if (*value) b.key.params["value"] = (*value)->get<std::string>();
  if (auto t = bench->find("throughput"); t != bench->end() && !t->is_null()) b.extra["throughput"] = *t;
  if (auto id = bench->find("full_id"); id != bench->end() && id->is_string()) b.extra["full_id"] = *id;

  auto sample = parse_json(files.sample_json, files.sample_source);
  if (!sample) return sample.error();
  Loc sroot{&files.sample_source, ""};
  // Where iters and times are: members of an object (0.3 on), or the two
  // halves of a pair (before 0.3).
  const json* iters = nullptr;
  const json* times = nullptr;
  Loc iters_at = sroot.child("iters"), times_at = sroot.child("times");
  if (sample->is_array()) {
    if (sample->size() != 2)
      return sroot.bad("expected an object {\"iters\", \"times\"} or, before criterion 0.3, a pair "
                       "[[iters...], [times...]]; got an array of " + std::to_string(sample->size()));
    iters_at = sroot.child(size_t(0));
    times_at = sroot.child(size_t(1));
    for (size_t i = 0; i < 2; ++i)
      if (auto st = expect((*sample)[i], sroot.child(i), Kind::array); !st) return st.error();
    iters = &(*sample)[0];
    times = &(*sample)[1];
  } else {
    if (auto st = expect(*sample, sroot, Kind::object); !st) return st.error();
    auto i = need(*sample, sroot, "iters", Kind::array);
    if (!i) return i.error();
    auto t = need(*sample, sroot, "times", Kind::array);
    if (!t) return t.error();
    iters = *i;
    times = *t;
  }
  if (iters->size() != times->size())
    return times_at.bad("has " + std::to_string(times->size()) + " entries for " + std::to_string(iters->size()) +
                        " iters; expected one time per entry of iters");
  for (size_t i = 0; i < iters->size(); ++i) {
    auto n = finite_number((*iters)[i], iters_at.child(i));
    if (!n) return n.error();
    if (*n <= 0) return iters_at.child(i).bad("expected a positive iteration count");
    auto t = finite_number((*times)[i], times_at.child(i));
    if (!t) return t.error();
    b.samples.push_back(*t / *n * 1e-9);
    b.iterations.push_back(*n);
  }
  if (sample->is_object())
    if (auto m = sample->find("sampling_mode"); m != sample->end() && m->is_string()) b.extra["sampling_mode"] = *m;

  if (!files.estimates_json.empty()) {
    auto est = parse_json(files.estimates_json, files.estimates_source);
    if (!est) return est.error();
    Loc eroot{&files.estimates_source, ""};
    if (auto st = expect(*est, eroot, Kind::object); !st) return st.error();
    // (key, key before 0.3, summary name)
    const std::tuple<const char*, const char*, const char*> kStats[] = {
        {"mean", "Mean", "mean"}, {"median", "Median", "median"}, {"std_dev", "StdDev", "stddev"},
        {"median_abs_dev", "MedianAbsDev", "median_abs_dev"}, {"slope", "Slope", "slope"}};
    for (const auto& [key, old_key, as] : kStats) {
      for (const char* k : {key, old_key}) {
        auto e = maybe(*est, eroot, k, Kind::object);
        if (!e) return e.error();
        if (!*e) continue;
        auto v = need_number(**e, eroot.child(k), "point_estimate");
        if (!v) return v.error();
        b.summary[as] = *v * 1e-9;
      }
    }
  }
  return p;
}

std::vector<Parsed> criterion_throughput(const Parsed& wall) {
  std::vector<Parsed> out;
  auto t = wall.bench.extra.find("throughput");
  if (t == wall.bench.extra.end() || !t->is_object()) return out;
  auto add = [&](const char* metric, const char* unit, const nlohmann::json& n) {
    if (!n.is_number() || !(n.get<double>() > 0)) return;
    Parsed p = wall;
    p.bench.key.metric = metric;
    p.bench.unit = unit;
    p.bench.direction = model::Direction::higher_is_better;
    p.bench.summary.clear();
    p.bench.extra.erase("full_id");
    for (double& s : p.bench.samples) s = s > 0 ? n.get<double>() / s : 0;
    out.push_back(std::move(p));
  };
  for (const auto& [kind, n] : t->items()) {
    if (kind == "Bytes" || kind == "BytesDecimal") add("throughput", "bytes/s", n);
    else if (kind == "Elements") add("throughput", "elements/s", n);
    else if (kind == "ElementsAndBytes" && n.is_object()) {
      add("throughput", "elements/s", n.value("elements", nlohmann::json()));
      add("throughput_bytes", "bytes/s", n.value("bytes", nlohmann::json()));
    }
  }
  return out;
}

namespace {

Result<std::string> read_criterion_file(const std::filesystem::path& p, const ParseOptions& options) {
  auto text = read_file(p.string(), options.max_bytes);
  if (!text) return make_error(Errc::parse, text.error().message);
  return std::move(*text);
}

}  // namespace

Result<ParsedList> parse_criterion_dir(const std::string& dir, const ParseOptions& options) {
  namespace fs = std::filesystem;
  std::vector<fs::path> found;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec) return make_error(Errc::parse, dir + ": cannot list: " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return make_error(Errc::parse, dir + ": cannot list: " + ec.message());
    if (it.depth() > 16) {
      it.disable_recursion_pending();
      continue;
    }
    const fs::path& path = it->path();
    if (path.filename() == "report" || path.filename() == "base" || path.filename() == "change") {
      it.disable_recursion_pending();
      continue;
    }
    if (path.filename() == "benchmark.json" && path.parent_path().filename() == "new") found.push_back(path.parent_path());
  }
  std::sort(found.begin(), found.end());
  ParsedList out;
  for (const auto& d : found) {
    CriterionFiles files;
    files.benchmark_source = (d / "benchmark.json").string();
    files.sample_source = (d / "sample.json").string();
    files.estimates_source = (d / "estimates.json").string();
    auto bench = read_criterion_file(files.benchmark_source, options);
    if (!bench) return bench.error();
    files.benchmark_json = std::move(*bench);
    if (!path_exists(files.sample_source))
      return error_at(files.sample_source, "", "is missing; expected criterion's samples beside benchmark.json");
    auto sample = read_criterion_file(files.sample_source, options);
    if (!sample) return sample.error();
    files.sample_json = std::move(*sample);
    if (path_exists(files.estimates_source)) {
      auto est = read_criterion_file(files.estimates_source, options);
      if (!est) return est.error();
      files.estimates_json = std::move(*est);
    }
    auto p = parse_criterion_files(files);
    if (!p) return p.error();
    p->place = files.benchmark_source;
    for (auto& t : criterion_throughput(*p)) out.push_back(std::move(t));
    out.push_back(std::move(*p));
  }
  return out;
}

}  // namespace bb::formats::detail
