#include "manager.h"

#include "fetch_token.h"

#include <grp.h>
#include <pwd.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "bus/connect.h"
#include "bus/dict.h"
#include "bus/enqueue_group.h"
#include "bus/errors.h"
#include "bus/names.h"
#include "daemon/log.h"
#include "exec/scope_runner.h"
#include "exec/service_runner.h"
#include "sys/host.h"
#include "util/cpu_list.h"
#include "util/file.h"

namespace bb::runnerd {

namespace {

// How often an idle runner asks for work even without a JobQueued signal
// (a signal missed while queued restarted, a lease that expired quietly).
constexpr uint64_t kPollUsec = 5ull * 1000 * 1000;

std::string id_text(int64_t id) { return std::to_string(id); }

// This executable's path: benchbox-meter is installed beside it.
std::string self_path() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "/usr/libexec/benchbox/benchbox-runnerd";
}

// The runners' admission on a v1-shielded host (bench_cpuset.h): called
// from the worker thread, so on a connection of its own, kept for the
// thread's life (every benchmark command is admitted: one connection, not
// one per command). A connection the bus closed is opened once more.
Status admit_via_tunerd(pid_t pid) {
  thread_local bus::BusPtr kept;
  for (int attempt = 0;; ++attempt) {
    if (!kept) {
      auto bus = bus::open_system_bus();
      if (!bus) return bus.error().with_context("connect to the bus for Tuner1.AdmitToBench");
      kept = std::move(*bus);
    }
    bus::BusError error;
    int r = sd_bus_call_method(kept.get(), bus::kTunerName, bus::kTunerPath, bus::kTunerInterface, "AdmitToBench",
                               error.get(), nullptr, "u", static_cast<uint32_t>(pid));
    if (r >= 0) return {};
    if (sd_bus_is_open(kept.get()) > 0 || attempt > 0) return bus::from_bus_error(error.get(), r, "Tuner1.AdmitToBench");
    kept.reset();
  }
}

bool is_error(const bus::BusError& e, const char* name) { return e.is_set() && std::string(e.name()) == name; }

}  // namespace

Manager::Manager(Conf conf, sd_bus* bus, sd_event* event)
    : conf_(std::move(conf)), bus_(bus), event_(event) {
  // Transient scopes in benchbox-bench.slice when systemd is PID 1, else
  // a child pinned with sched_setaffinity; both kill the whole command
  // (SIGTERM, then SIGKILL after 5 s) on timeout or cancel.
  // Under systemd, contained: transient services as runner.job_user.
  exec::ServiceOptions contained;
  contained.user = conf_.appliance.runner.job_user;
  if (struct passwd* pw = ::getpwnam(contained.user.c_str()))
    if (struct group* gr = ::getgrgid(pw->pw_gid)) contained.group = gr->gr_name;
  contained.meter_program = path_join(std::filesystem::path(self_path()).parent_path().string(), "benchbox-meter");
  contained.meter_dir = conf_.meter_dir;
  contained.bench.admit = admit_via_tunerd;
  exec::ScopeOptions scoped;  // the uncontained fallback
  scoped.bench.admit = admit_via_tunerd;
  auto choice = exec::make_benchmark_runner(scoped, &contained);
  runner_ = std::move(choice.runner);
  runner_why_ = choice.why;
  contained_ = choice.contained;
  box_ = box_containment(contained_, contained.user, choice.why_not_contained);
}

std::string Manager::refusal() const { return containment_refusal(box_, conf_.appliance.runner.containment); }

Manager::~Manager() { shutdown(); }

std::string Manager::benchmark_cpus() const { return format_cpu_list(conf_.benchmark_cpus); }

