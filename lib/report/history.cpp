#include "report/history.h"

#include <algorithm>
#include <variant>

#include "util/file.h"

namespace bb::report {

namespace {

const std::vector<store::Migration> kSqliteMigrations = {
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
    // Trends in first-parent order with commit dates and the spread of each
    // run; rows from before have no position (drawn first, in job order).
    {"first-parent order, commit dates, quartiles, the release series",
     R"(ALTER TABLE runs ADD COLUMN position INTEGER;
        ALTER TABLE runs ADD COLUMN commit_time INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE runs ADD COLUMN label TEXT NOT NULL DEFAULT '';
        ALTER TABLE runs ADD COLUMN samples_pruned INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE points ADD COLUMN position INTEGER;
        ALTER TABLE points ADD COLUMN commit_time INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE points ADD COLUMN kind TEXT NOT NULL DEFAULT '';
        ALTER TABLE points ADD COLUMN label TEXT NOT NULL DEFAULT '';
        ALTER TABLE points ADD COLUMN machine TEXT NOT NULL DEFAULT '';
        ALTER TABLE points ADD COLUMN q1 REAL;
        ALTER TABLE points ADD COLUMN q3 REAL;
        UPDATE points SET
          kind = COALESCE((SELECT r.kind FROM runs r WHERE r.job_id = points.job_id AND r.role = points.role), ''),
          machine = COALESCE((SELECT r.machine_fingerprint FROM runs r
                              WHERE r.job_id = points.job_id AND r.role = points.role), ''),
          q1 = median, q3 = median;
        CREATE INDEX points_by_trend ON points(repository, ref, benchmark_key, position);
        CREATE INDEX points_by_release ON points(repository, kind, benchmark_key, commit_time);
        CREATE INDEX points_by_job ON points(job_id);
        CREATE INDEX runs_by_kind ON runs(repository, kind, role, commit_time);)"},
    {"what each job's report said",
     R"(CREATE TABLE jobs (
          job_id INTEGER PRIMARY KEY,
          repository TEXT NOT NULL,
          kind TEXT NOT NULL,
          ref TEXT NOT NULL,
          pr_number INTEGER NOT NULL,
          commit_sha TEXT NOT NULL,
          base_commit TEXT NOT NULL,
          created INTEGER NOT NULL,
          finished INTEGER NOT NULL,
          state TEXT NOT NULL,
          overall TEXT NOT NULL,
          summary TEXT NOT NULL);
        CREATE INDEX jobs_by_repository ON jobs(repository, job_id);
        CREATE INDEX jobs_by_pull_request ON jobs(repository, pr_number, job_id);)"},
    {"regressions on branches, open until a run shows them gone",
     R"(CREATE TABLE regressions (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          repository TEXT NOT NULL,
          ref TEXT NOT NULL,
          open INTEGER NOT NULL,
          opened INTEGER NOT NULL,
          closed INTEGER NOT NULL,
          benchmarks TEXT NOT NULL,          -- JSON array of RegressedBenchmark
          latest_job INTEGER NOT NULL,
          latest_commit TEXT NOT NULL,
          latest_status TEXT NOT NULL,
          fixed_by TEXT NOT NULL,
          fixed_by_job INTEGER NOT NULL);
        CREATE INDEX regressions_open ON regressions(repository, ref, open);)"},
    // What the dashboard's repository page lists per series, kept as each
    // series is written so a job rewrites that page without reading every
    // point again.
    {"the dashboard's summary of each series",
     R"(CREATE TABLE site_series (
          repository TEXT NOT NULL,
          ref TEXT NOT NULL,
          benchmark_key TEXT NOT NULL,
          summary TEXT NOT NULL,             -- JSON: SeriesSummary
          PRIMARY KEY (repository, ref, benchmark_key));)"},
    // An environment's newest points (change points) straight from the
    // index, newest first, instead of sorting the whole series.
    {"a series' environment in first-parent order",
     R"(DROP INDEX points_by_series;
        CREATE INDEX points_by_series ON points(repository, ref, benchmark_key, environment_key, position, job_id);)"},
    // Confirm before alerting, then bisect (report/bisection.h).
    {"regressions confirmed and bisected before they are filed",
     R"(ALTER TABLE regressions ADD COLUMN confirmation TEXT NOT NULL DEFAULT '';
        ALTER TABLE regressions ADD COLUMN investigation TEXT NOT NULL DEFAULT '';
        CREATE TABLE bisections (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          group_id INTEGER NOT NULL DEFAULT 0,   -- the queue's job group of its jobs
          state TEXT NOT NULL,
          body TEXT NOT NULL,                    -- JSON: report::Bisection
          updated INTEGER NOT NULL);
        CREATE INDEX bisections_by_group ON bisections(group_id);
        CREATE INDEX bisections_by_state ON bisections(state);)"},
    // A run is dated by its commit beside its queue time: a backfill runs
    // commits of months ago today.
    {"each job's commit date",
     "ALTER TABLE jobs ADD COLUMN commit_time INTEGER NOT NULL DEFAULT 0"},
    // A backfilled run is listed apart from the branch's pushes.
    {"backfilled jobs marked",
     "ALTER TABLE jobs ADD COLUMN backfill INTEGER NOT NULL DEFAULT 0"},
    // A branch trend's plain points (role '': not a PR's or a comparison's
    // sides) in drawing order, so a chunk's count comes from the index
    // alone: a push checks that the chunk the dashboard holds is history's
    // before appending to it (site_series.cpp). Only plain points: smaller
    // than the index it replaces, which every trend query filtered anyway.
    {"a branch trend's plain points counted from the index",
     R"(DROP INDEX points_by_trend;
        CREATE INDEX points_by_trend ON points(repository, ref, benchmark_key, position, job_id) WHERE role = '';)"},
    // The commits of a chunk of a ref (chunk_commits), from the index alone:
    // a run's position is stored after its result set, so reading it from
    // the row walks the result set's overflow pages.
    {"a ref's runs in first-parent order, with their commits",
     "CREATE INDEX runs_by_position ON runs(repository, ref, role, position, job_id, commit_sha)"},
    // The primary key (job_id, role, benchmark_key) finds a job's points on
    // its own: an index of job_id alone was one more entry written for
    // every point, 124 MiB of an issue-size history.db (10 million points).
    {"a job's points found by the primary key", "DROP INDEX points_by_job"},
    // The release series' points by tag date: only tags' plain points.
    // Every push added an entry for each of its points at a place of its
    // own in an index of all of them (580 MiB of an issue-size history.db),
    // which only the release series reads (where_ref: kind 'tag', role '').
    {"the release series' index holds tags only",
     R"(DROP INDEX points_by_release;
        CREATE INDEX points_by_release ON points(repository, benchmark_key, commit_time, job_id)
          WHERE kind = 'tag' AND role = '';)"},
    // An environment's newest points (recent: change points) come from
    // points_by_trend, walked back from the series' newest point, each
    // row's environment checked: a series mostly has one. The index of
    // every point by environment put each of a push's points at a place of
    // its own, a page a point; without it a push on 1,000 benchmarks went
    // from 0.28-0.31 s to 0.22-0.24 s (bench/reporter, issue size).
    {"an environment's points found through the branch trend's index", "DROP INDEX points_by_series"},
};

