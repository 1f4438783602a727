#include "config/suite.h"

#include <fnmatch.h>

#include <algorithm>
#include <set>

#include "config/shard.h"
#include "config/yaml_read.h"
#include "util/text.h"

namespace bb::config {

namespace {

std::string location(const std::string& src, const YAML::Mark& m) {
  return src + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

bool valid_name(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

bool valid_env_name(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// yaml-cpp keeps the last of two equal keys without a word; a typo'd
// duplicate must not silently replace the first.
Status check_duplicates(const std::string& src, const YAML::Node& map, const std::string& path) {
  std::set<std::string> seen;
  for (const auto& kv : map)
    if (!seen.insert(kv.first.Scalar()).second)
      return yaml_error(src, kv.first, path, "duplicate key '" + kv.first.Scalar() + "'");
  return {};
}

Status check_mapping(const std::string& src, const YAML::Node& map, const std::string& path,
                     const std::vector<std::string>& known) {
  BB_TRY(check_keys(src, map, path, known));
  return check_duplicates(src, map, path);
}

Status parse_env(const std::string& src, const YAML::Node& n, const std::string& path, Suite& s) {
  if (!n.IsMap()) return yaml_error(src, n, path, "expected a mapping of NAME: value");
  BB_TRY(check_duplicates(src, n, path));
  for (const auto& kv : n) {
    const std::string key = kv.first.Scalar();
    if (!valid_env_name(key))
      return yaml_error(src, kv.first, path, "'" + key + "' is not a valid environment variable name");
    if (key.rfind("BENCHBOX_", 0) == 0)
      return yaml_error(src, kv.first, path, "'" + key + "': the BENCHBOX_ prefix is reserved for benchbox");
    if (!kv.second.IsScalar())
      return yaml_error(src, kv.second, path + "." + key, "expected a string");
    s.env[key] = kv.second.Scalar();
  }
  return {};
}

Status parse_thresholds(const std::string& src, const YAML::Node& n, const std::string& path, Suite& s) {
  if (!n.IsMap()) return yaml_error(src, n, path, "expected a mapping of metric: relative threshold");
  BB_TRY(check_duplicates(src, n, path));
  for (const auto& kv : n) {
    const std::string metric = kv.first.Scalar();
    double v = 0;
    BB_TRY(read_double(src, n, path, metric.c_str(), v));
    // A fraction: 2 would be 200 %, most likely meant as 2 %.
    if (!kv.second.IsScalar() || !(v > 0 && v < 1))
      return yaml_error(src, kv.second, path + "." + metric, "expected a fraction between 0 and 1 (0.02 = 2%)");
    s.thresholds[metric] = v;
  }
  return {};
}

// Runs after `repetitions` is read: the budget is checked against it.
Status parse_sequential(const std::string& src, const YAML::Node& n, const std::string& path, Suite& s) {
  if (!n.IsMap()) return yaml_error(src, n, path, "expected a mapping with max_repetitions (and max_seconds)");
  BB_TRY(check_mapping(src, n, path, {"max_repetitions", "max_seconds"}));
  SequentialSampling seq;
  YAML::Node max_reps = n["max_repetitions"];
  if (!max_reps || max_reps.IsNull())
    return yaml_error(src, n, path, "missing key 'max_repetitions' (the budget of rounds)");
  BB_TRY(read_uint(src, n, path, "max_repetitions", seq.max_repetitions));
  if (seq.max_repetitions < s.repetitions)
    return yaml_error(src, max_reps, path + ".max_repetitions",
                      "must be at least repetitions (" + std::to_string(s.repetitions) +
                          "), which is the minimum number of rounds");
  if (seq.max_repetitions > kMaxSequentialRepetitions)
    return yaml_error(src, max_reps, path + ".max_repetitions",
                      "must be at most " + std::to_string(kMaxSequentialRepetitions));
  BB_TRY(read_uint(src, n, path, "max_seconds", seq.max_seconds));
  if (YAML::Node t = n["max_seconds"]; t && !t.IsNull() && seq.max_seconds < 1)
    return yaml_error(src, t, path + ".max_seconds", "must be at least 1 (seconds)");
  s.sequential = seq;
  return {};
}

// Runs last: it checks the format and the declared benchmarks.
Status parse_shards(const std::string& src, const YAML::Node& n, const std::string& path, Suite& s) {
  YAML::Node by = n["shard_by"];
  if (by && !by.IsNull()) {
    if (!by.IsSequence() || by.size() == 0)
      return yaml_error(src, by, path + ".shard_by", "expected a list with one list of benchmark patterns per shard");
    for (size_t i = 0; i < by.size(); ++i) {
      const std::string at = path + ".shard_by[" + std::to_string(i) + "]";
      std::vector<std::string> patterns;
      if (by[i].IsScalar()) {
        patterns.push_back(by[i].Scalar());
      } else if (by[i].IsSequence()) {
        for (const auto& p : by[i]) {
          if (!p.IsScalar()) return yaml_error(src, p, at, "expected a benchmark name or pattern");
          patterns.push_back(p.Scalar());
        }
      } else {
        return yaml_error(src, by[i], at, "expected a list of benchmark names or patterns");
      }
      for (const auto& p : patterns)
        if (p.empty()) return yaml_error(src, by[i], at, "a pattern must not be empty");
      s.shard_by.push_back(std::move(patterns));
    }
  }
  BB_TRY(read_uint(src, n, path, "shards", s.shards));
  YAML::Node count = n["shards"];
  if (!count || count.IsNull()) s.shards = std::max<uint64_t>(1, s.shard_by.size());
  if (s.shards < 1 || s.shards > kMaxShards)
    return yaml_error(src, count, path + ".shards", "expected 1 to " + std::to_string(kMaxShards) + " shards");
  if (s.shard_by.size() > s.shards)
    return yaml_error(src, by, path + ".shard_by",
                      "names " + std::to_string(s.shard_by.size()) + " shards but 'shards' is " +
                          std::to_string(s.shards));
  if (s.shards == 1) return {};
  const YAML::Node& where = count && !count.IsNull() ? count : by;
  const std::string key = count && !count.IsNull() ? ".shards" : ".shard_by";
  if (s.format == kCommandFormat)
    return yaml_error(src, where, path + key,
                      "format 'command' measures one command: only a harness's benchmarks can be sharded");
  if (s.list.empty() && s.benchmarks.empty())
    return yaml_error(src, where, path + key,
                      "sharding needs the benchmarks declared, to spread them and to tell a missing one: add 'list' "
                      "(the harness lists them) or 'benchmarks'");
  return {};
}

Status parse_suite(const std::string& src, const YAML::Node& n, const std::string& path, Suite& s) {
  if (!n.IsMap()) return yaml_error(src, n, path, "expected a mapping with name and run");
  BB_TRY(check_mapping(src, n, path, {"name", "build", "run", "format", "output", "repetitions",
                                      "warmup", "timeout", "allow_empty", "env", "thresholds", "sequential",
                                      "list", "benchmarks", "metrics", "toolchain", "lock_files", "counters",
                                      "measure", "paths", "shards", "shard_by", "push_baseline"}));
  BB_TRY(read_string(src, n, path, "name", s.name));
  if (!n["name"]) return yaml_error(src, n, path, "missing key 'name'");
  if (!valid_name(s.name))
    return yaml_error(src, n["name"], path + ".name",
                      "'" + s.name + "' is not a valid suite name (letters, digits, '.', '_', '-')");
  BB_TRY(read_string(src, n, path, "build", s.build));
  BB_TRY(read_string(src, n, path, "run", s.run));
  if (s.run.empty()) {
    if (n["run"] && !n["run"].IsNull()) return yaml_error(src, n["run"], path + ".run", "must not be empty");
    return yaml_error(src, n, path, "missing key 'run'");
  }
  BB_TRY(read_string(src, n, path, "format", s.format));
  if (YAML::Node f = n["format"]; f && !f.IsNull()) {
    if (!valid_name(s.format))
      return yaml_error(src, f, path + ".format", "'" + s.format + "' is not a format name");
    s.format_location = location(src, f.Mark());
  } else {
    s.format_location = location(src, n.Mark());
  }
  BB_TRY(read_string(src, n, path, "output", s.output));
  if (YAML::Node o = n["output"]; o && !o.IsNull()) {
    if (s.format == kCommandFormat)
      return yaml_error(src, o, path + ".output", "only a harness format writes an output file (format is 'command')");
    if (s.output.empty() || s.output[0] == '/')
      return yaml_error(src, o, path + ".output", "expected a path relative to the work tree");
    for (const auto& piece : split(s.output, '/'))
      if (piece == "..") return yaml_error(src, o, path + ".output", "must stay inside the work tree (no '..')");
  }
  BB_TRY(read_uint(src, n, path, "repetitions", s.repetitions));
  if (s.repetitions < 1) return yaml_error(src, n["repetitions"], path + ".repetitions", "must be at least 1");
  BB_TRY(read_uint(src, n, path, "warmup", s.warmup));
  BB_TRY(read_uint(src, n, path, "timeout", s.timeout_seconds));
  if (s.timeout_seconds < 1) return yaml_error(src, n["timeout"], path + ".timeout", "must be at least 1 (seconds)");
  BB_TRY(read_bool(src, n, path, "allow_empty", s.allow_empty));
  if (YAML::Node e = n["env"]; e && !e.IsNull()) BB_TRY(parse_env(src, e, path + ".env", s));
  if (YAML::Node t = n["thresholds"]; t && !t.IsNull()) BB_TRY(parse_thresholds(src, t, path + ".thresholds", s));
  if (YAML::Node q = n["sequential"]; q && !q.IsNull()) BB_TRY(parse_sequential(src, q, path + ".sequential", s));
  BB_TRY(read_string(src, n, path, "list", s.list));
  if (YAML::Node l = n["list"]; l && !l.IsNull() && s.list.empty())
    return yaml_error(src, l, path + ".list", "must not be empty");
  BB_TRY(read_string_list(src, n, path, "benchmarks", s.benchmarks));
  if (YAML::Node b = n["benchmarks"]; b && !b.IsNull()) {
    if (!s.list.empty())
      return yaml_error(src, b, path + ".benchmarks",
                        "give either 'list' (the harness lists its benchmarks) or 'benchmarks', not both");
    if (s.benchmarks.empty()) return yaml_error(src, b, path + ".benchmarks", "expected at least one name");
  }
  BB_TRY(read_string_list(src, n, path, "metrics", s.metrics));
  if (YAML::Node m = n["metrics"]; m && !m.IsNull() && s.metrics.empty())
    return yaml_error(src, m, path + ".metrics", "expected at least one metric (e.g. [wall_time, peak_memory])");
  BB_TRY(read_string_list(src, n, path, "toolchain", s.toolchain));
  for (size_t i = 0; i < s.toolchain.size(); ++i)
    if (s.toolchain[i].empty())
      return yaml_error(src, n["toolchain"][i], path + ".toolchain[" + std::to_string(i) + "]", "must not be empty");
  std::string measure = "time";
  BB_TRY(read_string(src, n, path, "measure", measure));
  if (measure != "time" && measure != "callgrind")
    return yaml_error(src, n["measure"], path + ".measure", "expected time or callgrind, got '" + measure + "'");
  s.callgrind = measure == "callgrind";
  if (s.callgrind && s.format != kCommandFormat)
    return yaml_error(src, n["measure"], path + ".measure",
                      "callgrind measures one command: only with format 'command'");
  BB_TRY(read_string_list(src, n, path, "counters", s.counters));
  if (YAML::Node k = n["counters"]; k && !k.IsNull() && s.format != kCommandFormat)
    return yaml_error(src, k, path + ".counters",
                      "counters are read over one benchmark process: only with format 'command' (this suite's "
                      "harness runs many benchmarks in one process)");
  BB_TRY(read_string_list(src, n, path, "lock_files", s.lock_files));
  for (size_t i = 0; i < s.lock_files.size(); ++i) {
    const std::string& f = s.lock_files[i];
    const std::string at = path + ".lock_files[" + std::to_string(i) + "]";
    if (f.empty() || f[0] == '/') return yaml_error(src, n["lock_files"][i], at, "expected a path relative to the work tree");
    for (const auto& piece : split(f, '/'))
      if (piece == "..") return yaml_error(src, n["lock_files"][i], at, "must stay inside the work tree (no '..')");
  }
  std::string push_baseline = "interleaved";
  BB_TRY(read_string(src, n, path, "push_baseline", push_baseline));
  if (push_baseline != "interleaved" && push_baseline != "previous-run")
    return yaml_error(src, n["push_baseline"], path + ".push_baseline",
                      "expected interleaved or previous-run, got '" + push_baseline + "'");
  s.push_baseline = push_baseline == "interleaved" ? Suite::PushBaseline::interleaved : Suite::PushBaseline::previous_run;
  BB_TRY(read_string_list(src, n, path, "paths", s.paths));
  if (n["paths"] && s.paths.empty())
    return yaml_error(src, n["paths"], path + ".paths", "lists no path (leave the key out to measure every change)");
  for (size_t i = 0; i < s.paths.size(); ++i)
    if (s.paths[i].empty() || s.paths[i][0] == '/')
      return yaml_error(src, n["paths"][i], path + ".paths[" + std::to_string(i) + "]",
                        "expected a path or pattern relative to the repository's root");
  return parse_shards(src, n, path, s);
}

Status parse_root(const std::string& src, const YAML::Node& root, SuiteConfig& c) {
  BB_TRY(check_mapping(src, root, "", {"version", "suites"}));
  YAML::Node v = root["version"];
  if (!v || v.IsNull()) return yaml_error(src, root, "", "missing key 'version' (use 'version: 1')");
  int64_t version = 0;
  BB_TRY(read_int(src, root, "", "version", version));
  if (version != 1) return yaml_error(src, v, "version", "unsupported version " + v.Scalar() + " (this benchbox reads version 1)");
  c.version = 1;

  YAML::Node suites = root["suites"];
  if (!suites || suites.IsNull()) return yaml_error(src, root, "", "missing key 'suites'");
  if (!suites.IsSequence()) return yaml_error(src, suites, "suites", "expected a list of suites");
  if (suites.size() == 0) return yaml_error(src, suites, "suites", "no suites");
  for (size_t i = 0; i < suites.size(); ++i) {
    Suite s;
    BB_TRY(parse_suite(src, suites[i], "suites[" + std::to_string(i) + "]", s));
    if (c.find(s.name))
      return yaml_error(src, suites[i]["name"], "suites[" + std::to_string(i) + "].name",
                        "suite '" + s.name + "' is defined twice");
    c.suites.push_back(std::move(s));
  }
  return {};
}



}  // namespace

const Suite* SuiteConfig::find(const std::string& name) const {
  for (const auto& s : suites)
    if (s.name == name) return &s;
  return nullptr;
}

Result<std::vector<Suite>> select_suites(const SuiteConfig& cfg, const std::vector<std::string>& names) {
  if (names.empty()) return cfg.suites;
  std::vector<Suite> out;
  for (const auto& name : names) {
    const Suite* s = cfg.find(name);
    if (!s) {
      std::string has;
      for (const auto& each : cfg.suites) has += (has.empty() ? "" : ", ") + each.name;
      return make_error(Errc::not_found, "no suite '" + name + "' in " + kSuiteFileName + " (it has: " + has + ")");
    }
    out.push_back(*s);
  }
  return out;
}

Result<SuiteConfig> parse_suite_config(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    return yaml_error(source, e.mark, e.msg);
  }
  if (!root || root.IsNull())
    return make_error(Errc::invalid_argument, source + ": the file is empty (expected 'version: 1' and 'suites:')");
  if (!root.IsMap()) return yaml_error(source, root, "", "expected a mapping with version and suites");
  SuiteConfig c;
  try {
    if (auto st = parse_root(source, root, c); !st) return st.error();
  } catch (const YAML::Exception& e) {
    return yaml_error(source, e.mark, e.msg);
  }
  return c;
}

std::string counter_metric(const std::string& counter) {
  std::string m = counter;
  for (char& c : m)
    if (c == '-') c = '_';
  return m;
}

bool path_matches(const std::string& pattern, const std::string& path) {
  std::string dir = pattern;
  while (!dir.empty() && dir.back() == '/') dir.pop_back();
  if (path == dir || (!dir.empty() && path.rfind(dir + "/", 0) == 0)) return true;
  return ::fnmatch(pattern.c_str(), path.c_str(), 0) == 0;
}

bool suite_affected(const Suite& suite, const std::vector<std::string>& changed) {
  if (suite.paths.empty()) return true;
  for (const auto& path : changed)
    for (const auto& pattern : suite.paths)
      if (path_matches(pattern, path)) return true;
  return false;
}

std::vector<std::string> shown_metrics(const Suite& suite) {
  if (!suite.metrics.empty()) return suite.metrics;
  if (suite.format != kCommandFormat) return {};
  // Under callgrind, time is valgrind's, not the benchmark's: its counts are the point.
  if (suite.callgrind) return {"instructions"};
  std::vector<std::string> shown = {"wall_time", "cpu_time"};
  for (const auto& c : suite.counters) shown.push_back(counter_metric(c));  // asked for: judged
  return shown;
}

}  // namespace bb::config
