#include "manager.h"

#include <exception>

#include "bus/dict.h"
#include "bus/errors.h"
#include "bus/names.h"
#include "daemon/log.h"
#include "report/profile_diff.h"
#include "report/site.h"
#include "util/file.h"

namespace bb::reporterd {

using daemon::log_error;
using daemon::log_info;
using daemon::log_warning;

Manager::Manager(config::ApplianceConfig config, report::HistoryStore history, sd_bus* bus,
                 std::unique_ptr<GitHubPoster> poster)
    : config_(std::move(config)), history_(std::move(history)), bus_(bus), poster_(std::move(poster)) {}

Status Manager::start() {
  sd_bus_slot* slot = nullptr;
  int r = sd_bus_match_signal(bus_, &slot, bus::kQueueName, bus::kQueuePath, bus::kQueueInterface,
                              "JobFinished", on_job_finished, this);
  if (r < 0) return errno_error("subscribe to JobFinished", -r);
  finished_match_.reset(slot);
  // When queued (re)appears, jobs may have finished while we could not hear.
  r = sd_bus_match_signal(bus_, &slot, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "NameOwnerChanged", on_queue_owner, this);
  if (r < 0) return errno_error("subscribe to NameOwnerChanged", -r);
  owner_match_.reset(slot);
  catch_up();
  return {};
}

int Manager::on_job_finished(sd_bus_message* m, void* userdata, sd_bus_error*) {
  auto* self = static_cast<Manager*>(userdata);
  int64_t id = 0;
  const char* state = nullptr;
  const char* path = nullptr;
  if (sd_bus_message_read(m, "xss", &id, &state, &path) < 0) return 0;
  try {
    self->fetch_and_process(id);
  } catch (const std::exception& e) {
    log_error(std::string("handling JobFinished: ") + e.what(), {{"JOB_ID", std::to_string(id)}});
  }
  return 0;
}

int Manager::on_queue_owner(sd_bus_message* m, void* userdata, sd_bus_error*) {
  const char* name = nullptr;
  const char* old_owner = nullptr;
  const char* new_owner = nullptr;
  if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0) return 0;
  if (std::string(name) != bus::kQueueName || !new_owner || !*new_owner) return 0;
  try {
    static_cast<Manager*>(userdata)->catch_up();
  } catch (const std::exception& e) {
    log_error(std::string("catching up: ") + e.what());
  }
  return 0;
}

namespace {

struct GetContext {
  Manager* manager;
  int64_t job_id;
};

}  // namespace

// Jobs are fetched asynchronously so a slow queue never stalls our own
// bus interface.
void Manager::fetch_and_process(int64_t job_id) {
  if (!in_flight_.insert(job_id).second) return;
  auto* ctx = new GetContext{this, job_id};
  int r = sd_bus_call_method_async(bus_, nullptr, bus::kQueueName, bus::kQueuePath,
                                   bus::kQueueInterface, "Get", on_get_reply, ctx, "x", job_id);
  if (r < 0) {
    delete ctx;
    in_flight_.erase(job_id);
    log_warning("cannot ask the queue for job " + std::to_string(job_id) + ": " + strerror(-r),
                {{"JOB_ID", std::to_string(job_id)}});
  }
}

int Manager::on_get_reply(sd_bus_message* m, void* userdata, sd_bus_error*) {
  std::unique_ptr<GetContext> ctx(static_cast<GetContext*>(userdata));
  Manager* self = ctx->manager;
  self->in_flight_.erase(ctx->job_id);
  std::string id = std::to_string(ctx->job_id);
  try {
    if (sd_bus_message_is_method_error(m, nullptr)) {
      Error e = bus::from_bus_error(sd_bus_message_get_error(m), -EIO, "Queue1.Get");
      log_warning("cannot fetch job " + id + ": " + e.message, {{"JOB_ID", id}});
      return 0;
    }
    auto dict = bus::read_dict(m);
    if (!dict) {
      log_error("bad job from the queue: " + dict.error().message, {{"JOB_ID", id}});
      return 0;
    }
    auto job = model::job_from_json(*dict);
    if (!job) {
      log_error("bad job from the queue: " + job.error().message, {{"JOB_ID", id}});
      return 0;
    }
    if (!model::is_terminal(job->state)) return 0;
    if (auto st = self->process(*job); !st)
      log_error("report for job " + id + " failed: " + st.error().message,
                {{"JOB_ID", id}, {"REPOSITORY", job->spec.repository}});
  } catch (const std::exception& e) {
    log_error(std::string("report failed: ") + e.what(), {{"JOB_ID", id}});
  }
  return 0;
}

// Asks the queue for finished jobs and reports those that have no report yet.
void Manager::catch_up() {
  for (const char* state : {"done", "failed"}) {
    bus::BusError error;
    sd_bus_message* reply = nullptr;
    int r = sd_bus_call_method(bus_, bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, "List",
                               error.get(), &reply, "su", state, 200u);
    bus::MessagePtr owned(reply);
    if (r < 0) return;  // the queue is not there yet; NameOwnerChanged brings us back
    if (sd_bus_message_enter_container(reply, 'a', "a{sv}") < 0) return;
    while (sd_bus_message_at_end(reply, 0) == 0) {
      auto dict = bus::read_dict(reply);
      if (!dict) return;
      auto job = model::job_from_json(*dict);
      if (!job) continue;
      if (path_exists(path_join(report_dir(job->id), "report.json"))) continue;
      if (auto st = process(*job); !st)
        log_error("report for job " + std::to_string(job->id) + " failed: " + st.error().message,
                  {{"JOB_ID", std::to_string(job->id)}});
    }
  }
}

