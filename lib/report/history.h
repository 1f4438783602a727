// history.db: every ingested result set, kept with its raw samples, so the
// reporter can compare a push with the previous one on the same branch and
// the dashboard can draw trends. Series are keyed by (repository, benchmark
// key, environment key): results from different environments never mix.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/result_set.h"
#include "store/sqlite.h"
#include "util/result.h"

namespace bb::report {

struct SeriesPoint {
  int64_t job_id = 0;
  std::string commit;
  int64_t created = 0;
  double median = 0;
  size_t samples = 0;
  std::string status;
  std::vector<std::string> profiles;  // callgrind profiles kept with it (measure: callgrind)
};

struct Series {
  std::string repository;
  std::string key;             // BenchmarkKey::to_string()
  std::string environment_key;
  std::string unit;
  std::vector<SeriesPoint> points;  // oldest first
  model::Direction direction = model::Direction::lower_is_better;  // as its first point recorded it
};

class HistoryStore {
 public:
  static Result<HistoryStore> open(const std::string& path);

  // Records one result set of a job (a PR job records base and head under
  // their roles). Re-ingesting the same job and role replaces it.
  Status ingest(const model::ResultSet& rs, const std::string& kind);

  bool has_job(int64_t job_id);

  // The newest plain (role "") result set of `repository` on `ref` older
  // than job `before_job`, with the same environment key: what a push is
  // compared against.
  Result<std::optional<model::ResultSet>> previous_run(const std::string& repository,
                                                       const std::string& ref,
                                                       const std::string& environment_key,
                                                       int64_t before_job);

  // The newest plain run on `ref` before `before_job`, whatever its
  // environment: what a first run in a new environment names as changed.
  Result<std::optional<model::ResultSet>> latest_run(const std::string& repository, const std::string& ref,
                                                     int64_t before_job);

  // Every series of plain runs on `ref` (main-branch trends) for a repository.
  Result<std::vector<Series>> series(const std::string& repository, const std::string& ref);
  Result<std::vector<std::string>> repositories();

  HistoryStore(HistoryStore&&) = default;
  HistoryStore& operator=(HistoryStore&&) = default;

 private:
  explicit HistoryStore(store::Database db) : db_(std::move(db)) {}
  store::Database db_;
};

}  // namespace bb::report