Status Manager::start() {
  auto tokens = FetchTokens::create(conf_.appliance);
  if (!tokens) return tokens.error();
  tokens_ = std::move(*tokens);
  for (const auto& dir : {conf_.git_cache_dir, conf_.work_dir, conf_.results_dir})
    if (auto st = make_dirs(dir); !st) return st;
  // The git mirrors and built trees are runnerd's alone: a job (running as
  // its own uid) must not read another repository's code or alter what
  // later jobs trust. Under systemd CacheDirectoryMode=0700 says the same.
  for (const auto& dir : {conf_.git_cache_dir, conf_.build_cache_dir, conf_.meter_dir})
    if (auto st = make_dirs(dir, 0700); !st) return st;
    else if (::chmod(dir.c_str(), 0700) < 0) return errno_error("chmod 0700 " + dir, errno);
  // The job's user passes through to its own work/<job> (0750, its group),
  // and sees nothing else here.
  if (contained_ && ::chmod(conf_.work_dir.c_str(), 0711) < 0) return errno_error("chmod 0711 " + conf_.work_dir, errno);
  clean_work_dir(conf_.work_dir, contained_ ? runner_.get() : nullptr);
  if (auto last = newest_canary(canary_dir())) {
    canary_tried_ = last->time;
    canary_tried_version_ = last->version;
  }

  // The worker must not touch sd-event or sd-bus: neither is thread-safe,
  // and sd_event_add_defer from another thread would race the loop. An
  // eventfd is the one thing both sides may touch: the worker write()s it
  // when the job ends, the loop sees it readable like any other fd and runs
  // on_worker_done on the main thread, which then makes the bus calls.
  done_fd_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!done_fd_.valid()) return errno_error("eventfd", errno);
  sd_event_source* raw = nullptr;
  int r = sd_event_add_io(event_, &raw, done_fd_.get(), EPOLLIN, on_worker_done, this);
  if (r < 0) return errno_error("watch the worker's eventfd", -r);
  done_source_.reset(raw);

  if ((r = sd_event_add_time_relative(event_, &raw, CLOCK_MONOTONIC, kPollUsec, 0, on_poll_timer, this)) < 0)
    return errno_error("add poll timer", -r);
  poll_timer_.reset(raw);
  if ((r = sd_event_add_time_relative(event_, &raw, CLOCK_MONOTONIC,
                                      uint64_t(conf_.appliance.runner.heartbeat_seconds) * 1000000, 0,
                                      on_heartbeat_timer, this)) < 0)
    return errno_error("add heartbeat timer", -r);
  heartbeat_timer_.reset(raw);
  sd_event_source_set_enabled(raw, SD_EVENT_OFF);

  // No sender filter: a well-known sender in a match rule is resolved once
  // by sd-bus, and queued may restart under a new unique name.
  sd_bus_slot* slot = nullptr;
  if ((r = sd_bus_match_signal(bus_, &slot, nullptr, bus::kQueuePath, bus::kQueueInterface, "JobQueued",
                               on_job_queued, this)) < 0)
    return errno_error("subscribe to JobQueued", -r);
  job_queued_slot_.reset(slot);

  if (const std::string why = refusal(); !why.empty())
    daemon::log_error("claiming no job: " + why, {{"CONTAINMENT", "none"}});
  else
    daemon::log_info("a job's code runs as " + box_.description, {{"CONTAINMENT", box_.description}});
  try_claim();
  return {};
}

void Manager::shutdown() {
  drop_holders();
  if (!worker_.joinable()) return;
  // A SIGTERM mid-job: stop the job's processes, but neither Fail nor
  // Complete it. The queue still holds it as ours; without heartbeats its
  // lease expires and queued puts it back in the queue (attempts+1), so a
  // restarted runner (after an upgrade, say) runs it from the start.
  cancel_ = true;
  worker_.join();
  if (canary_running_) {
    daemon::log_notice("stopped with the canary running; that run is not kept");
    return;
  }
  daemon::log_notice("stopped with a job running; its lease will expire and it will be requeued",
                     {{"JOB_ID", id_text(current_job())}});
}