// Written once, in the SQL both engines share; PostgreSQL's types derived.
const std::vector<store::Migration>& migrations() {
  static const std::vector<std::string> postgresql = [] {
    std::vector<std::string> out;
    for (const auto& m : kSqliteMigrations) out.push_back(store::postgresql_ddl(m.sql));
    return out;
  }();
  static const std::vector<store::Migration> both = [] {
    std::vector<store::Migration> out = kSqliteMigrations;
    for (size_t i = 0; i < out.size(); ++i) out[i].postgresql_sql = postgresql[i].c_str();
    return out;
  }();
  return both;
}

std::string tag_name(const std::string& ref) {
  return ref.rfind("refs/tags/", 0) == 0 ? ref.substr(10) : std::string();
}

Result<std::optional<model::ResultSet>> one_result_set(store::Statement& q, const std::string& what) {
  auto row = q.step();
  if (!row) return row.error();
  if (!*row) return std::optional<model::ResultSet>();
  auto rs = model::result_set_from_json(nlohmann::json::parse(q.column_text(0), nullptr, false));
  if (!rs) return rs.error().with_context("history.db run of " + what);
  return std::optional<model::ResultSet>(std::move(*rs));
}

}  // namespace

Spread spread_of(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  // Linear interpolation between order statistics (R's type 7).
  auto quantile = [&](double p) {
    const double h = (double(v.size()) - 1) * p;
    const size_t lo = static_cast<size_t>(h);
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (h - double(lo)) * (v[hi] - v[lo]);
  };
  s.median = quantile(0.5);
  s.q1 = quantile(0.25);
  s.q3 = quantile(0.75);
  return s;
}

