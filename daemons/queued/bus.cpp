// The org.benchbox.Queue1 vtable (the one place the interface is spelled
// out) and the org.benchbox.Queue1.Job objects. Handlers unpack arguments,
// call the Manager and pack replies; every handler catches exceptions so
// none crosses into sd-bus.
//
// Methods are SD_BUS_VTABLE_UNPRIVILEGED: on the system bus sd-bus would
// otherwise demand CAP_SYS_ADMIN of callers, but webhookd and runnerd run as
// their own users. Who may call what is said twice: by the D-Bus policy
// (policy/org.benchbox.Queue1.conf) and here, per method, against the
// config's access section (docs/systemd.md, "Bus policy").
#include "bus.h"

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <nlohmann/json.hpp>

#include "bus/dict.h"
#include "bus/errors.h"
#include "bus/names.h"
#include "daemon/caller.h"
#include "util/version.h"

namespace bb::queued {

namespace {

using model::Job;

using bus::guarded;

Manager* manager_of(void* userdata) { return static_cast<Manager*>(userdata); }

int reply_error(sd_bus_error* error, const Error& e) { return bus::set_error(error, e); }

// What a delivery needs (webhookd), what running a job needs (runnerd), and
// everything else (operators only).
bus::Allowed webhook_or_operators(void* userdata) {
  const auto& a = manager_of(userdata)->config().access;
  return daemon::operators_and(a, {a.webhook_user});
}
bus::Allowed reporter_or_operators(void* userdata) {
  const auto& a = manager_of(userdata)->config().access;
  return daemon::operators_and(a, {a.reporter_user});
}
bus::Allowed runner_or_operators(void* userdata) {
  const auto& a = manager_of(userdata)->config().access;
  return daemon::operators_and(a, {a.runner_user});
}

// A spec may carry any field of a job (a client may resubmit what Get
// returned), but nothing else: a misspelt key is an error, not a silently
// ignored field.
Status check_spec_keys(const nlohmann::json& dict) {
  static const nlohmann::json known = model::to_json(Job{});
  for (const auto& [key, value] : dict.items()) {
    (void)value;
    if (!known.contains(key)) return make_error(Errc::invalid_argument, "unknown job field '" + key + "'");
  }
  return {};
}

int append_job(sd_bus_message* reply, const Job& job) { return bus::append_dict(reply, model::to_json(job)); }

// reporterd may queue only what a bisection needs: compare jobs in a
// bisection's group. Anything else from it is refused as if it had no
// right at all.
bool only_reporter(sd_bus_message* m, void* userdata) {
  auto caller = bus::sender_of(m);
  return caller && !bus::may_call(*caller, webhook_or_operators(userdata));
}

Status reporter_may_enqueue(Manager& manager, const model::JobSpec& spec) {
  if (spec.kind != model::JobKind::compare)
    return make_error(Errc::permission_denied, "Access denied: benchbox-reporterd may only queue compare jobs");
  if (spec.group_id != 0) {
    auto group = manager.get_group(spec.group_id);
    if (!group) return group.error();
    if (group->spec.kind != model::GroupKind::bisect)
      return make_error(Errc::permission_denied, "Access denied: benchbox-reporterd may only add to a bisection's group");
  }
  return {};
}

int method_enqueue(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    const auto& a = manager_of(userdata)->config().access;
    if (int r = daemon::refuse_unless(m, error, daemon::operators_and(a, {a.webhook_user, a.reporter_user})); r < 0)
      return r;
    auto dict = bus::read_dict(m);
    if (!dict) return reply_error(error, dict.error());
    if (auto st = check_spec_keys(*dict); !st) return reply_error(error, st.error());
    auto spec = model::job_spec_from_json(*dict);
    if (!spec) return reply_error(error, spec.error());
    if (only_reporter(m, userdata)) {
      if (spec->group_id == 0)
        return reply_error(error, make_error(Errc::permission_denied,
                                             "Access denied: benchbox-reporterd may only queue into a bisection's group"));
      if (auto st = reporter_may_enqueue(*manager_of(userdata), *spec); !st) return reply_error(error, st.error());
    }
    // Answered when its batch commits (enqueue_batch.h).
    manager_of(userdata)->enqueue_later(m, std::move(*spec));
    return 1;
  });
}

