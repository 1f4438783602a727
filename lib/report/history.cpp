#include "report/history.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "util/file.h"

namespace bb::report {

namespace {

const std::vector<store::Migration> kMigrations = {
    {"result sets and their benchmarks",
     R"(CREATE TABLE runs (
          job_id INTEGER NOT NULL,
          role TEXT NOT NULL,
          kind TEXT NOT NULL,
          repository TEXT NOT NULL,
          ref TEXT NOT NULL,
          commit_sha TEXT NOT NULL,
          environment_key TEXT NOT NULL,
          machine_fingerprint TEXT NOT NULL,
          created INTEGER NOT NULL,
          result_set TEXT NOT NULL,          -- canonical JSON, raw samples included
          PRIMARY KEY (job_id, role));
        CREATE INDEX runs_by_ref ON runs(repository, ref, role, job_id);
        CREATE TABLE points (
          job_id INTEGER NOT NULL,
          role TEXT NOT NULL,
          repository TEXT NOT NULL,
          ref TEXT NOT NULL,
          benchmark_key TEXT NOT NULL,
          environment_key TEXT NOT NULL,
          unit TEXT NOT NULL,
          status TEXT NOT NULL,
          median REAL,
          samples INTEGER NOT NULL,
          PRIMARY KEY (job_id, role, benchmark_key));
        CREATE INDEX points_by_series ON points(repository, ref, benchmark_key, environment_key);)"},
    // Rows from before: empty, read as what the unit implies.
    {"which way is better, per point",
     "ALTER TABLE points ADD COLUMN direction TEXT NOT NULL DEFAULT ''"},
    // The callgrind profiles kept with a point (extra.profiles): a JSON array, '' for none.
    {"callgrind profiles, per point",
     "ALTER TABLE points ADD COLUMN profiles TEXT NOT NULL DEFAULT ''"},
};

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Statement binds integers and text; a REAL column converts text exactly
// when it carries all 17 significant digits.
std::string format_real(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

Result<HistoryStore> HistoryStore::open(const std::string& path) {
  auto db = store::Database::open(path);
  if (!db) return db.error();
  if (auto st = db->migrate(kMigrations); !st) return st.error();
  return HistoryStore(std::move(*db));
}

Status HistoryStore::ingest(const model::ResultSet& rs, const std::string& kind) {
  auto tx = store::Transaction::begin(db_);
  if (!tx) return tx.error();
  auto del = db_.prepare("DELETE FROM points WHERE job_id = ? AND role = ?");
  if (!del) return del.error();
  if (auto st = del->bind(1, rs.job_id).bind(2, rs.role).run(); !st) return st;
  auto run = db_.prepare(
      "INSERT OR REPLACE INTO runs (job_id, role, kind, repository, ref, commit_sha, environment_key,"
      " machine_fingerprint, created, result_set) VALUES (?,?,?,?,?,?,?,?,?,?)");
  if (!run) return run.error();
  run->bind(1, rs.job_id).bind(2, rs.role).bind(3, kind).bind(4, rs.repository).bind(5, rs.ref);
  run->bind(6, rs.commit).bind(7, rs.environment_key).bind(8, rs.machine_fingerprint);
  run->bind(9, rs.created).bind(10, model::to_json(rs).dump());
  if (auto st = run->run(); !st) return st;
  auto point = db_.prepare(
      "INSERT OR REPLACE INTO points (job_id, role, repository, ref, benchmark_key, environment_key,"
      " unit, status, median, samples, direction, profiles) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
  if (!point) return point.error();
  for (const auto& b : rs.benchmarks) {
    point->reset();
    point->bind(1, rs.job_id).bind(2, rs.role).bind(3, rs.repository).bind(4, rs.ref);
    point->bind(5, b.key.to_string()).bind(6, rs.environment_key).bind(7, b.unit);
    point->bind(8, std::string(model::to_string(b.status)));
    if (b.samples.empty()) point->bind_null(9);
    else point->bind(9, format_real(median_of(b.samples)));
    point->bind(10, static_cast<int64_t>(b.samples.size()));
    point->bind(11, std::string(model::to_string(b.direction)));
    auto profiles = b.extra.find("profiles");
    point->bind(12, profiles != b.extra.end() && profiles->is_array() ? profiles->dump() : std::string());
    if (auto st = point->run(); !st) return st;
  }
  return tx->commit();
}

bool HistoryStore::has_job(int64_t job_id) {
  auto q = db_.prepare("SELECT 1 FROM runs WHERE job_id = ? LIMIT 1");
  if (!q) return false;
  q->bind(1, job_id);
  auto row = q->step();
  return row.ok() && *row;
}

Result<std::optional<model::ResultSet>> HistoryStore::previous_run(const std::string& repository,
                                                                    const std::string& ref,
                                                                    const std::string& environment_key,
                                                                    int64_t before_job) {
  auto q = db_.prepare(
      "SELECT result_set FROM runs WHERE repository = ? AND ref = ? AND role = '' AND"
      " environment_key = ? AND job_id < ? ORDER BY job_id DESC LIMIT 1");
  if (!q) return q.error();
  q->bind(1, repository).bind(2, ref).bind(3, environment_key).bind(4, before_job);
  auto row = q->step();
  if (!row) return row.error();
  if (!*row) return std::optional<model::ResultSet>();
  auto j = nlohmann::json::parse(q->column_text(0), nullptr, false);
  auto rs = model::result_set_from_json(j);
  if (!rs) return rs.error().with_context("history.db run of " + repository);
  return std::optional<model::ResultSet>(std::move(*rs));
}

Result<std::optional<model::ResultSet>> HistoryStore::latest_run(const std::string& repository,
                                                                  const std::string& ref, int64_t before_job) {
  auto q = db_.prepare(
      "SELECT result_set FROM runs WHERE repository = ? AND ref = ? AND role = '' AND job_id < ?"
      " ORDER BY job_id DESC LIMIT 1");
  if (!q) return q.error();
  q->bind(1, repository).bind(2, ref).bind(3, before_job);
  auto row = q->step();
  if (!row) return row.error();
  if (!*row) return std::optional<model::ResultSet>();
  auto rs = model::result_set_from_json(nlohmann::json::parse(q->column_text(0), nullptr, false));
  if (!rs) return rs.error().with_context("history.db run of " + repository);
  return std::optional<model::ResultSet>(std::move(*rs));
}

Result<std::vector<Series>> HistoryStore::series(const std::string& repository, const std::string& ref) {
  auto q = db_.prepare(
      "SELECT p.benchmark_key, p.environment_key, p.unit, p.job_id, r.commit_sha, r.created,"
      " p.median, p.samples, p.status, p.direction, p.profiles FROM points p JOIN runs r ON r.job_id = p.job_id AND r.role = p.role"
      " WHERE p.repository = ? AND p.ref = ? AND p.role = ''"
      " ORDER BY p.benchmark_key, p.environment_key, p.job_id");
  if (!q) return q.error();
  q->bind(1, repository).bind(2, ref);
  std::vector<Series> out;
  for (;;) {
    auto row = q->step();
    if (!row) return row.error();
    if (!*row) break;
    std::string key = q->column_text(0), env = q->column_text(1);
    if (out.empty() || out.back().key != key || out.back().environment_key != env)
    {
      out.push_back(Series{repository, key, env, q->column_text(2), {}});
      const std::string d = q->column_text(9);
      out.back().direction = d == "higher_is_better" ? model::Direction::higher_is_better
                             : d.empty()             ? model::direction_for_unit(out.back().unit)
                                                     : model::Direction::lower_is_better;
    }
    SeriesPoint p;
    p.job_id = q->column_int64(3);
    p.commit = q->column_text(4);
    p.created = q->column_int64(5);
    p.median = q->column_is_null(6) ? 0 : std::stod(q->column_text(6));
    p.samples = static_cast<size_t>(q->column_int64(7));
    p.status = q->column_text(8);
    const auto profiles = nlohmann::json::parse(q->column_text(10), nullptr, false);
    if (profiles.is_array())
      for (const auto& f : profiles)
        if (f.is_string()) p.profiles.push_back(f.get<std::string>());
    out.back().points.push_back(p);
  }
  return out;
}

Result<std::vector<std::string>> HistoryStore::repositories() {
  auto q = db_.prepare("SELECT DISTINCT repository FROM runs ORDER BY repository");
  if (!q) return q.error();
  std::vector<std::string> out;
  for (;;) {
    auto row = q->step();
    if (!row) return row.error();
    if (!*row) break;
    out.push_back(q->column_text(0));
  }
  return out;
}

}  // namespace bb::report