Status Manager::cancel_current(const std::string& reason) {
  if (!current_) return make_error(Errc::conflict, "no job is running");
  cancel_reason_ = reason.empty() ? "cancelled on the runner" : reason;
  cancel_ = true;
  daemon::log_notice("cancelling the running job: " + cancel_reason_, {{"JOB_ID", id_text(current_->id)}});
  return {};
}

int Manager::on_job_queued(sd_bus_message*, void* userdata, sd_bus_error*) {
  try {
    static_cast<Manager*>(userdata)->try_claim();
  } catch (const std::exception& e) {
    daemon::log_error(std::string("claim failed: ") + e.what());
  }
  return 0;
}

int Manager::on_poll_timer(sd_event_source* s, uint64_t, void* userdata) {
  try {
    static_cast<Manager*>(userdata)->try_claim();
  } catch (const std::exception& e) {
    daemon::log_error(std::string("claim failed: ") + e.what());
  }
  sd_event_source_set_time_relative(s, kPollUsec);
  sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
  return 0;
}

int Manager::on_heartbeat_timer(sd_event_source* s, uint64_t, void* userdata) {
  auto* self = static_cast<Manager*>(userdata);
  try {
    self->heartbeat();
  } catch (const std::exception& e) {
    daemon::log_error(std::string("heartbeat failed: ") + e.what());
  }
  if (self->current_) {
    sd_event_source_set_time_relative(s, uint64_t(self->conf_.appliance.runner.heartbeat_seconds) * 1000000);
    sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
  }
  return 0;
}

int Manager::on_worker_done(sd_event_source*, int fd, uint32_t, void* userdata) {
  uint64_t value;
  while (::read(fd, &value, sizeof value) < 0 && errno == EINTR) {}
  auto* self = static_cast<Manager*>(userdata);
  try {
    if (self->canary_running_) self->finish_canary();
    else self->finish_job();
  } catch (const std::exception& e) {
    daemon::log_error(std::string("finishing the job failed: ") + e.what());
  }
  return 0;
}

void Manager::emit_paused() {
  sd_bus_emit_properties_changed(bus_, bus::kRunnerPath, bus::kRunnerInterface, "Paused", "PausedReason", nullptr);
}

std::string Manager::paused_reason() const { return paused_ ? paused_reason_ : holders_ ? hold_reason_ : ""; }

void Manager::pause(const std::string& reason) {
  paused_reason_ = reason.empty() ? "paused" : reason;
  if (!paused()) daemon::log_notice("paused: no new job is claimed (" + paused_reason_ + ")");
  paused_ = true;
  emit_paused();
}

void Manager::drop_holders() {
  holders_ = sd_bus_track_unref(holders_);
  hold_reason_.clear();
}

void Manager::resume() {
  if (paused()) daemon::log_notice("resumed: claiming jobs again");
  paused_ = false;
  paused_reason_.clear();
  drop_holders();
  emit_paused();
  try_claim();
}

Status Manager::hold(sd_bus_message* call, const std::string& reason) {
  const std::string holder = sd_bus_message_get_sender(call) ? sd_bus_message_get_sender(call) : "";
  const bool was_paused = paused();
  if (!holders_) {
    int r = sd_bus_track_new(bus_, &holders_, on_holders_gone, this);
    if (r < 0) return errno_error("track the pause's holder", -r);
  }
  int r = sd_bus_track_add_sender(holders_, call);
  if (r < 0) {
    if (sd_bus_track_count(holders_) == 0) drop_holders();
    return errno_error("track the pause's holder " + holder, -r);
  }
  hold_reason_ = reason.empty() ? "held" : reason;
  // A holder that left between its call and the tracking is not waited for.
  bus::BusError error;
  sd_bus_message* reply = nullptr;
  r = sd_bus_call_method(bus_, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                         "NameHasOwner", error.get(), &reply, "s", holder.c_str());
  bus::MessagePtr owned(reply);
  int there = 1;
  if (r >= 0) (void)sd_bus_message_read(reply, "b", &there);
  if (!there) {
    (void)sd_bus_track_remove_name(holders_, holder.c_str());
    if (sd_bus_track_count(holders_) == 0) drop_holders();
    daemon::log_notice("a pause asked by " + holder + " (" + reason + ") ended at once: it left the bus");
    return {};
  }
  if (!was_paused)
    daemon::log_notice("paused while " + holder + " is on the bus: no new job is claimed (" + hold_reason_ + ")");
  emit_paused();
  return {};
}