int method_claim(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    if (int r = daemon::refuse_unless(m, error, runner_or_operators(userdata)); r < 0) return r;
    const char* runner = nullptr;
    uint32_t lease = 0;
    int r = sd_bus_message_read(m, "su", &runner, &lease);
    if (r < 0) return r;
    auto job = manager_of(userdata)->claim(runner, lease);
    if (!job) return reply_error(error, job.error());
    sd_bus_message* raw = nullptr;
    if ((r = sd_bus_message_new_method_return(m, &raw)) < 0) return r;
    bus::MessagePtr reply(raw);
    if (*job) {
      if ((r = sd_bus_message_append(raw, "x", (*job)->id)) < 0) return r;
      if ((r = append_job(raw, **job)) < 0) return r;
    } else {
      if ((r = sd_bus_message_append(raw, "xa{sv}", int64_t{0}, 0)) < 0) return r;
    }
    return sd_bus_send(nullptr, raw, nullptr);
  });
}

int method_heartbeat(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    if (int r = daemon::refuse_unless(m, error, runner_or_operators(userdata)); r < 0) return r;
    int64_t id = 0;
    const char* runner = nullptr;
    int r = sd_bus_message_read(m, "xs", &id, &runner);
    if (r < 0) return r;
    auto expires = manager_of(userdata)->heartbeat(id, runner);
    if (!expires) return reply_error(error, expires.error());
    return sd_bus_reply_method_return(m, "x", *expires);
  });
}

int method_complete(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    if (int r = daemon::refuse_unless(m, error, runner_or_operators(userdata)); r < 0) return r;
    int64_t id = 0;
    const char *runner = nullptr, *result_path = nullptr;
    int r = sd_bus_message_read(m, "xss", &id, &runner, &result_path);
    if (r < 0) return r;
    auto job = manager_of(userdata)->complete(id, runner, result_path);
    if (!job) return reply_error(error, job.error());
    return sd_bus_reply_method_return(m, "");
  });
}

// Complete with the result set itself, kept in the queue: how a result
// reaches a reporterd on another box.
int method_complete_with_result(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    if (int r = daemon::refuse_unless(m, error, runner_or_operators(userdata)); r < 0) return r;
    int64_t id = 0;
    const char *runner = nullptr, *result_path = nullptr, *result = nullptr;
    int r = sd_bus_message_read(m, "xsss", &id, &runner, &result_path, &result);
    if (r < 0) return r;
    auto job = manager_of(userdata)->complete(id, runner, result_path, result);
    if (!job) return reply_error(error, job.error());
    return sd_bus_reply_method_return(m, "");
  });
}

int method_get_result(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    int64_t id = 0;
    int r = sd_bus_message_read(m, "x", &id);
    if (r < 0) return r;
    auto result = manager_of(userdata)->result(id);
    if (!result) return reply_error(error, result.error());
    return sd_bus_reply_method_return(m, "s", result->c_str());
  });
}

int method_fail(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    if (int r = daemon::refuse_unless(m, error, runner_or_operators(userdata)); r < 0) return r;
    int64_t id = 0;
    const char *runner = nullptr, *reason = nullptr;
    int r = sd_bus_message_read(m, "xss", &id, &runner, &reason);
    if (r < 0) return r;
    auto job = manager_of(userdata)->fail(id, runner, reason);
    if (!job) return reply_error(error, job.error());
    return sd_bus_reply_method_return(m, "");
  });
}

int method_cancel(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    int64_t id = 0;
    const char* reason = nullptr;
    int r = sd_bus_message_read(m, "xs", &id, &reason);
    if (r < 0) return r;
    // Operators cancel anything. runnerd's user may cancel only a running
    // job: that is how a Runner1.CancelCurrent it carried out is recorded.
    const auto& access = manager_of(userdata)->config().access;
    auto job_now = manager_of(userdata)->get(id);
    const bool running = job_now && job_now->state == model::JobState::running;
    bus::Allowed who = daemon::operators_and(access, running ? std::vector<std::string>{access.runner_user}
                                                             : std::vector<std::string>{});
    if ((r = daemon::refuse_unless(m, error, who)) < 0) return r;
    auto job = manager_of(userdata)->cancel(id, reason);
    if (!job) return reply_error(error, job.error());
    return sd_bus_reply_method_return(m, "");
  });
}