std::string Manager::report_dir(int64_t job_id) const {
  return path_join(config_.reports_dir(), std::to_string(job_id));
}

static Result<model::JobResult> load_job_result(const std::string& path) {
  auto text = read_file(path, size_t(1) << 30);
  if (!text) return text.error();
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) return make_error(Errc::parse, path + ": not valid JSON");
  auto jr = model::job_result_from_json(j);
  if (!jr) return jr.error().with_context(path);
  return jr;
}

Status Manager::process(const model::Job& job) {
  std::string id = std::to_string(job.id);
  std::optional<model::JobResult> result;
  model::Job effective = job;
  if (job.state == model::JobState::done) {
    auto jr = load_job_result(job.result_path);
    if (!jr) {
      // A done job whose results cannot be read is reported as failed,
      // never as success.
      effective.state = model::JobState::failed;
      effective.error = "result file unreadable: " + jr.error().message;
    } else {
      result = std::move(*jr);
    }
  }

  std::optional<model::ResultSet> previous, elsewhere;
  if (result && !result->base) {
    auto prev = history_.previous_run(job.spec.repository, result->head.ref,
                                      result->head.environment_key, job.id);
    if (!prev) return prev.error();
    previous = std::move(*prev);
    if (!previous) {
      // A first run in this environment: the report says what changed.
      auto other = history_.latest_run(job.spec.repository, result->head.ref, job.id);
      if (!other) return other.error();
      elsewhere = std::move(*other);
    }
  }

  compare::Options options;
  report::JobReport rep = report::build_report(effective, result, previous, options, elsewhere);
  if (result && (result->base || previous))
    report::add_profile_diffs(rep, result->base ? *result->base : *previous, result->head);

  Status ingested;
  if (result) {
    if (result->base) ingested = history_.ingest(*result->base, result->kind);
    if (ingested) ingested = history_.ingest(result->head, result->kind);
  }
  // Change points of the branch's series, now including this run. Detection
  // is recomputed on each grown series (short: at most 100 runs are
  // examined); changes_ only spares series this job did not touch.
  if (result && ingested && job.spec.kind == model::JobKind::push) {
    auto series = history_.series(job.spec.repository, result->head.ref);
    if (series)
      report::add_change_points(rep, *series, changes_);
    else
      log_warning("change points not computed: " + series.error().message, {{"JOB_ID", id}});
  }
  // The report is written even when history could not take the run.
  if (auto st = write_report(rep); !st) return st;
  if (!ingested) return ingested;
  render_site();
  if (poster_) {
    // An issue only for a regression on a watched branch, never for a PR.
    bool branch_push = job.spec.kind == model::JobKind::push;
    poster_->post({rep, report_dir(job.id), branch_push && rep.overall == report::Overall::regressed});
  }
  ++jobs_reported_;
  sd_bus_emit_properties_changed(bus_, bus::kReporterPath, bus::kReporterInterface, "JobsReported", nullptr);
  std::string md_path = path_join(report_dir(job.id), "report.md");
  sd_bus_emit_signal(bus_, bus::kReporterPath, bus::kReporterInterface, "ReportReady", "xss", job.id,
                     report::to_string(rep.overall), md_path.c_str());
  log_info(rep.summary, {{"JOB_ID", id},
                         {"REPOSITORY", job.spec.repository},
                         {"COMMIT", result ? result->head.commit : job.spec.head_sha},
                         {"VERDICT", report::to_string(rep.overall)}});
  return {};
}

Status Manager::write_report(const report::JobReport& r) {
  std::string dir = report_dir(r.job.id);
  if (auto st = make_dirs(dir, 0755); !st) return st;
  if (auto st = write_file_atomic(path_join(dir, "report.md"), r.markdown); !st) return st;
  return write_file_atomic(path_join(dir, "report.json"), r.json.dump(2) + "\n");
}

void Manager::render_site() {
  if (auto st = report::render_site(history_, config_.site_dir(), config_.reports_dir(), &changes_); !st)
    log_warning("dashboard not updated: " + st.error().message);
}

Result<std::pair<std::string, std::string>> Manager::stored_report(int64_t job_id) const {
  std::string dir = report_dir(job_id);
  auto md = read_file(path_join(dir, "report.md"), 64 << 20);
  if (!md) {
    if (md.error().code == Errc::not_found)
      return make_error(Errc::not_found, "no report for job " + std::to_string(job_id) +
                                             " (not finished yet, or unknown)");
    return md.error();
  }
  return std::make_pair(std::move(*md), path_join(dir, "report.json"));
}

Status Manager::reingest(int64_t job_id) {
  fetch_and_process(job_id);
  return {};
}

}  // namespace bb::reporterd
