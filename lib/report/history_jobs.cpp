// history.db's bookkeeping: what each job's report said (for the
// dashboard's lists), the regressions still open on branches, and the
// retention of pull-request samples.
#include <sys/stat.h>

#include "report/history.h"

namespace bb::report {

namespace {

constexpr const char* kJobColumns =
    "job_id, repository, kind, ref, pr_number, commit_sha, base_commit, created, finished, state, overall, summary,"
    " commit_time, backfill";

JobSummary job_of(const store::Statement& q) {
  JobSummary j;
  j.job_id = q.column_int64(0);
  j.repository = q.column_text(1);
  j.kind = q.column_text(2);
  j.ref = q.column_text(3);
  j.pr_number = q.column_int64(4);
  j.commit = q.column_text(5);
  j.base_commit = q.column_text(6);
  j.created = q.column_int64(7);
  j.finished = q.column_int64(8);
  j.state = q.column_text(9);
  j.overall = q.column_text(10);
  j.summary = q.column_text(11);
  j.commit_time = q.column_int64(12);
  j.backfill = q.column_int64(13) != 0;
  return j;
}

nlohmann::json to_json(const RegressedBenchmark& b) {
  return {{"key", b.key},           {"unit", b.unit},       {"metric", b.metric},
          {"higher_is_better", b.higher_is_better}, {"ratio", b.ratio}, {"ci_low", b.ci_low},
          {"ci_high", b.ci_high},   {"last_good", b.last_good}, {"first_bad", b.first_bad},
          {"last_good_job", b.last_good_job}, {"first_bad_job", b.first_bad_job}, {"resolved_by", b.resolved_by},
          {"last_good_role", b.last_good_role}, {"flame_page", b.flame_page}};
}

RegressedBenchmark regressed_from_json(const nlohmann::json& j) {
  RegressedBenchmark b;
  b.key = j.value("key", "");
  b.unit = j.value("unit", "");
  b.metric = j.value("metric", "");
  b.higher_is_better = j.value("higher_is_better", false);
  b.ratio = j.value("ratio", 1.0);
  b.ci_low = j.value("ci_low", 1.0);
  b.ci_high = j.value("ci_high", 1.0);
  b.last_good = j.value("last_good", "");
  b.first_bad = j.value("first_bad", "");
  b.last_good_job = j.value("last_good_job", int64_t{0});
  b.first_bad_job = j.value("first_bad_job", int64_t{0});
  b.last_good_role = j.value("last_good_role", "");
  b.resolved_by = j.value("resolved_by", "");
  b.flame_page = j.value("flame_page", "");
  return b;
}

constexpr const char* kRegressionColumns =
    "id, repository, ref, open, opened, closed, benchmarks, latest_job, latest_commit, latest_status, fixed_by,"
    " fixed_by_job, confirmation, investigation";

Regression regression_of(const store::Statement& q) {
  Regression r;
  r.id = q.column_int64(0);
  r.repository = q.column_text(1);
  r.ref = q.column_text(2);
  r.open = q.column_int64(3) != 0;
  r.opened = q.column_int64(4);
  r.closed = q.column_int64(5);
  const auto list = nlohmann::json::parse(q.column_text(6), nullptr, false);
  if (list.is_array())
    for (const auto& b : list)
      if (b.is_object()) r.benchmarks.push_back(regressed_from_json(b));
  r.latest_job = q.column_int64(7);
  r.latest_commit = q.column_text(8);
  r.latest_status = q.column_text(9);
  r.fixed_by = q.column_text(10);
  r.fixed_by_job = q.column_int64(11);
  r.confirmation = q.column_text(12);
  r.investigation = q.column_text(13);
  return r;
}

template <class T, class F>
Result<std::vector<T>> rows(store::Statement& q, F read) {
  std::vector<T> out;
  for (;;) {
    auto row = q.step();
    if (!row) return row.error();
    if (!*row) return out;
    out.push_back(read(q));
  }
}

int64_t file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

}  // namespace

std::string Regression::marker() const { return "regression:" + ref + ":" + std::to_string(id); }

std::string Regression::last_good() const {
  const RegressedBenchmark* best = nullptr;
  for (const auto& b : benchmarks)
    if (!best || b.last_good_job < best->last_good_job) best = &b;
  return best ? best->last_good : "";
}

std::string Regression::first_bad() const {
  const RegressedBenchmark* best = nullptr;
  for (const auto& b : benchmarks)
    if (!best || b.first_bad_job > best->first_bad_job) best = &b;
  return best ? best->first_bad : "";
}

Status HistoryStore::record_job(const JobSummary& j) {
  auto q = db_.prepare(store::upsert_sql("jobs", kJobColumns, "job_id"));
  if (!q) return q.error();
  q->bind(1, j.job_id).bind(2, j.repository).bind(3, j.kind).bind(4, j.ref).bind(5, j.pr_number);
  q->bind(6, j.commit).bind(7, j.base_commit).bind(8, j.created).bind(9, j.finished).bind(10, j.state);
  q->bind(11, j.overall).bind(12, j.summary).bind(13, j.commit_time).bind(14, int64_t(j.backfill ? 1 : 0));
  return q->run();
}

Result<std::optional<JobSummary>> HistoryStore::job(int64_t job_id) {
  auto q = db_.prepare(std::string("SELECT ") + kJobColumns + " FROM jobs WHERE job_id = ?");
  if (!q) return q.error();
  q->bind(1, job_id);
  auto row = q->step();
  if (!row) return row.error();
  if (!*row) return std::optional<JobSummary>();
  return std::optional<JobSummary>(job_of(*q));
}

Result<std::vector<JobSummary>> HistoryStore::jobs(const std::string& repository, size_t limit, int64_t pr_number) {
  auto q = db_.prepare(std::string("SELECT ") + kJobColumns + " FROM jobs WHERE repository = ?" +
                       (pr_number ? " AND pr_number = ?" : "") + " ORDER BY job_id DESC LIMIT ?");
  if (!q) return q.error();
  int i = 1;
  q->bind(i++, repository);
  if (pr_number) q->bind(i++, pr_number);
  q->bind(i, static_cast<int64_t>(limit));
  return rows<JobSummary>(*q, job_of);
}

Result<std::vector<int64_t>> HistoryStore::pull_requests(const std::string& repository, size_t limit) {
  auto q = db_.prepare(
      "SELECT pr_number FROM jobs WHERE repository = ? AND pr_number > 0 GROUP BY pr_number"
      " ORDER BY MAX(job_id) DESC LIMIT ?");
  if (!q) return q.error();
  q->bind(1, repository).bind(2, static_cast<int64_t>(limit));
  return rows<int64_t>(*q, [](const store::Statement& s) { return s.column_int64(0); });
}

Result<std::optional<Regression>> HistoryStore::open_regression(const std::string& repository,
                                                                const std::string& ref) {
  auto q = db_.prepare(std::string("SELECT ") + kRegressionColumns +
                       " FROM regressions WHERE repository = ? AND ref = ? AND open = 1 ORDER BY id DESC LIMIT 1");
  if (!q) return q.error();
  q->bind(1, repository).bind(2, ref);
  auto row = q->step();
  if (!row) return row.error();
  if (!*row) return std::optional<Regression>();
  return std::optional<Regression>(regression_of(*q));
}

Result<std::optional<Regression>> HistoryStore::regression(int64_t id) {
  auto q = db_.prepare(std::string("SELECT ") + kRegressionColumns + " FROM regressions WHERE id = ?");
  if (!q) return q.error();
  q->bind(1, id);
  auto row = q->step();
  if (!row) return row.error();
  if (!*row) return std::optional<Regression>();
  return std::optional<Regression>(regression_of(*q));
}

Result<std::vector<Regression>> HistoryStore::open_regressions(const std::string& repository) {
  auto q = db_.prepare(std::string("SELECT ") + kRegressionColumns +
                       " FROM regressions WHERE repository = ? AND open = 1 ORDER BY ref, id");
  if (!q) return q.error();
  q->bind(1, repository);
  return rows<Regression>(*q, regression_of);
}

Status HistoryStore::save_regression(Regression& r) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& b : r.benchmarks) list.push_back(to_json(b));
  auto q = r.id == 0 ? db_.prepare("INSERT INTO regressions (repository, ref, open, opened, closed, benchmarks,"
                                   " latest_job, latest_commit, latest_status, fixed_by, fixed_by_job, confirmation,"
                                   " investigation) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id")
                     : db_.prepare("UPDATE regressions SET repository = ?, ref = ?, open = ?, opened = ?, closed = ?,"
                                   " benchmarks = ?, latest_job = ?, latest_commit = ?, latest_status = ?,"
                                   " fixed_by = ?, fixed_by_job = ?, confirmation = ?, investigation = ? WHERE id = ?");
  if (!q) return q.error();
  q->bind(1, r.repository).bind(2, r.ref).bind(3, int64_t{r.open}).bind(4, r.opened).bind(5, r.closed);
  q->bind(6, list.dump()).bind(7, r.latest_job).bind(8, r.latest_commit).bind(9, r.latest_status);
  q->bind(10, r.fixed_by).bind(11, r.fixed_by_job).bind(12, r.confirmation).bind(13, r.investigation);
  if (r.id != 0) q->bind(14, r.id);
  if (r.id == 0) {
    auto row = q->step();
    if (!row) return row.error();
    r.id = q->column_int64(0);
  }
  return q->run();
}