int method_get(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    int64_t id = 0;
    int r = sd_bus_message_read(m, "x", &id);
    if (r < 0) return r;
    auto job = manager_of(userdata)->get(id);
    if (!job) return reply_error(error, job.error());
    sd_bus_message* raw = nullptr;
    if ((r = sd_bus_message_new_method_return(m, &raw)) < 0) return r;
    bus::MessagePtr reply(raw);
    if ((r = append_job(raw, *job)) < 0) return r;
    return sd_bus_send(nullptr, raw, nullptr);
  });
}

// Answers with jobs as aa{sv}.
int reply_jobs(sd_bus_message* m, const std::vector<Job>& jobs) {
  sd_bus_message* raw = nullptr;
  int r = sd_bus_message_new_method_return(m, &raw);
  if (r < 0) return r;
  bus::MessagePtr reply(raw);
  if ((r = sd_bus_message_open_container(raw, 'a', "a{sv}")) < 0) return r;
  for (const Job& job : jobs)
    if ((r = append_job(raw, job)) < 0) return r;
  if ((r = sd_bus_message_close_container(raw)) < 0) return r;
  return sd_bus_send(nullptr, raw, nullptr);
}

int method_list(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    const char* state_name = nullptr;
    uint32_t limit = 0;
    int r = sd_bus_message_read(m, "su", &state_name, &limit);
    if (r < 0) return r;
    std::optional<model::JobState> state;
    if (*state_name) {
      state = model::job_state_from_string(state_name);
      if (!state)
        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                 "unknown job state '%s' (queued, running, done, failed, cancelled or \"\")",
                                 state_name);
    }
    auto jobs = manager_of(userdata)->list(state, limit);
    if (!jobs) return reply_error(error, jobs.error());
    return reply_jobs(m, *jobs);
  });
}

int method_list_after(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    int64_t after = 0;
    uint32_t limit = 0;
    int r = sd_bus_message_read(m, "xu", &after, &limit);
    if (r < 0) return r;
    if (limit == 0 || limit > 1000)
      return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "limit must be 1 to 1000, got %u", limit);
    auto jobs = manager_of(userdata)->list_after(after, limit);
    if (!jobs) return reply_error(error, jobs.error());
    return reply_jobs(m, *jobs);
  });
}

int method_record_pull_request(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    if (int r = daemon::refuse_unless(m, error, webhook_or_operators(userdata)); r < 0) return r;
    auto dict = bus::read_dict(m);
    if (!dict) return reply_error(error, dict.error());
    auto pr = model::pull_request_from_json(*dict);
    if (!pr) return reply_error(error, pr.error());
    auto saved = manager_of(userdata)->record_pull_request(*pr);
    if (!saved) return reply_error(error, saved.error());
    return sd_bus_reply_method_return(m, "b", saved->changed);
  });
}

int method_get_pull_request(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    const char* repository = nullptr;
    int64_t number = 0;
    int r = sd_bus_message_read(m, "sx", &repository, &number);
    if (r < 0) return r;
    auto pr = manager_of(userdata)->get_pull_request(repository, number);
    if (!pr) return reply_error(error, pr.error());
    sd_bus_message* raw = nullptr;
    if ((r = sd_bus_message_new_method_return(m, &raw)) < 0) return r;
    bus::MessagePtr reply(raw);
    if ((r = bus::append_dict(raw, model::to_json(*pr))) < 0) return r;
    return sd_bus_send(nullptr, raw, nullptr);
  });
}

// Group methods (docs/bus-api.md, "Job groups").

Status check_group_keys(const nlohmann::json& dict) {
  static const nlohmann::json known = model::to_json(model::GroupSpec{});
  for (const auto& [key, value] : dict.items()) {
    (void)value;
    if (!known.contains(key)) return make_error(Errc::invalid_argument, "unknown group field '" + key + "'");
  }
  return {};
}