Result<HistoryStore> HistoryStore::open(const store::Location& where) {
  auto db = store::Database::open(where);
  if (!db) return db.error();
  // The queue may share the database: its tables (a jobs table too) are its own.
  if (auto st = db->use_namespace("benchbox_history"); !st) return st.error();
  if (auto st = db->migrate("history", migrations()); !st) return st.error();
  return HistoryStore(std::move(*db));
}

Result<HistoryStore> HistoryStore::open(const std::string& path) { return open(store::Location::sqlite(path)); }

Status HistoryStore::ingest(const model::ResultSet& rs, const std::string& kind) {
  auto tx = store::Transaction::begin(db_);
  if (!tx) return tx.error();
  auto del = db_.prepare("DELETE FROM points WHERE job_id = ? AND role = ?");
  if (!del) return del.error();
  if (auto st = del->bind(1, rs.job_id).bind(2, rs.role).run(); !st) return st;
  const bool placed = rs.commit_info.known();
  const std::string label = kind == "tag" ? tag_name(rs.ref) : std::string();
  auto run = db_.prepare(
      store::upsert_sql("runs",
                        "job_id, role, kind, repository, ref, commit_sha, environment_key, machine_fingerprint,"
                        " created, result_set, position, commit_time, label, samples_pruned",
                        "job_id, role", "?,?,?,?,?,?,?,?,?,?,?,?,?,0"));
  if (!run) return run.error();
  run->bind(1, rs.job_id).bind(2, rs.role).bind(3, kind).bind(4, rs.repository).bind(5, rs.ref);
  run->bind(6, rs.commit).bind(7, rs.environment_key).bind(8, rs.machine_fingerprint);
  run->bind(9, rs.created).bind(10, model::to_json(rs).dump());
  if (placed) run->bind(11, rs.commit_info.first_parent_position);
  else run->bind_null(11);
  run->bind(12, rs.commit_info.time).bind(13, label);
  if (auto st = run->run(); !st) return st;
  auto point = db_.prepare(
      store::upsert_sql("points",
                        "job_id, role, repository, ref, benchmark_key, environment_key, unit, status, median,"
                        " samples, direction, profiles, position, commit_time, kind, label, machine, q1, q3",
                        "job_id, role, benchmark_key"));
  if (!point) return point.error();
  for (const auto& b : rs.benchmarks) {
    point->reset();
    point->bind(1, rs.job_id).bind(2, rs.role).bind(3, rs.repository).bind(4, rs.ref);
    point->bind(5, b.key.to_string()).bind(6, rs.environment_key).bind(7, b.unit);
    point->bind(8, std::string(model::to_string(b.status)));
    const Spread s = spread_of(b.samples);
    if (b.samples.empty()) point->bind_null(9).bind_null(18).bind_null(19);
    else point->bind_real(9, s.median).bind_real(18, s.q1).bind_real(19, s.q3);
    point->bind(10, static_cast<int64_t>(b.samples.size()));
    point->bind(11, std::string(model::to_string(b.direction)));
    auto profiles = b.extra.find("profiles");
    point->bind(12, profiles != b.extra.end() && profiles->is_array() ? profiles->dump() : std::string());
    if (placed) point->bind(13, rs.commit_info.first_parent_position);
    else point->bind_null(13);
    point->bind(14, rs.commit_info.time).bind(15, kind).bind(16, label).bind(17, rs.machine_fingerprint);
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

namespace {

// The queries that pick the run before `rs` among plain runs (`env` adds
// the environment key), tried in order until one finds it: first-parent
// order on a branch, commit date across tags, job order where neither is
// known.
struct Before {
  std::string sql;
  std::vector<std::variant<int64_t, std::string>> args;
};

std::vector<Before> before_queries(const model::ResultSet& rs, const std::string& kind, bool env,
                                   const std::string& with_key) {
  Before b;
  b.sql = "SELECT result_set FROM runs WHERE repository = ? AND role = '' AND job_id != ?";
  b.args = {rs.repository, rs.job_id};
  if (!with_key.empty()) {
    b.sql += " AND EXISTS (SELECT 1 FROM points p WHERE p.job_id = runs.job_id AND p.role = runs.role"
             " AND p.benchmark_key = ?)";
    b.args.push_back(with_key);
  }
  if (env) {
    b.sql += " AND environment_key = ?";
    b.args.push_back(rs.environment_key);
  }
  using Args = std::initializer_list<std::variant<int64_t, std::string>>;
  auto ordered = [](Before q, const std::string& where_order, Args args) {
    q.sql += where_order + " LIMIT 1";
    q.args.insert(q.args.end(), args);
    return q;
  };
  if (kind == "tag") {
    b.sql += " AND kind = 'tag'";
    if (rs.commit_info.time > 0)
      return {ordered(b,
                      " AND (commit_time < ? OR (commit_time = ? AND job_id < ?))"
                      " ORDER BY commit_time DESC, job_id DESC",
                      {rs.commit_info.time, rs.commit_info.time, rs.job_id})};
    return {ordered(b, " AND job_id < ? ORDER BY job_id DESC", {rs.job_id})};
  }
  b.sql += " AND ref = ?";
  b.args.push_back(rs.ref);
  if (!rs.commit_info.known()) return {ordered(b, " AND job_id < ? ORDER BY job_id DESC", {rs.job_id})};
  // Earlier on the branch; runs of unknown position (from before they were
  // placed) count as earlier than any placed run. Two queries, not one
  // ordered by COALESCE(position, -1): that order is no index's, so SQLite
  // read and sorted every run of the ref (10,000 rows on a long branch, on
  // every push); each of these walks runs_by_position from its end.
  const int64_t p = rs.commit_info.first_parent_position;
  return {ordered(b, " AND position IS NOT NULL AND (position < ? OR (position = ? AND job_id < ?))"
                     " ORDER BY position DESC, job_id DESC",
                  {p, p, rs.job_id}),
          ordered(b, " AND position IS NULL ORDER BY job_id DESC", {})};
}

Result<std::optional<model::ResultSet>> run_before(store::Database& db, const model::ResultSet& rs,
                                                   const std::string& kind, bool env,
                                                   const std::string& with_key = "") {
  for (const Before& b : before_queries(rs, kind, env, with_key)) {
    auto q = db.prepare(b.sql);
    if (!q) return q.error();
    for (size_t i = 0; i < b.args.size(); ++i) {
      if (const auto* n = std::get_if<int64_t>(&b.args[i])) q->bind(int(i) + 1, *n);
      else q->bind(int(i) + 1, std::get<std::string>(b.args[i]));
    }
    auto found = one_result_set(*q, rs.repository);
    if (!found || *found) return found;
  }
  return std::optional<model::ResultSet>();
}

}  // namespace

Result<std::optional<model::ResultSet>> HistoryStore::previous_run(const model::ResultSet& rs,
                                                                    const std::string& kind,
                                                                    const std::string& with_key) {
  return run_before(db_, rs, kind, true, with_key);
}

Result<std::optional<model::ResultSet>> HistoryStore::latest_run(const model::ResultSet& rs,
                                                                  const std::string& kind) {
  return run_before(db_, rs, kind, false);
}

Result<bool> HistoryStore::has_later_run(const model::ResultSet& rs) {
  const bool placed = rs.commit_info.known();
  auto q = db_.prepare(placed ? "SELECT 1 FROM runs WHERE repository = ? AND ref = ? AND role = '' AND job_id != ?"
                                " AND position > ? LIMIT 1"
                              : "SELECT 1 FROM runs WHERE repository = ? AND ref = ? AND role = '' AND job_id > ?"
                                " LIMIT 1");
  if (!q) return q.error();
  q->bind(1, rs.repository).bind(2, rs.ref).bind(3, rs.job_id);
  if (placed) q->bind(4, rs.commit_info.first_parent_position);
  auto row = q->step();
  if (!row) return row.error();
  return *row;
}

Result<std::vector<int64_t>> HistoryStore::run_jobs(const std::string& repository) {
  auto q = db_.prepare("SELECT DISTINCT job_id FROM runs WHERE repository = ? ORDER BY job_id");
  if (!q) return q.error();
  q->bind(1, repository);
  std::vector<int64_t> out;
  for (;;) {
    auto row = q->step();
    if (!row) return row.error();
    if (!*row) return out;
    out.push_back(q->column_int64(0));
  }
}

Result<std::optional<model::ResultSet>> HistoryStore::run(int64_t job_id, const std::string& role) {
  auto q = db_.prepare("SELECT result_set FROM runs WHERE job_id = ? AND role = ?");
  if (!q) return q.error();
  q->bind(1, job_id).bind(2, role);
  return one_result_set(*q, "job " + std::to_string(job_id));
}

Result<std::vector<std::string>> HistoryStore::repositories() {
  auto q = db_.prepare(
      "SELECT repository FROM runs UNION SELECT repository FROM jobs ORDER BY repository");
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
