#include "model/result_set.h"

#include "util/json_read.h"

#include <algorithm>
#include <cmath>

namespace bb::model {

void to_json(nlohmann::json& j, const Summary& s) {
  j = nlohmann::json::object();
  for (const auto& [name, value] : s) j[name] = value;
}

void to_json(nlohmann::json& j, const Params& p) {
  j = nlohmann::json::object();
  for (const auto& [name, value] : p) j[name] = value;
}

std::string BenchmarkKey::to_string() const {
  std::string out = suite + "/" + name;
  if (!params.empty()) {
    out += "[";
    bool first = true;
    for (const auto& [k, v] : params) {
      if (!first) out += ",";
      out += k + "=" + v;
      first = false;
    }
    out += "]";
  }
  return out + ":" + metric;
}

const char* to_string(BenchmarkStatus s) {
  switch (s) {
    case BenchmarkStatus::ok: return "ok";
    case BenchmarkStatus::failed: return "failed";
    case BenchmarkStatus::skipped: return "skipped";
  }
  return "ok";
}

const char* to_string(Direction d) {
  return d == Direction::higher_is_better ? "higher_is_better" : "lower_is_better";
}

Direction direction_for_unit(std::string_view unit) {
  auto ends = [&](std::string_view tail) {
    return unit.size() >= tail.size() && unit.substr(unit.size() - tail.size()) == tail;
  };
  if (ends("/s") || ends("/sec") || ends("per_second") || ends("Hz")) return Direction::higher_is_better;
  return Direction::lower_is_better;
}

nlohmann::json to_json(const BenchmarkKey& k) {
  return {{"suite", k.suite}, {"name", k.name}, {"params", k.params}, {"metric", k.metric}};
}

nlohmann::json to_json(const Benchmark& b) {
  nlohmann::json j = to_json(b.key);
  j["unit"] = b.unit;
  j["direction"] = to_string(b.direction);
  j["samples"] = b.samples;
  if (!b.rounds.empty()) j["rounds"] = b.rounds;
  if (!b.iterations.empty()) j["iterations"] = b.iterations;
  if (b.summary_only) j["summary_only"] = true;
  if (!b.summary.empty()) j["summary"] = b.summary;
  j["status"] = to_string(b.status);
  if (!b.reason.empty()) j["reason"] = b.reason;
  if (!b.extra.empty()) j["extra"] = b.extra;
  return j;
}

bool SuiteOutcome::declares(const BenchmarkKey& key) const {
  if (!declared) return false;
  const std::string& name = key.name;
  for (const std::string& d : *declared) {
    if (d == name) return true;
    if (name.size() > d.size() && name.compare(0, d.size(), d) == 0 && name[d.size()] == '/') return true;
    if (d.size() > name.size() && d.compare(0, name.size(), name) == 0 && d[name.size()] == '[') return true;
  }
  return false;
}

bool uncontained(const ResultSet& rs) { return rs.containment.rfind(kUncontainedPrefix, 0) == 0; }

std::string containment_line(const ResultSet& rs) {
  if (rs.containment.empty()) return "Containment: not recorded";
  if (uncontained(rs))
    return "Not contained: the build and benchmark ran with the runner's own rights (" + rs.containment + ")";
  return "Containment: " + rs.containment;
}

bool shown(const ResultSet& rs, const BenchmarkKey& key) {
  auto it = rs.suites.find(key.suite);
  if (it == rs.suites.end() || it->second.metrics.empty()) return true;
  const auto& m = it->second.metrics;
  return std::find(m.begin(), m.end(), key.metric) != m.end();
}

nlohmann::json to_json(const SuiteOutcome& s) {
  nlohmann::json j = {{"status", to_string(s.status)}};
  if (!s.metrics.empty()) j["metrics"] = s.metrics;
  if (!s.reason.empty()) j["reason"] = s.reason;
  if (s.declared) {
    j["declared"] = *s.declared;
    j["declared_by"] = s.declared_by;
  }
  if (!s.list_error.empty()) j["list_error"] = s.list_error;
  return j;
}

nlohmann::json to_json(const CommitInfo& c) {
  return {{"time", c.time}, {"author", c.author}, {"subject", c.subject},
          {"first_parent_position", c.first_parent_position}};
}

nlohmann::json to_json(const ResultSet& rs) {
  nlohmann::json benches = nlohmann::json::array();
  for (const auto& b : rs.benchmarks) benches.push_back(to_json(b));
  nlohmann::json suites = nlohmann::json::object();
  for (const auto& [name, s] : rs.suites) suites[name] = to_json(s);
  return {{"schema", kResultSetSchema},
          {"repository", rs.repository},
          {"commit", rs.commit},
          {"commit_info", to_json(rs.commit_info)},
          {"ref", rs.ref},
          {"job_id", rs.job_id},
          {"role", rs.role},
          {"benchbox_version", rs.benchbox_version},
          {"config_sha256", rs.config_sha256},
          {"config_text", rs.config_text},
          {"environment_key", rs.environment_key},
          {"environment", rs.environment},
          {"machine_fingerprint", rs.machine_fingerprint},
          {"host_drifted", rs.host_drifted},
          {"tuning", rs.tuning},
          {"build_cache", rs.build_cache},
          {"isolation", rs.isolation},
          {"containment", rs.containment},
          {"cpus", rs.cpus},
          {"created", rs.created},
          {"thresholds", rs.thresholds},
          {"suites", std::move(suites)},
          {"benchmarks", std::move(benches)}};
}

nlohmann::json to_json(const JobResult& jr) {
  nlohmann::json j = {{"schema", kJobResultSchema},
                      {"job_id", jr.job_id},
                      {"kind", jr.kind},
                      {"seed", jr.seed},
                      {"head", to_json(jr.head)},
                      {"base", jr.base ? to_json(*jr.base) : nlohmann::json(nullptr)}};
  if (!jr.range.empty()) {
    nlohmann::json range = nlohmann::json::array();
    for (const auto& c : jr.range) range.push_back({{"commit", c.commit}, {"commit_info", to_json(c.info)}});
    j["range"] = std::move(range);
  }
  return j;
}

namespace {

Error bad(const std::string& where, const std::string& what) {
  return make_error(Errc::parse, where + ": " + what);
}

// Reads an optional member with type checking; absent or null leaves `out`.
template <class T>
Status opt(const nlohmann::json& j, const std::string& where, const char* key, T& out) {
  if (read_member(j, key, out)) return {};
  return bad(where + "/" + key, std::string("has the wrong type (") + j.at(key).type_name() +
                                    (j.at(key).is_number() ? ", or out of range" : "") + ")");
}

template <class T>
Status req(const nlohmann::json& j, const std::string& where, const char* key, T& out) {
  if (!j.contains(key)) return bad(where + "/" + key, "is missing");
  return opt(j, where, key, out);
}

}  // namespace

Result<BenchmarkKey> benchmark_key_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) return bad(where, "expected an object");
  BenchmarkKey k;
  for (auto st : {req(j, where, "suite", k.suite), req(j, where, "name", k.name),
                  opt(j, where, "params", k.params), opt(j, where, "metric", k.metric)})
    if (!st) return st.error();
  if (k.name.empty()) return bad(where + "/name", "is empty");
  return k;
}