Result<std::vector<int64_t>> HistoryStore::prune_pull_request_samples(int64_t before, size_t max_runs) {
  auto pick = db_.prepare(
      "SELECT job_id, role, result_set FROM runs WHERE kind = 'pull_request' AND samples_pruned = 0 AND created < ?"
      " ORDER BY job_id LIMIT 200");
  if (!pick) return pick.error();
  auto save = db_.prepare("UPDATE runs SET result_set = ?, samples_pruned = 1 WHERE job_id = ? AND role = ?");
  if (!save) return save.error();
  std::vector<int64_t> pruned;
  for (size_t runs = 0; runs < max_runs;) {
    // A batch at a time, each its own transaction: a long backlog never
    // holds the database for long.
    auto tx = store::Transaction::begin(db_);
    if (!tx) return tx.error();
    pick->reset();
    pick->bind(1, before);
    struct Row {
      int64_t job;
      std::string role, text;
    };
    std::vector<Row> batch;
    for (;;) {
      auto row = pick->step();
      if (!row) return row.error();
      if (!*row) break;
      batch.push_back({pick->column_int64(0), pick->column_text(1), pick->column_text(2)});
    }
    pick->reset();
    for (auto& r : batch) {
      auto rs = model::result_set_from_json(nlohmann::json::parse(r.text, nullptr, false));
      if (rs) {
        // The summary stays: what the points table and a report need.
        for (auto& b : rs->benchmarks) {
          if (b.samples.empty()) continue;
          const Spread s = spread_of(b.samples);
          b.summary["median"] = s.median;
          b.summary["q1"] = s.q1;
          b.summary["q3"] = s.q3;
          b.summary["n"] = static_cast<double>(b.samples.size());
          b.samples.clear();
          b.rounds.clear();
          b.iterations.clear();
          b.summary_only = true;
        }
        r.text = model::to_json(*rs).dump();
      }
      // A run whose JSON no longer reads is marked and left as it is.
      save->reset();
      save->bind(1, r.text).bind(2, r.job).bind(3, r.role);
      if (auto st = save->run(); !st) return st.error();
    }
    if (auto st = tx->commit(); !st) return st.error();
    for (const auto& r : batch)
      if (pruned.empty() || pruned.back() != r.job) pruned.push_back(r.job);
    if (batch.empty()) return pruned;
    runs += batch.size();
  }
  return pruned;
}

Result<HistorySizes> HistoryStore::sizes() {
  HistorySizes s;
  if (db_.backend() == store::Backend::sqlite) {
    s.database_bytes = file_size(db_.name()) + file_size(db_.name() + "-wal");
  } else {
    auto size = db_.prepare("SELECT pg_database_size(current_database())");
    if (!size) return size.error();
    auto row = size->step();
    if (!row) return row.error();
    if (*row) s.database_bytes = size->column_int64(0);
  }
  auto q = db_.prepare(
      "SELECT (SELECT COUNT(*) FROM runs), (SELECT COUNT(*) FROM runs WHERE samples_pruned = 0),"
      " (SELECT COUNT(*) FROM points), (SELECT COUNT(*) FROM jobs)");
  if (!q) return q.error();
  auto row = q->step();
  if (!row) return row.error();
  if (*row) {
    s.runs = q->column_int64(0);
    s.runs_with_samples = q->column_int64(1);
    s.points = q->column_int64(2);
    s.jobs = q->column_int64(3);
  }
  return s;
}

}  // namespace bb::report