void Manager::release_hold(sd_bus_message* call) {
  if (!holders_ || sd_bus_track_remove_sender(holders_, call) <= 0) return;
  const std::string sender = sd_bus_message_get_sender(call) ? sd_bus_message_get_sender(call) : "";
  if (sd_bus_track_count(holders_) > 0) return;
  const std::string reason = hold_reason_;
  drop_holders();  // before the track's own "empty" callback can run
  daemon::log_notice("the pause held for " + reason + " was released by " + sender +
                     (paused() ? "; still paused (" + paused_reason() + ")" : "; claiming jobs again"));
  emit_paused();
  try_claim();
}

int Manager::on_holders_gone(sd_bus_track*, void* userdata) {
  auto* self = static_cast<Manager*>(userdata);
  try {
    const std::string reason = self->hold_reason_;
    self->drop_holders();  // as systemd does in its track handlers: not called again
    daemon::log_notice("the pause held for " + reason + " ended: its holder left the bus (exited or was killed)" +
                       (self->paused() ? "; still paused (" + self->paused_reason() + ")" : "; claiming jobs again"));
    self->emit_paused();
    self->try_claim();
  } catch (const std::exception& e) {
    daemon::log_error(std::string("ending a pause: ") + e.what());
  }
  return 0;
}

void Manager::try_claim() {
  if (current_ || canary_running_ || !refusal().empty()) return;
  // Paused by the updater: the box's level on this version first.
  if (paused()) {
    if (holders_) canary_turn(false);
    return;
  }
  if (canary_turn(true)) return;  // after an update: ahead of the next job
  bus::BusError error;
  sd_bus_message* raw = nullptr;
  int r = sd_bus_call_method(bus_, bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, "Claim", error.get(),
                             &raw, "su", conf_.runner_id.c_str(), conf_.lease_seconds);
  bus::MessagePtr reply(raw);
  if (r < 0) {
    if (queue_reachable_)
      daemon::log_warning("cannot claim a job: " + bus::from_bus_error(error.get(), r, "Queue1.Claim").message);
    queue_reachable_ = false;
    return;
  }
  if (!queue_reachable_) daemon::log_info("the queue answers again");
  queue_reachable_ = true;
  int64_t id = 0;
  if ((r = sd_bus_message_read(raw, "x", &id)) < 0) {
    daemon::log_error("Queue1.Claim: malformed reply");
    return;
  }
  if (id == 0) {  // nothing queued: idle, perhaps long enough for the canary
    if (idle_since_ == 0) idle_since_ = SystemClock().now_unix();
    canary_turn(false);
    return;
  }
  idle_since_ = 0;
  auto dict = bus::read_dict(raw);
  if (!dict) {
    daemon::log_error("Queue1.Claim: " + dict.error().message, {{"JOB_ID", id_text(id)}});
    return;
  }
  auto job = model::job_from_json(*dict);
  if (!job) {
    // We hold its lease but cannot read it: fail it so it does not bounce
    // between runners.
    current_ = model::Job{};
    current_->id = id;
    report("Fail", "runnerd could not read the claimed job: " + job.error().message);
    current_.reset();
    return;
  }
  job->id = id;
  begin(std::move(*job));
}

