// A job's report: what a maintainer reads (Markdown, the body of the sticky
// PR comment and of the check run) and what machines read (JSON). Pure.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "compare/compare.h"
#include "model/job.h"
#include "model/result_set.h"
#include "report/change_points.h"
#include "report/history.h"

namespace bb::report {

// Overall outcome of a job, worst first; a cancelled job measured nothing.
enum class Overall { failed, regressed, inconclusive, improved, unchanged, recorded, cancelled };
const char* to_string(Overall o);

struct JobReport {
  model::Job job;
  Overall overall = Overall::recorded;
  std::optional<compare::Comparison> comparison;  // absent for a first run
  std::string head_commit;  // the commit measured (check runs attach to it)
  std::string baseline;   // what head was compared against, in words
  int64_t baseline_job = 0;  // the job that measured it (this job, for a PR)
  std::string markdown;
  nlohmann::json json;
  std::string summary;    // one line for the journal
  bool nothing_measured = false;       // done, but no benchmark has a sample
  bool missing = false;                // a benchmark expected was not measured
  std::vector<std::string> reproduce;  // shell commands (reproduce.h)
};

// Where a report's links point: the dashboard's public URL ("" = none).
struct ReportLinks {
  std::string site_url;
};

// The host's tuning while a result set was measured, as tunerd said when
// its job began: tuned, partial, untuned or drifted (also when it drifted
// during the run); unknown without tunerd, or for a result from before
// runnerd recorded it. Never assumed from the fingerprint alone.
std::string tuning_of(const model::ResultSet& rs);

// A pull-request job: head against the merge-base measured in the same job.
// A push/tag/manual job: against `previous` (the last run on the same ref),
// or recorded only when there is none. A failed job reports why. With no
// `previous`, `elsewhere` (the last run on the ref in another environment)
// lets a first run say which input changed and why it was not compared.
JobReport build_report(const model::Job& job, const std::optional<model::JobResult>& result,
                       const std::optional<model::ResultSet>& previous,
                       const compare::Options& options,
                       const std::optional<model::ResultSet>& elsewhere = std::nullopt,
                       const ReportLinks& links = {});

// A push job on a branch: appends "Change points on <ref>" to the report,
// listing for each series this job measured (`series` is HistoryStore::series()
// of the job's ref, after the job was ingested) its most recent change point
// if that lies within the last `recent` points up to this job, so a
// main-branch regression is reported with its commit range and effect. Sets
// json["change_points"] (possibly empty). Other jobs are left as they are.
void add_change_points(JobReport& report, const std::vector<Series>& series, ChangeCache& cache,
                       size_t recent = 8);
// The same over series kept elsewhere (SiteWriter's change windows).
void add_change_points(JobReport& report, const std::vector<const Series*>& series, ChangeCache& cache,
                       size_t recent = 8);

}  // namespace bb::report
