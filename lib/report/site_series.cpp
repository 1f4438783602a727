// One trend of the dashboard: its series file (what it is, its
// environments, change points, siblings, chunk list) and its chunks of
// points (docs/dashboard.md, "series" and "chunk").
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "report/site.h"
#include "report/site_paths.h"
#include "util/text.h"

namespace bb::report {

namespace {

bool release(const std::string& ref) { return ref == kReleaseSeries; }

// "suite/name[a=1,b=2]:metric" -> its parts, for people to read.
struct KeyParts {
  std::string suite, name, metric, benchmark;  // benchmark: the key without ":metric"
  nlohmann::json params = nlohmann::json::object();
};

KeyParts parts_of(const std::string& key) {
  KeyParts p;
  const size_t colon = key.rfind(':');
  p.benchmark = colon == std::string::npos ? key : key.substr(0, colon);
  p.metric = colon == std::string::npos ? "" : key.substr(colon + 1);
  const size_t slash = p.benchmark.find('/');
  p.suite = slash == std::string::npos ? "" : p.benchmark.substr(0, slash);
  p.name = slash == std::string::npos ? p.benchmark : p.benchmark.substr(slash + 1);
  if (!p.name.empty() && p.name.back() == ']') {
    if (const size_t open = p.name.find('['); open != std::string::npos) {
      for (const auto& kv : split(p.name.substr(open + 1, p.name.size() - open - 2), ',')) {
        const size_t eq = kv.find('=');
        if (eq != std::string::npos) p.params[kv.substr(0, eq)] = kv.substr(eq + 1);
      }
      p.name = p.name.substr(0, open);
    }
  }
  return p;
}

// To 7 significant digits: more than any run's noise, and a 10,000-point
// chunk a third smaller than at 17.
nlohmann::json number_or_null(double v, bool present) {
  if (!present || !std::isfinite(v)) return nullptr;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.7g", v);
  return std::strtod(buf, nullptr);
}

}  // namespace

std::vector<TouchedSeries> touched_series(const model::JobResult& result) {
  std::vector<TouchedSeries> out;
  const model::ResultSet& rs = result.head;
  if (result.base) return out;  // a PR's runs are in its report, not in trends
  const bool tag = result.kind == "tag";
  const std::string ref = tag ? kReleaseSeries : rs.ref;
  if (!tag && rs.ref.rfind("refs/heads/", 0) != 0) return out;
  const int64_t chunk =
      tag ? 0 : (rs.commit_info.known() ? rs.commit_info.first_parent_position / site::kChunkPoints : -1);
  for (const auto& b : rs.benchmarks) out.push_back({ref, b.key.to_string(), chunk});
  return out;
}

Status SiteWriter::write_series(const std::string& repository, const std::string& ref, const std::string& key,
                                const std::optional<std::set<int64_t>>& chunks) {
  const std::string sid = site::series_id(ref, key);
  const KeyParts parts = parts_of(key);

  auto envs = history_.environments(repository, ref, key);
  if (!envs) return envs.error();
  if (envs->empty()) return {};
  std::map<std::string, size_t> env_index;
  nlohmann::json environments = nlohmann::json::array(), breaks = nlohmann::json::array();
  for (size_t i = 0; i < envs->size(); ++i) {
    const auto& e = (*envs)[i];
    env_index[e.key] = i;
    environments.push_back({{"key", e.key}, {"machine", e.machine}, {"points", e.points}});
    // Where each later environment starts: a break in the trend, never a step.
    if (i > 0)
      breaks.push_back({{"x", release(ref) ? nlohmann::json(nullptr) : nlohmann::json(e.first_position)},
                        {"commit", e.first_commit},
                        {"job", e.first_job},
                        {"from", i - 1},
                        {"to", i}});
  }

  auto counts = history_.chunk_counts(repository, ref, key, site::kChunkPoints);
  if (!counts) return counts.error();
  int64_t total = 0;
  nlohmann::json chunk_list = nlohmann::json::array();
  for (const auto& [chunk, n] : *counts) {
    total += n;
    chunk_list.push_back({{"src", site::chunk_data(repository, sid, chunk)},
                          {"name", site::chunk_name(sid, chunk)},
                          {"points", n}});
  }
  const int64_t last_chunk = counts->empty() ? 0 : counts->back().first;
  // Unplaced points (from before positions were kept) come first with
  // x = -n .. -1, in job order.
  int64_t unplaced = 0;
  for (const auto& [chunk, n] : *counts)
    if (chunk < 0) unplaced = n;

  // The chunks to write, and the newest point (always in the last chunk).
  std::set<int64_t> wanted;
  if (chunks) wanted = *chunks;
  else
    for (const auto& [chunk, n] : *counts) wanted.insert(chunk);
  wanted.insert(last_chunk);
  std::optional<SeriesPoint> latest;
  std::string unit;
  model::Direction direction = model::Direction::lower_is_better;
  for (int64_t chunk : wanted) {
    auto t = history_.trend_chunk(repository, ref, key, chunk, site::kChunkPoints);
    if (!t) return t.error();
    if (t->points.empty()) continue;
    unit = t->unit;
    direction = t->direction;
    if (chunk == last_chunk) latest = t->points.back();
    if (chunks && !chunks->count(chunk)) continue;  // read only for `latest`
    nlohmann::json x = nlohmann::json::array(), time = x, commit = x, job = x, label = x, median = x, q1 = x,
                   q3 = x, n = x, status = x, env = x;
    for (size_t i = 0; i < t->points.size(); ++i) {
      const SeriesPoint& p = t->points[i];
      const bool measured = p.status == "ok" && p.samples > 0;
      if (release(ref)) x.push_back(int64_t(i));
      else x.push_back(p.position >= 0 ? p.position : -unplaced + int64_t(i));
      time.push_back(p.commit_time);
      commit.push_back(p.commit);
      job.push_back(p.job_id);
      label.push_back(p.label.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.label));
      median.push_back(number_or_null(p.median, measured));
      q1.push_back(number_or_null(p.q1, measured));
      q3.push_back(number_or_null(p.q3, measured));
      n.push_back(p.samples);
      status.push_back(p.status);
      env.push_back(env_index.count(p.environment_key) ? env_index[p.environment_key] : 0);
    }
    const nlohmann::json data = {{"x", x},   {"time", time}, {"commit", commit}, {"job", job},
                                 {"label", label}, {"median", median}, {"q1", q1}, {"q3", q3},
                                 {"n", n},   {"status", status}, {"env", env}};
    if (auto st = write(site::chunk_data(repository, sid, chunk), site::data_file(site::chunk_name(sid, chunk), data));
        !st)
      return st;
  }