void Manager::begin(model::Job job) {
  const std::string id = id_text(job.id);
  daemon::log_info("claimed job (" + std::string(model::to_string(job.spec.kind)) + ")",
                   {{"JOB_ID", id}, {"REPOSITORY", job.spec.repository}, {"COMMIT", job.spec.head_sha}});
  current_ = std::move(job);
  cancel_ = false;
  abandon_ = false;
  cancel_reason_.clear();
  properties_changed();

  ExecContext ctx;
  ctx.runner_id = conf_.runner_id;
  ctx.cpus = conf_.benchmark_cpus;
  ctx.isolation = runner_->describe();
  ctx.git_cache_dir = conf_.git_cache_dir;
  ctx.build_cache_dir = conf_.build_cache_dir;
  ctx.build_cache_bytes = conf_.build_cache_bytes;
  ctx.work_dir = conf_.work_dir;
  ctx.results_dir = conf_.results_dir;
  // A repository the config does not list (benchboxctl enqueue) gets the default.
  const config::RepositoryPolicy* policy = conf_.appliance.find_repository(current_->spec.repository);
  ctx.network = policy ? policy->network : config::RepositoryPolicy{}.network;
  ctx.runner = runner_.get();
  ctx.cancel = &cancel_;
  ctx.contained_service = contained_;
  ctx.tokens = tokens_.get();
  ctx.job_user = conf_.appliance.runner.job_user;
  ctx.limits = {conf_.appliance.runner.memory_max_bytes, conf_.appliance.runner.tasks_max,
                conf_.appliance.runner.file_size_max_bytes};
  ctx.work_tree_max_bytes = conf_.appliance.runner.work_tree_max_bytes;
  ctx.queue_shards = queue_shards;
  std::string why;
  check_tuner(ctx.machine_fingerprint, ctx.host_drifted, ctx.tuning, why);
  ctx.hardware = hardware_class(ctx.machine_fingerprint);
  if (ctx.host_drifted && conf_.appliance.runner.refuse_on_drift) {
    report("Fail", "the host's tuning drifted (" + why + ") and runner.refuse_on_drift is set");
    current_.reset();
    ++jobs_run_;
    properties_changed();
    return;
  }

  sd_event_source_set_time_relative(heartbeat_timer_.get(),
                                    uint64_t(conf_.appliance.runner.heartbeat_seconds) * 1000000);
  sd_event_source_set_enabled(heartbeat_timer_.get(), SD_EVENT_ONESHOT);
  worker_ = std::thread([this, job = *current_, ctx] {
    ExecOutcome outcome;
    try {
      outcome = execute_job(job, ctx);
    } catch (const std::exception& e) {
      outcome.state = ExecOutcome::State::failed;
      outcome.reason = std::string("runnerd internal error: ") + e.what();
    }
    outcome_ = std::move(outcome);
    uint64_t one = 1;
    while (::write(done_fd_.get(), &one, sizeof one) < 0 && errno == EINTR) {}
  });
}

void Manager::finish_job() {
  if (!worker_.joinable()) return;
  worker_.join();
  sd_event_source_set_enabled(heartbeat_timer_.get(), SD_EVENT_OFF);
  const std::string id = id_text(current_->id);
  if (abandon_) {
    daemon::log_notice("job taken away by the queue; not reporting it", {{"JOB_ID", id}});
  } else if (outcome_.state == ExecOutcome::State::done) {
    daemon::log_info("job done: " + outcome_.result_path, {{"JOB_ID", id}});
    complete(outcome_.result_path);
    ++jobs_run_;
  } else if (outcome_.state == ExecOutcome::State::failed) {
    report("Fail", outcome_.reason);
    ++jobs_run_;
  } else if (!cancel_reason_.empty()) {
    bus::BusError error;
    int r = sd_bus_call_method(bus_, bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, "Cancel", error.get(),
                               nullptr, "xs", current_->id, cancel_reason_.c_str());
    if (r < 0)
      daemon::log_warning(bus::from_bus_error(error.get(), r, "Queue1.Cancel").message, {{"JOB_ID", id}});
  }
  current_.reset();
  apply_pending_conf();
  properties_changed();
  try_claim();
}