int reply_groups(sd_bus_message* m, const std::vector<model::JobGroup>& groups) {
  sd_bus_message* raw = nullptr;
  int r = sd_bus_message_new_method_return(m, &raw);
  if (r < 0) return r;
  bus::MessagePtr reply(raw);
  if ((r = sd_bus_message_open_container(raw, 'a', "a{sv}")) < 0) return r;
  for (const auto& g : groups)
    if ((r = bus::append_dict(raw, model::to_json(g))) < 0) return r;
  if ((r = sd_bus_message_close_container(raw)) < 0) return r;
  return sd_bus_send(nullptr, raw, nullptr);
}

// EnqueueGroup's and PlanGroup's arguments: the group and its specs, read
// and checked alike. Returns < 0 (a bus error set) or 0.
int read_group_call(sd_bus_message* m, void* userdata, sd_bus_error* error, bool reporter,
                    std::optional<model::GroupSpec>& group, std::vector<model::JobSpec>& specs) {
  auto gdict = bus::read_dict(m);
  if (!gdict) return reply_error(error, gdict.error());
  if (auto st = check_group_keys(*gdict); !st) return reply_error(error, st.error());
  auto g = model::group_spec_from_json(*gdict);
  if (!g) return reply_error(error, g.error());
  group = std::move(*g);
  int r = sd_bus_message_enter_container(m, 'a', "a{sv}");
  if (r < 0) return r;
  while ((r = sd_bus_message_at_end(m, 0)) == 0) {
    auto dict = bus::read_dict(m);
    if (!dict) return reply_error(error, dict.error());
    if (auto st = check_spec_keys(*dict); !st) return reply_error(error, st.error());
    auto spec = model::job_spec_from_json(*dict);
    if (!spec) return reply_error(error, spec.error().with_context("job " + std::to_string(specs.size() + 1)));
    if (reporter)
      if (auto st = reporter_may_enqueue(*manager_of(userdata), *spec); !st) return reply_error(error, st.error());
    specs.push_back(std::move(*spec));
  }
  if (r < 0) return r;
  if ((r = sd_bus_message_exit_container(m)) < 0) return r;
  return 0;
}

int method_enqueue_group(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    const auto& a = manager_of(userdata)->config().access;
    if (int r = daemon::refuse_unless(m, error, daemon::operators_and(a, {a.reporter_user, a.runner_user})); r < 0)
      return r;
    // Not an operator: reporterd (bisections) or runnerd (a suite's shards).
    auto caller = bus::sender_of(m);
    const bool operator_call = caller && bus::may_call(*caller, daemon::operators_and(a));
    const bool runner = !operator_call && caller && bus::may_call(*caller, runner_or_operators(userdata));
    const bool reporter = !operator_call && !runner;
    std::optional<model::GroupSpec> group;
    std::vector<model::JobSpec> specs;
    if (int r = read_group_call(m, userdata, error, reporter, group, specs); r < 0) return r;
    if (reporter && group->kind != model::GroupKind::bisect)
      return reply_error(error, make_error(Errc::permission_denied, "Access denied: benchbox-reporterd may only make bisection groups"));
    if (runner && group->kind != model::GroupKind::shards)
      return reply_error(error, make_error(Errc::permission_denied,
                                           "Access denied: benchbox-runnerd may only queue a suite's shards"));
    auto result = manager_of(userdata)->enqueue_group(*group, std::move(specs));
    if (!result) return reply_error(error, result.error());
    sd_bus_message* raw = nullptr;
    int r = sd_bus_message_new_method_return(m, &raw);
    if (r < 0) return r;
    bus::MessagePtr reply(raw);
    if ((r = sd_bus_message_append(raw, "x", result->group.id)) < 0) return r;
    if ((r = sd_bus_message_open_container(raw, 'a', "(xb)")) < 0) return r;
    for (const auto& j : result->jobs)
      if ((r = sd_bus_message_append(raw, "(xb)", j.job.id, static_cast<int>(j.created))) < 0) return r;
    if ((r = sd_bus_message_close_container(raw)) < 0) return r;
    return sd_bus_send(nullptr, raw, nullptr);
  });
}