  // Change points, per environment, on its newest points (the reporter's
  // ChangeCache spares series that did not grow).
  nlohmann::json change_list = nlohmann::json::array();
  const SeriesChange* newest_change = nullptr;
  bool newest_recent = false;
  std::vector<Series> recent_series;
  recent_series.reserve(envs->size());
  for (const auto& e : *envs) {
    auto s = history_.recent(repository, ref, key, e.key, ChangeOptions{}.max_points);
    if (!s) return s.error();
    recent_series.push_back(std::move(*s));
  }
  for (size_t ei = 0; ei < recent_series.size(); ++ei) {
    const Series& s = recent_series[ei];
    for (const auto& c : changes_.changes(s)) {
      const SeriesPoint& after = s.points[c.index];
      nlohmann::json j = c.to_json();
      // The release series' x is an index over every tag: found by its job.
      j["x"] = release(ref) ? nlohmann::json(nullptr) : nlohmann::json(after.position);
      j["environment"] = ei;
      change_list.push_back(std::move(j));
      if (!newest_change || after.job_id > newest_change->job_after) {
        newest_change = &c;
        newest_recent = c.index + 8 > s.points.size();
      }
    }
  }

  // What the repository page lists, and the siblings for the selectors.
  SeriesSummary summary;
  summary.repository = repository;
  summary.ref = ref;
  summary.key = key;
  summary.id = sid;
  summary.unit = unit;
  summary.direction = direction;
  summary.points = total;
  if (latest) {
    summary.latest_measured = latest->status == "ok" && latest->samples > 0;
    summary.latest_value = latest->median;
    summary.latest_commit = latest->commit;
    summary.latest_status = latest->status;
    summary.latest_job = latest->job_id;
  }
  if (newest_change && newest_recent) {
    summary.has_change = true;
    summary.change_ratio = newest_change->ratio;
    summary.change_worse = newest_change->worse;
  }
  auto before = history_.series_summaries(repository);
  if (!before) return before.error();
  const bool is_new = std::none_of(before->begin(), before->end(),
                                   [&](const SeriesSummary& s) { return s.ref == ref && s.key == key; });
  if (auto st = history_.save_series_summary(summary); !st) return st;
  if (is_new) before->push_back(summary);

  nlohmann::json metrics = nlohmann::json::array(), refs = nlohmann::json::array();
  std::vector<const SeriesSummary*> relatives;
  for (const auto& s : *before) {
    if (s.ref == ref && parts_of(s.key).benchmark == parts.benchmark) {
      metrics.push_back({{"metric", parts_of(s.key).metric}, {"page", site::trend_page(repository, s.id)}});
      if (s.key != key) relatives.push_back(&s);
    }
    if (s.key == key) {
      refs.push_back({{"ref", s.ref}, {"name", site::ref_name(s.ref)}, {"page", site::trend_page(repository, s.id)}});
      if (s.ref != ref) relatives.push_back(&s);
    }
  }
  const nlohmann::json meta = {
      {"schema", "benchbox.site.series/1"},
      {"id", sid},
      {"repository", repository},
      {"ref", ref},
      {"ref_name", site::ref_name(ref)},
      {"release_series", release(ref)},
      {"key", key},
      {"suite", parts.suite},
      {"name", parts.name},
      {"params", parts.params},
      {"metric", parts.metric},
      {"unit", unit},
      {"direction", model::to_string(direction)},
      {"x", release(ref) ? "release" : "first_parent"},
      {"points", total},
      {"chunks", chunk_list},
      {"environments", environments},
      {"env_breaks", breaks},
      {"change_points", change_list},
      {"siblings", {{"metrics", metrics}, {"refs", refs}}},
      {"repository_page", site::repository_page(repository)}};
  if (auto st = write(site::series_data(repository, sid), site::data_file(site::series_name(sid), meta)); !st)
    return st;
  if (auto st = write_shell(site::trend_page(repository, sid), "trend",
                            key + " on " + site::ref_name(ref) + " · " + repository + " · benchbox",
                            site::series_data(repository, sid), site::series_name(sid));
      !st)
    return st;
  ++stats_.series_written;
  // A new series is a new choice in its relatives' selectors.
  if (is_new)
    for (const SeriesSummary* s : relatives)
      if (auto st = write_series(repository, s->ref, s->key, std::set<int64_t>{}); !st) return st;
  return {};
}

}  // namespace bb::report
