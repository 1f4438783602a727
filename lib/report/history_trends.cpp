// The dashboard's and the change-point detector's reads of history.db:
// points of one ref (a branch, or the release series of every tag) in the
// order trends are drawn.
#include <algorithm>
#include <climits>

#include "report/history.h"

namespace bb::report {

namespace {

constexpr const char* kPointColumns =
    "p.benchmark_key, p.environment_key, p.unit, p.job_id, r.commit_sha, r.created, p.median, p.samples,"
    " p.status, p.direction, p.profiles, p.position, p.commit_time, p.label, p.machine, p.q1, p.q3";

bool release(const std::string& ref) { return ref == kReleaseSeries; }

// Selects plain points of `ref`: a branch by ref, the release series by kind.
std::string where_ref(const std::string& ref) {
  return release(ref) ? " p.repository = ? AND p.kind = 'tag' AND p.role = ''"
                      : " p.repository = ? AND p.ref = ? AND p.role = ''";
}

// Points without a position (from before it was kept) sort first: SQLite
// orders NULL before any number, and the indexes serve the order as it is.
std::string order_of(const std::string& ref) {
  // Runs from before positions were kept come first (SQLite's default for
  // NULL, said out loud for PostgreSQL's).
  return release(ref) ? " p.commit_time, p.job_id" : " p.position NULLS FIRST, p.job_id";
}

int bind_ref(store::Statement& q, const std::string& repository, const std::string& ref) {
  q.bind(1, repository);
  if (release(ref)) return 2;
  q.bind(2, ref);
  return 3;
}

model::Direction direction_of(const std::string& recorded, const std::string& unit) {
  if (recorded == "higher_is_better") return model::Direction::higher_is_better;
  if (recorded.empty()) return model::direction_for_unit(unit);
  return model::Direction::lower_is_better;
}

// Reads the columns of kPointColumns from column 0 on.
SeriesPoint point_of(const store::Statement& q) {
  SeriesPoint p;
  p.environment_key = q.column_text(1);
  p.job_id = q.column_int64(3);
  p.commit = q.column_text(4);
  p.created = q.column_int64(5);
  // As doubles, both ways: SQLite writes a REAL out as text with 15
  // digits, which lost the last two of a median that was read that way.
  p.median = q.column_is_null(6) ? 0 : q.column_real(6);
  p.samples = static_cast<size_t>(q.column_int64(7));
  p.status = q.column_text(8);
  // Most points have none: no JSON parse for each of a trend's points.
  if (const std::string text = q.column_text(10); !text.empty() && text != "[]") {
    const auto profiles = nlohmann::json::parse(text, nullptr, false);
    if (profiles.is_array())
      for (const auto& f : profiles)
        if (f.is_string()) p.profiles.push_back(f.get<std::string>());
  }
  p.position = q.column_is_null(11) ? -1 : q.column_int64(11);
  p.commit_time = q.column_int64(12);
  p.label = q.column_text(13);
  p.machine = q.column_text(14);
  p.q1 = q.column_is_null(15) ? p.median : q.column_real(15);
  p.q3 = q.column_is_null(16) ? p.median : q.column_real(16);
  return p;
}

Result<std::vector<std::string>> strings(store::Statement& q) {
  std::vector<std::string> out;
  for (;;) {
    auto row = q.step();
    if (!row) return row.error();
    if (!*row) return out;
    out.push_back(q.column_text(0));
  }
}

}  // namespace

Result<std::vector<Series>> HistoryStore::series(const std::string& repository, const std::string& ref) {
  auto q = db_.prepare(std::string("SELECT ") + kPointColumns +
                       " FROM points p JOIN runs r ON r.job_id = p.job_id AND r.role = p.role WHERE" +
                       where_ref(ref) + " ORDER BY p.benchmark_key, p.environment_key," + order_of(ref));
  if (!q) return q.error();
  bind_ref(*q, repository, ref);
  std::vector<Series> out;
  for (;;) {
    auto row = q->step();
    if (!row) return row.error();
    if (!*row) break;
    std::string key = q->column_text(0), env = q->column_text(1);
    if (out.empty() || out.back().key != key || out.back().environment_key != env) {
      out.push_back(Series{repository, key, env, q->column_text(2), {}});
      out.back().direction = direction_of(q->column_text(9), out.back().unit);
    }
    out.back().points.push_back(point_of(*q));
  }
  return out;
}

Result<std::vector<std::string>> HistoryStore::branches(const std::string& repository) {
  // Asked on every job: a DISTINCT over the runs would read each of the
  // repository's runs (10,000 rows over thousands of pages for 10,000
  // pushes). The recursion instead skips from one ref to the next along
  // runs_by_ref, a search per ref, and asks each once whether a plain,
  // non-tag run has it.
  auto q = db_.prepare(
      "WITH RECURSIVE seen(ref) AS ("
      " SELECT MIN(ref) FROM runs WHERE repository = ?"
      " UNION ALL SELECT (SELECT MIN(x.ref) FROM runs x WHERE x.repository = ? AND x.ref > seen.ref)"
      " FROM seen WHERE seen.ref IS NOT NULL)"
      " SELECT ref FROM seen WHERE ref LIKE 'refs/heads/%' AND EXISTS (SELECT 1 FROM runs r"
      " WHERE r.repository = ? AND r.ref = seen.ref AND r.role = '' AND r.kind != 'tag') ORDER BY ref");
  if (!q) return q.error();
  q->bind(1, repository).bind(2, repository).bind(3, repository);
  return strings(*q);
}

Result<bool> HistoryStore::has_releases(const std::string& repository) {
  auto q = db_.prepare("SELECT 1 FROM runs WHERE repository = ? AND role = '' AND kind = 'tag' LIMIT 1");
  if (!q) return q.error();
  q->bind(1, repository);
  auto row = q->step();
  if (!row) return row.error();
  return *row;
}

Result<std::vector<std::string>> HistoryStore::keys(const std::string& repository, const std::string& ref) {
  auto q = db_.prepare("SELECT DISTINCT p.benchmark_key FROM points p WHERE" + where_ref(ref) +
                       " ORDER BY p.benchmark_key");
  if (!q) return q.error();
  bind_ref(*q, repository, ref);
  return strings(*q);
}

Result<std::vector<std::pair<std::string, std::string>>> HistoryStore::keys_of_job(int64_t job_id) {
  auto q = db_.prepare("SELECT kind, ref, benchmark_key FROM points WHERE job_id = ? AND role = ''"
                       " ORDER BY benchmark_key");
  if (!q) return q.error();
  q->bind(1, job_id);
  std::vector<std::pair<std::string, std::string>> out;
  for (;;) {
    auto row = q->step();
    if (!row) return row.error();
    if (!*row) return out;
    const std::string ref = q->column_text(0) == "tag" ? kReleaseSeries : q->column_text(1);
    out.emplace_back(ref, q->column_text(2));
  }
}

namespace {

Result<Trend> read_trend(store::Statement& q, const std::string& repository, const std::string& ref,
                         const std::string& key) {
  Trend t{repository, ref, key, "", model::Direction::lower_is_better, {}};
  for (;;) {
    auto row = q.step();
    if (!row) return row.error();
    if (!*row) break;
    if (t.points.empty()) {
      t.unit = q.column_text(2);
      t.direction = direction_of(q.column_text(9), t.unit);
    }
    t.points.push_back(point_of(q));
  }
  return t;
}

}  // namespace

Result<Trend> HistoryStore::trend(const std::string& repository, const std::string& ref, const std::string& key) {
  auto q = db_.prepare(std::string("SELECT ") + kPointColumns +
                       " FROM points p JOIN runs r ON r.job_id = p.job_id AND r.role = p.role WHERE" +
                       where_ref(ref) + " AND p.benchmark_key = ? ORDER BY" + order_of(ref));
  if (!q) return q.error();
  q->bind(bind_ref(*q, repository, ref), key);
  return read_trend(*q, repository, ref, key);
}

Result<Trend> HistoryStore::trend_chunk(const std::string& repository, const std::string& ref,
                                        const std::string& key, int64_t chunk, int64_t chunk_size,
                                        int64_t from_position) {
  std::string sql = std::string("SELECT ") + kPointColumns +
                    " FROM points p JOIN runs r ON r.job_id = p.job_id AND r.role = p.role WHERE" +
                    where_ref(ref) + " AND p.benchmark_key = ?";
  if (!release(ref)) sql += chunk < 0 ? " AND p.position IS NULL" : " AND p.position >= ? AND p.position < ?";
  sql += " ORDER BY" + order_of(ref);
  auto q = db_.prepare(sql);
  if (!q) return q.error();
  int next = bind_ref(*q, repository, ref);
  q->bind(next++, key);
  if (!release(ref) && chunk >= 0)
    q->bind(next, std::max(chunk * chunk_size, from_position)).bind(next + 1, (chunk + 1) * chunk_size);
  return read_trend(*q, repository, ref, key);
}

Result<std::map<std::string, std::vector<SeriesPoint>>> HistoryStore::points_at(const std::string& repository,
                                                                                 const std::string& ref,
                                                                                 int64_t position) {
  if (release(ref)) return make_error(Errc::invalid_argument, "points_at: a branch only");
  // A point's position is its run's, both written by ingest.
  auto q = db_.prepare(std::string("SELECT ") + kPointColumns +
                       " FROM runs r JOIN points p ON p.job_id = r.job_id AND p.role = r.role"
                       " WHERE r.repository = ? AND r.ref = ? AND r.role = '' AND r.position = ? ORDER BY r.job_id");
  if (!q) return q.error();
  q->bind(1, repository).bind(2, ref).bind(3, position);
  std::map<std::string, std::vector<SeriesPoint>> out;
  for (;;) {
    auto row = q->step();
    if (!row) return row.error();
    if (!*row) return out;
    out[q->column_text(0)].push_back(point_of(*q));
  }
}

Result<int64_t> HistoryStore::chunk_count(const std::string& repository, const std::string& ref,
                                          const std::string& key, int64_t chunk, int64_t chunk_size,
                                          int64_t from) {
  if (release(ref) || chunk < 0) return make_error(Errc::invalid_argument, "chunk_count: a branch chunk only");
  auto q = db_.prepare("SELECT COUNT(*) FROM points p WHERE" + where_ref(ref) +
                       " AND p.benchmark_key = ? AND p.position >= ? AND p.position < ?");
  if (!q) return q.error();
  const int next = bind_ref(*q, repository, ref);
  q->bind(next, key).bind(next + 1, std::max(from, chunk * chunk_size)).bind(next + 2, (chunk + 1) * chunk_size);
  auto row = q->step();
  if (!row) return row.error();
  if (!*row) return make_error(Errc::internal, "chunk_count: no row");
  return q->column_int64(0);
}

Result<std::vector<std::pair<int64_t, std::string>>> HistoryStore::chunk_commits(const std::string& repository,
                                                                                   const std::string& ref,
                                                                                   int64_t chunk,
                                                                                   int64_t chunk_size) {
  std::string sql = "SELECT job_id, commit_sha FROM runs WHERE repository = ? AND role = ''";
  if (release(ref)) sql += " AND kind = 'tag' ORDER BY commit_time, job_id";
  else if (chunk < 0) sql += " AND ref = ? AND position IS NULL ORDER BY job_id";
  else sql += " AND ref = ? AND position >= ? AND position < ? ORDER BY position, job_id";
  auto q = db_.prepare(sql);
  if (!q) return q.error();
  q->bind(1, repository);
  if (!release(ref)) q->bind(2, ref);
  if (!release(ref) && chunk >= 0) q->bind(3, chunk * chunk_size).bind(4, (chunk + 1) * chunk_size);
  std::vector<std::pair<int64_t, std::string>> out;
  for (;;) {
    auto row = q->step();
    if (!row) return row.error();
    if (!*row) return out;
    out.emplace_back(q->column_int64(0), q->column_text(1));
  }
}

Result<Series> HistoryStore::recent(const std::string& repository, const std::string& ref, const std::string& key,
                                    const std::string& environment_key, size_t limit) {
  // The newest `limit` in reverse order, turned around below.
  std::string order = release(ref) ? " p.commit_time DESC, p.job_id DESC" : " p.position DESC, p.job_id DESC";
  auto q = db_.prepare(std::string("SELECT ") + kPointColumns +
                       " FROM points p JOIN runs r ON r.job_id = p.job_id AND r.role = p.role WHERE" +
                       where_ref(ref) + " AND p.benchmark_key = ? AND p.environment_key = ? ORDER BY" + order +
                       " LIMIT ?");
  if (!q) return q.error();
  int next = bind_ref(*q, repository, ref);
  q->bind(next, key).bind(next + 1, environment_key).bind(next + 2, static_cast<int64_t>(limit));
  Series s{repository, key, environment_key, "", {}};
  for (;;) {
    auto row = q->step();
    if (!row) return row.error();
    if (!*row) break;
    if (s.points.empty()) {
      s.unit = q->column_text(2);
      s.direction = direction_of(q->column_text(9), s.unit);
    }
    s.points.push_back(point_of(*q));
  }
  std::reverse(s.points.begin(), s.points.end());
  return s;
}

Result<std::vector<std::pair<int64_t, int64_t>>> HistoryStore::chunk_counts(const std::string& repository,
                                                                            const std::string& ref,
                                                                            const std::string& key,
                                                                            int64_t chunk_size) {
  const std::string chunk = release(ref) ? "0" : "CASE WHEN p.position IS NULL THEN -1 ELSE p.position / ? END";
  auto q = db_.prepare("SELECT " + chunk + " AS c, COUNT(*) FROM points p WHERE" + where_ref(ref) +
                       " AND p.benchmark_key = ? GROUP BY c ORDER BY c");
  if (!q) return q.error();
  int next = 1;
  if (!release(ref)) q->bind(next++, chunk_size);
  // where_ref's placeholders follow the chunk's.
  q->bind(next++, repository);
  if (!release(ref)) q->bind(next++, ref);
  q->bind(next, key);
  std::vector<std::pair<int64_t, int64_t>> out;
  for (;;) {
    auto row = q->step();
    if (!row) return row.error();
    if (!*row) return out;
    out.emplace_back(q->column_int64(0), q->column_int64(1));
  }
}

}  // namespace bb::report