void Manager::reload(Conf fresh) {
  pending_conf_ = std::move(fresh);
  if (current_) {
    daemon::log_notice("the new configuration applies when job " + id_text(current_->id) + " ends");
    return;
  }
  apply_pending_conf();
  properties_changed();
}

void Manager::apply_pending_conf() {
  if (!pending_conf_) return;
  for (const auto& dir : {pending_conf_->git_cache_dir, pending_conf_->work_dir, pending_conf_->results_dir})
    if (auto st = make_dirs(dir); !st) {
      daemon::log_error("reload: keeping the old configuration: " + st.error().message);
      pending_conf_.reset();
      return;
    }
  conf_ = std::move(*pending_conf_);
  pending_conf_.reset();
  daemon::log_notice("configuration applied: CPUs " + benchmark_cpus() + ", runner " + conf_.runner_id,
                     {{"CPUS", benchmark_cpus()}});
}

void Manager::heartbeat() {
  if (!current_ || abandon_) return;
  const std::string id = id_text(current_->id);
  bus::BusError error;
  sd_bus_message* raw = nullptr;
  int r = sd_bus_call_method(bus_, bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, "Heartbeat",
                             error.get(), &raw, "xs", current_->id, conf_.runner_id.c_str());
  bus::MessagePtr reply(raw);
  if (r >= 0) return;
  if (is_error(error, bus::kErrorCancelled) || is_error(error, bus::kErrorConflict) ||
      is_error(error, bus::kErrorNotFound)) {
    // Cancelled in the queue, or the lease went to someone else: stop the
    // processes and report nothing, the job is no longer ours.
    daemon::log_notice("the queue answered the heartbeat with '" + std::string(error.message()) +
                           "': stopping the job",
                       {{"JOB_ID", id}});
    abandon_ = true;
    cancel_ = true;
    return;
  }
  daemon::log_warning(bus::from_bus_error(error.get(), r, "Queue1.Heartbeat").message, {{"JOB_ID", id}});
}

void Manager::report(const char* method, const std::string& text) {
  bus::BusError error;
  int r = sd_bus_call_method(bus_, bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, method, error.get(),
                             nullptr, "xss", current_->id, conf_.runner_id.c_str(), text.c_str());
  if (r < 0)
    daemon::log_error(bus::from_bus_error(error.get(), r, (std::string("Queue1.") + method).c_str()).message,
                      {{"JOB_ID", id_text(current_->id)}});
}

// The result set goes into the queue with the job, for a reporterd on any
// box; the file stays here for the post-mortem and the profiles.
void Manager::complete(const std::string& result_path) {
  auto text = read_file(result_path, model::kMaxResultBytes + 1);
  if (!text || text->size() > model::kMaxResultBytes) {
    daemon::log_warning("the result set stays on this box only: " +
                            (text ? "larger than " + std::to_string(model::kMaxResultBytes >> 20) + " MiB"
                                  : text.error().message),
                        {{"JOB_ID", id_text(current_->id)}});
    report("Complete", result_path);
    return;
  }
  bus::BusError error;
  int r = sd_bus_call_method(bus_, bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, "CompleteWithResult",
                             error.get(), nullptr, "xsss", current_->id, conf_.runner_id.c_str(),
                             result_path.c_str(), text->c_str());
  if (r < 0)
    daemon::log_error(bus::from_bus_error(error.get(), r, "Queue1.CompleteWithResult").message,
                      {{"JOB_ID", id_text(current_->id)}});
}