Result<Benchmark> benchmark_from_json(const nlohmann::json& j, const std::string& where) {
  auto key = benchmark_key_from_json(j, where);
  if (!key) return key.error();
  Benchmark b;
  b.key = std::move(*key);
  std::string status = "ok", direction;
  for (auto st : {opt(j, where, "unit", b.unit), opt(j, where, "direction", direction), req(j, where, "samples", b.samples),
                  opt(j, where, "rounds", b.rounds), opt(j, where, "iterations", b.iterations),
                  opt(j, where, "summary_only", b.summary_only), opt(j, where, "summary", b.summary),
                  opt(j, where, "status", status), opt(j, where, "reason", b.reason)})
    if (!st) return st.error();
  if (auto it = j.find("extra"); it != j.end() && it->is_object()) b.extra = *it;
  if (status == "ok") b.status = BenchmarkStatus::ok;
  else if (status == "failed") b.status = BenchmarkStatus::failed;
  else if (status == "skipped") b.status = BenchmarkStatus::skipped;
  else return bad(where + "/status", "expected ok, failed or skipped, got '" + status + "'");
  // Absent (files written before benchbox 0.2, or by hand): what the unit implies.
  if (direction.empty()) b.direction = direction_for_unit(b.unit);
  else if (direction == "lower_is_better") b.direction = Direction::lower_is_better;
  else if (direction == "higher_is_better") b.direction = Direction::higher_is_better;
  else return bad(where + "/direction", "expected lower_is_better or higher_is_better, got '" + direction + "'");
  for (size_t i = 0; i < b.samples.size(); ++i)
    if (!std::isfinite(b.samples[i]))
      return bad(where + "/samples/" + std::to_string(i), "is not a finite number");
  if (!b.rounds.empty() && b.rounds.size() != b.samples.size())
    return bad(where + "/rounds", "has " + std::to_string(b.rounds.size()) +
                                      " entries for " + std::to_string(b.samples.size()) + " samples");
  if (!b.iterations.empty() && b.iterations.size() != b.samples.size())
    return bad(where + "/iterations", "has " + std::to_string(b.iterations.size()) +
                                          " entries for " + std::to_string(b.samples.size()) + " samples");
  return b;
}

Result<SuiteOutcome> suite_outcome_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) return bad(where, "expected an object");
  SuiteOutcome s;
  std::string status = "ok";
  std::vector<std::string> declared;
  for (auto st : {opt(j, where, "status", status), opt(j, where, "reason", s.reason),
                  opt(j, where, "declared", declared), opt(j, where, "declared_by", s.declared_by),
                  opt(j, where, "list_error", s.list_error), opt(j, where, "metrics", s.metrics)})
    if (!st) return st.error();
  if (status == "ok") s.status = BenchmarkStatus::ok;
  else if (status == "failed") s.status = BenchmarkStatus::failed;
  else if (status == "skipped") s.status = BenchmarkStatus::skipped;
  else return bad(where + "/status", "expected ok, failed or skipped, got '" + status + "'");
  if (j.contains("declared") && !j["declared"].is_null()) s.declared = std::move(declared);
  return s;
}