// What EnqueueGroup would do with these arguments, per spec: the job that
// already has its work and that job's state, or (0, "new"). Nothing is
// stored (QueueStore::plan_group). For operators: a backfill's dry run.
int method_plan_group(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    const auto& a = manager_of(userdata)->config().access;
    if (int r = daemon::refuse_unless(m, error, daemon::operators_and(a)); r < 0) return r;
    std::optional<model::GroupSpec> group;
    std::vector<model::JobSpec> specs;
    if (int r = read_group_call(m, userdata, error, false, group, specs); r < 0) return r;
    auto result = manager_of(userdata)->plan_group(*group, std::move(specs));
    if (!result) return reply_error(error, result.error());
    sd_bus_message* raw = nullptr;
    int r = sd_bus_message_new_method_return(m, &raw);
    if (r < 0) return r;
    bus::MessagePtr reply(raw);
    if ((r = sd_bus_message_open_container(raw, 'a', "(xs)")) < 0) return r;
    for (const auto& j : result->jobs)
      if ((r = sd_bus_message_append(raw, "(xs)", j.job.id, j.created ? "new" : model::to_string(j.job.state))) < 0)
        return r;
    if ((r = sd_bus_message_close_container(raw)) < 0) return r;
    return sd_bus_send(nullptr, raw, nullptr);
  });
}

int method_get_group(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    int64_t id = 0;
    int r = sd_bus_message_read(m, "x", &id);
    if (r < 0) return r;
    auto group = manager_of(userdata)->get_group(id);
    if (!group) return reply_error(error, group.error());
    sd_bus_message* raw = nullptr;
    if ((r = sd_bus_message_new_method_return(m, &raw)) < 0) return r;
    bus::MessagePtr reply(raw);
    if ((r = bus::append_dict(raw, model::to_json(*group))) < 0) return r;
    return sd_bus_send(nullptr, raw, nullptr);
  });
}

int method_list_groups(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    uint32_t limit = 0;
    int r = sd_bus_message_read(m, "u", &limit);
    if (r < 0) return r;
    auto groups = manager_of(userdata)->list_groups(limit);
    if (!groups) return reply_error(error, groups.error());
    return reply_groups(m, *groups);
  });
}

int method_group_jobs(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    int64_t id = 0;
    int r = sd_bus_message_read(m, "x", &id);
    if (r < 0) return r;
    auto jobs = manager_of(userdata)->group_jobs(id);
    if (!jobs) return reply_error(error, jobs.error());
    return reply_jobs(m, *jobs);
  });
}

int method_cancel_group(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    if (int r = daemon::refuse_unless(m, error, daemon::operators_and(manager_of(userdata)->config().access, {}));
        r < 0)
      return r;
    int64_t id = 0;
    const char* reason = nullptr;
    int r = sd_bus_message_read(m, "xs", &id, &reason);
    if (r < 0) return r;
    auto jobs = manager_of(userdata)->cancel_group(id, reason);
    if (!jobs) return reply_error(error, jobs.error());
    return sd_bus_reply_method_return(m, "u", static_cast<uint32_t>(jobs->size()));
  });
}

int method_set_group_step(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    if (int r = daemon::refuse_unless(m, error, reporter_or_operators(userdata)); r < 0) return r;
    int64_t id = 0;
    const char* step = nullptr;
    int r = sd_bus_message_read(m, "xs", &id, &step);
    if (r < 0) return r;
    if (std::strlen(step) > 500)
      return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "a group's step is at most 500 bytes");
    if (auto st = manager_of(userdata)->set_group_step(id, step); !st) return reply_error(error, st.error());
    return sd_bus_reply_method_return(m, "");
  });
}

int get_version(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void*,
                sd_bus_error*) {
  return sd_bus_message_append(reply, "s", bb::version());
}

int get_count(sd_bus*, const char*, const char*, const char* property, sd_bus_message* reply,
              void* userdata, sd_bus_error*) {
  const store::QueueCounts& c = manager_of(userdata)->counts();
  uint32_t n = 0;
  if (!std::strcmp(property, "Queued")) n = c.queued;
  else if (!std::strcmp(property, "Running")) n = c.running;
  else if (!std::strcmp(property, "Done")) n = c.done;
  else if (!std::strcmp(property, "Failed")) n = c.failed;
  else if (!std::strcmp(property, "Cancelled")) n = c.cancelled;
  return sd_bus_message_append(reply, "u", n);
}