// From the worker thread, so on a connection of its own (an sd-bus
// connection belongs to one thread). A parent job run again (its box died
// after queueing) finds its shards queued already: the queue answers with
// those jobs and no new group, and their group is read from one of them.
Result<int64_t> Manager::queue_shards(const model::GroupSpec& group, const std::vector<model::JobSpec>& specs) {
  auto bus = bus::open_system_bus();
  if (!bus) return bus.error();
  std::vector<nlohmann::json> jobs;
  for (const auto& s : specs) jobs.push_back(model::to_json(s));
  auto queued = bus::enqueue_group(bus->get(), model::to_json(group), jobs);
  if (!queued) return queued.error();
  if (queued->group_id != 0) return queued->group_id;
  if (queued->jobs.empty()) return make_error(Errc::io, "Queue1.EnqueueGroup: no job in the answer");
  bus::BusError error;
  sd_bus_message* raw = nullptr;
  int r = sd_bus_call_method(bus->get(), bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, "Get",
                             error.get(), &raw, "x", queued->jobs.front().id);
  bus::MessagePtr reply(raw);
  if (r < 0) return bus::from_bus_error(error.get(), r, "Queue1.Get");
  auto dict = bus::read_dict(raw);
  if (!dict) return dict.error();
  auto job = model::job_from_json(*dict);
  if (!job) return job.error();
  return job->spec.group_id;
}

// Read at every job: a kernel upgrade or a memory change while runnerd
// runs starts a new class (and a new trend) at once.
model::HardwareClass Manager::hardware_class(const std::string& tuning) {
  static const std::unique_ptr<sys::SysFs> root = sys::open_root("/");
  model::HardwareClass hw;
  hw.tuning = tuning;
  auto info = sys::read_host_info(*root);
  if (!info) {
    daemon::log_warning("hardware class incomplete: " + info.error().message, {{"JOB_ID", id_text(current_job())}});
    return hw;
  }
  hw.cpu_model = info->cpu_model;
  hw.cpus = info->cpus;
  hw.memory_gib = (info->memory_bytes + (uint64_t(1) << 29)) >> 30;
  hw.kernel = info->kernel;
  return hw;
}

void Manager::check_tuner(std::string& fingerprint, bool& drifted, std::string& state_out, std::string& why) {
  fingerprint = "unavailable";
  drifted = false;
  state_out.clear();
  bus::BusError error;
  sd_bus_message* raw = nullptr;
  int r = sd_bus_call_method(bus_, bus::kTunerName, bus::kTunerPath, bus::kTunerInterface, "Check", error.get(),
                             &raw, "");
  bus::MessagePtr reply(raw);
  if (r < 0) {
    daemon::log_warning("no tuning fingerprint: " + bus::from_bus_error(error.get(), r, "Tuner1.Check").message,
                        {{"JOB_ID", id_text(current_job())}});
    return;
  }
  if ((r = sd_bus_message_enter_container(raw, 'a', "(sssbs)")) < 0) return;
  const char *name, *wanted, *actual, *reason;
  int ok = 0;
  while ((r = sd_bus_message_read(raw, "(sssbs)", &name, &wanted, &actual, &ok, &reason)) > 0)
    if (!ok) why += (why.empty() ? "" : ", ") + std::string(name) + ": wanted " + wanted + ", is " + actual;
  sd_bus_message_exit_container(raw);
  const char* fp = nullptr;
  if (sd_bus_message_read(raw, "s", &fp) >= 0 && fp) fingerprint = fp;

  char* state = nullptr;
  bus::BusError perror;
  if (sd_bus_get_property_string(bus_, bus::kTunerName, bus::kTunerPath, bus::kTunerInterface, "State",
                                 perror.get(), &state) >= 0) {
    state_out = state;
    drifted = state_out == "drifted";
    std::free(state);
  }
}

void Manager::properties_changed() {
  sd_bus_emit_properties_changed(bus_, bus::kRunnerPath, bus::kRunnerInterface, "State", "CurrentJob", "JobsRun",
                                 "Refusal", nullptr);
}

}  // namespace bb::runnerd