namespace {

Status read_commit_info(const nlohmann::json& c, const std::string& where, CommitInfo& out) {
  if (!c.is_object()) return bad(where, "expected an object");
  for (auto st : {opt(c, where, "time", out.time), opt(c, where, "author", out.author),
                  opt(c, where, "subject", out.subject),
                  opt(c, where, "first_parent_position", out.first_parent_position)})
    if (!st) return st.error();
  return {};
}

}  // namespace

Result<ResultSet> result_set_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return bad("", "expected a result set object");
  std::string schema;
  if (auto st = req(j, "", "schema", schema); !st) return st.error();
  if (schema != kResultSetSchema)
    return bad("/schema", "expected '" + std::string(kResultSetSchema) + "', got '" + schema + "'");
  ResultSet rs;
  for (auto st : {opt(j, "", "repository", rs.repository), opt(j, "", "commit", rs.commit),
                  opt(j, "", "ref", rs.ref), opt(j, "", "job_id", rs.job_id),
                  opt(j, "", "role", rs.role), opt(j, "", "benchbox_version", rs.benchbox_version),
                  opt(j, "", "config_sha256", rs.config_sha256),
                  opt(j, "", "config_text", rs.config_text),
                  opt(j, "", "environment_key", rs.environment_key),
                  opt(j, "", "machine_fingerprint", rs.machine_fingerprint),
                  opt(j, "", "host_drifted", rs.host_drifted), opt(j, "", "tuning", rs.tuning),
                  opt(j, "", "isolation", rs.isolation),
                  opt(j, "", "containment", rs.containment),
                  opt(j, "", "build_cache", rs.build_cache),
                  opt(j, "", "cpus", rs.cpus), opt(j, "", "created", rs.created),
                  opt(j, "", "thresholds", rs.thresholds)})
    if (!st) return st.error();
  for (const auto& [suite, metrics] : rs.thresholds)
    for (const auto& [metric, t] : metrics)
      if (!(t > 0 && t < 1)) return bad("/thresholds/" + suite + "/" + metric, "expected a fraction in (0, 1)");
  if (auto c = j.find("commit_info"); c != j.end() && !c->is_null())
    if (auto st = read_commit_info(*c, "/commit_info", rs.commit_info); !st) return st.error();
  if (auto e = j.find("environment"); e != j.end() && !e->is_null()) {
    if (!e->is_object()) return bad("/environment", "expected an object of the environment's inputs");
    rs.environment = *e;
  }
  if (auto s = j.find("suites"); s != j.end() && !s->is_null()) {
    if (!s->is_object()) return bad("/suites", "expected an object of suite name -> outcome");
    for (const auto& [name, v] : s->items()) {
      auto o = suite_outcome_from_json(v, "/suites/" + name);
      if (!o) return o.error();
      rs.suites.emplace(name, std::move(*o));
    }
  }
  auto it = j.find("benchmarks");
  if (it == j.end() || !it->is_array()) return bad("/benchmarks", "expected an array");
  for (size_t i = 0; i < it->size(); ++i) {
    auto b = benchmark_from_json((*it)[i], "/benchmarks/" + std::to_string(i));
    if (!b) return b.error();
    rs.benchmarks.push_back(std::move(*b));
  }
  return rs;
}

Result<JobResult> job_result_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return bad("", "expected a job result object");
  std::string schema;
  if (auto st = req(j, "", "schema", schema); !st) return st.error();
  if (schema != kJobResultSchema)
    return bad("/schema", "expected '" + std::string(kJobResultSchema) + "', got '" + schema + "'");
  JobResult jr;
  for (auto st : {opt(j, "", "job_id", jr.job_id), opt(j, "", "kind", jr.kind),
                  opt(j, "", "seed", jr.seed)})
    if (!st) return st.error();
  auto head = result_set_from_json(j.value("head", nlohmann::json()));
  if (!head) return head.error().with_context("/head");
  jr.head = std::move(*head);
  if (auto it = j.find("base"); it != j.end() && !it->is_null()) {
    auto base = result_set_from_json(*it);
    if (!base) return base.error().with_context("/base");
    jr.base = std::move(*base);
  }
  if (auto r = j.find("range"); r != j.end() && !r->is_null()) {
    if (!r->is_array()) return bad("/range", "expected an array of commits");
    for (size_t i = 0; i < r->size(); ++i) {
      const std::string where = "/range/" + std::to_string(i);
      const auto& e = (*r)[i];
      RangeCommit c;
      if (!e.is_object()) return bad(where, "expected an object");
      if (auto st = req(e, where, "commit", c.commit); !st) return st.error();
      if (auto ci = e.find("commit_info"); ci != e.end() && !ci->is_null())
        if (auto st = read_commit_info(*ci, where + "/commit_info", c.info); !st) return st.error();
      jr.range.push_back(std::move(c));
    }
  }
  return jr;
}

}  // namespace bb::model