const sd_bus_vtable queue_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Version", "s", get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Queued", "u", get_count, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("Running", "u", get_count, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("Done", "u", get_count, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("Failed", "u", get_count, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("Cancelled", "u", get_count, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_METHOD_WITH_NAMES("Enqueue", "a{sv}", SD_BUS_PARAM(spec), "xb", SD_BUS_PARAM(id) SD_BUS_PARAM(created),
                             method_enqueue, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Claim", "su", SD_BUS_PARAM(runner) SD_BUS_PARAM(lease_seconds), "xa{sv}",
                             SD_BUS_PARAM(id) SD_BUS_PARAM(job), method_claim, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Heartbeat", "xs", SD_BUS_PARAM(id) SD_BUS_PARAM(runner), "x",
                             SD_BUS_PARAM(lease_expires), method_heartbeat, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Complete", "xss", SD_BUS_PARAM(id) SD_BUS_PARAM(runner) SD_BUS_PARAM(result_path),
                             "", , method_complete, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("CompleteWithResult", "xsss",
                             SD_BUS_PARAM(id) SD_BUS_PARAM(runner) SD_BUS_PARAM(result_path) SD_BUS_PARAM(result), "", ,
                             method_complete_with_result, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("GetResult", "x", SD_BUS_PARAM(id), "s", SD_BUS_PARAM(result), method_get_result,
                             SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Fail", "xss", SD_BUS_PARAM(id) SD_BUS_PARAM(runner) SD_BUS_PARAM(reason), "", ,
                             method_fail, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Cancel", "xs", SD_BUS_PARAM(id) SD_BUS_PARAM(reason), "", , method_cancel,
                             SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Get", "x", SD_BUS_PARAM(id), "a{sv}", SD_BUS_PARAM(job), method_get,
                             SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("List", "su", SD_BUS_PARAM(state) SD_BUS_PARAM(limit), "aa{sv}", SD_BUS_PARAM(jobs),
                             method_list, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("ListAfter", "xu", SD_BUS_PARAM(after_id) SD_BUS_PARAM(limit), "aa{sv}",
                             SD_BUS_PARAM(jobs), method_list_after, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("RecordPullRequest", "a{sv}", SD_BUS_PARAM(pr), "b", SD_BUS_PARAM(recorded),
                             method_record_pull_request, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("GetPullRequest", "sx", SD_BUS_PARAM(repository) SD_BUS_PARAM(number), "a{sv}",
                             SD_BUS_PARAM(pr), method_get_pull_request, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("EnqueueGroup", "a{sv}aa{sv}", SD_BUS_PARAM(group) SD_BUS_PARAM(jobs), "xa(xb)",
                             SD_BUS_PARAM(group_id) SD_BUS_PARAM(jobs), method_enqueue_group,
                             SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("PlanGroup", "a{sv}aa{sv}", SD_BUS_PARAM(group) SD_BUS_PARAM(jobs), "a(xs)",
                             SD_BUS_PARAM(jobs), method_plan_group, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("GetGroup", "x", SD_BUS_PARAM(id), "a{sv}", SD_BUS_PARAM(group), method_get_group,
                             SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("ListGroups", "u", SD_BUS_PARAM(limit), "aa{sv}", SD_BUS_PARAM(groups),
                             method_list_groups, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("GroupJobs", "x", SD_BUS_PARAM(id), "aa{sv}", SD_BUS_PARAM(jobs), method_group_jobs,
                             SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("SetGroupStep", "xs", SD_BUS_PARAM(id) SD_BUS_PARAM(step), "", , method_set_group_step,
                             SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("CancelGroup", "xs", SD_BUS_PARAM(id) SD_BUS_PARAM(reason), "u",
                             SD_BUS_PARAM(cancelled), method_cancel_group, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_SIGNAL_WITH_NAMES("JobQueued", "xs", SD_BUS_PARAM(id) SD_BUS_PARAM(repository), 0),
    SD_BUS_SIGNAL_WITH_NAMES("JobStarted", "xs", SD_BUS_PARAM(id) SD_BUS_PARAM(runner), 0),
    SD_BUS_SIGNAL_WITH_NAMES("JobFinished", "xss", SD_BUS_PARAM(id) SD_BUS_PARAM(state) SD_BUS_PARAM(result_path),
                             0),
    SD_BUS_VTABLE_END};

// ---- /org/benchbox/Queue1/job/<id> ----

// The id in a job object path, or 0 if the path is not one.
int64_t job_id_from_path(const char* path) {
  size_t prefix = std::strlen(bus::kQueueJobPathPrefix);
  if (std::strncmp(path, bus::kQueueJobPathPrefix, prefix) != 0 || path[prefix] != '/') return 0;
  const char* digits = path + prefix + 1;
  if (!*digits || *digits == '0') return 0;
  char* end = nullptr;
  errno = 0;
  long long id = std::strtoll(digits, &end, 10);
  if (errno || *end || id <= 0) return 0;
  return id;
}

int find_job(sd_bus*, const char* path, const char*, void* userdata, void** found, sd_bus_error* error) {
  return guarded(error, [&] {
    int64_t id = job_id_from_path(path);
    if (id <= 0) return 0;
    if (!manager_of(userdata)->get(id)) return 0;
    *found = userdata;
    return 1;
  });
}

int enumerate_jobs(sd_bus*, const char*, void* userdata, char*** nodes, sd_bus_error* error) {
  return guarded(error, [&] {
    auto ids = manager_of(userdata)->job_ids();
    if (!ids) return reply_error(error, ids.error());
    char** list = static_cast<char**>(std::calloc(ids->size() + 1, sizeof(char*)));
    if (!list) return -ENOMEM;
    size_t n = 0;
    for (int64_t id : *ids) {
      std::string path = std::string(bus::kQueueJobPathPrefix) + "/" + std::to_string(id);
      list[n] = strdup(path.c_str());
      if (!list[n]) break;
      ++n;
    }
    *nodes = list;  // sd-bus frees the strv
    return 0;
  });
}

int get_job_property(sd_bus*, const char* path, const char*, const char* property, sd_bus_message* reply,
                     void* userdata, sd_bus_error* error) {
  return guarded(error, [&] {
    auto job = manager_of(userdata)->get(job_id_from_path(path));
    if (!job) return reply_error(error, job.error());
    if (!std::strcmp(property, "Id")) return sd_bus_message_append(reply, "x", job->id);
    std::string value;
    if (!std::strcmp(property, "State")) value = model::to_string(job->state);
    else if (!std::strcmp(property, "Repository")) value = job->spec.repository;
    else if (!std::strcmp(property, "Kind")) value = model::to_string(job->spec.kind);
    else if (!std::strcmp(property, "HeadSha")) value = job->spec.head_sha;
    else if (!std::strcmp(property, "Error")) value = job->error;
    else if (!std::strcmp(property, "ResultPath")) value = job->result_path;
    return sd_bus_message_append(reply, "s", value.c_str());
  });
}

const sd_bus_vtable job_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Id", "x", get_job_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("State", "s", get_job_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("Repository", "s", get_job_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Kind", "s", get_job_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("HeadSha", "s", get_job_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Error", "s", get_job_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("ResultPath", "s", get_job_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_VTABLE_END};

}  // namespace

Result<std::vector<bus::SlotPtr>> register_queue_objects(sd_bus* bus, Manager* manager) {
  std::vector<bus::SlotPtr> slots;
  sd_bus_slot* slot = nullptr;
  int r = sd_bus_add_object_vtable(bus, &slot, bus::kQueuePath, bus::kQueueInterface, queue_vtable, manager);
  if (r < 0) return errno_error("register " + std::string(bus::kQueuePath), -r);
  slots.emplace_back(slot);
  r = sd_bus_add_fallback_vtable(bus, &slot, bus::kQueueJobPathPrefix, bus::kQueueJobInterface, job_vtable,
                                 find_job, manager);
  if (r < 0) return errno_error("register job objects", -r);
  slots.emplace_back(slot);
  r = sd_bus_add_node_enumerator(bus, &slot, bus::kQueueJobPathPrefix, enumerate_jobs, manager);
  if (r < 0) return errno_error("register job enumerator", -r);
  slots.emplace_back(slot);
  return slots;
}

}  // namespace bb::queued
