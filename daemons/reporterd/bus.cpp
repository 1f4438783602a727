// org.benchbox.Reporter1: the one vtable of benchbox-reporterd. Report and
// GetBisection read and are for anyone; Ingest rewrites history and Bisect
// queues jobs, and are for operators, checked
// here as well as by the D-Bus policy (policy/org.benchbox.Reporter1.conf).
#include <cstddef>
#include <exception>

#include "bus.h"
#include "bus/errors.h"
#include "bus/names.h"
#include "daemon/caller.h"
#include "util/version.h"

namespace bb::reporterd {

namespace {

int method_report(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  auto* mgr = static_cast<Manager*>(userdata);
  return bus::guarded(error, [&] {
    int64_t id = 0;
    int r = sd_bus_message_read(m, "x", &id);
    if (r < 0) return r;
    if (id <= 0) return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS, "job id must be positive");
    auto rep = mgr->stored_report(id);
    if (!rep) return bus::set_error(error, rep.error());
    return sd_bus_reply_method_return(m, "ss", rep->first.c_str(), rep->second.c_str());
  });
}

int method_group_report(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  auto* mgr = static_cast<Manager*>(userdata);
  return bus::guarded(error, [&] {
    int64_t id = 0;
    int r = sd_bus_message_read(m, "x", &id);
    if (r < 0) return r;
    if (id <= 0) return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS, "job group id must be positive");
    auto rep = mgr->stored_group_report(id);
    if (!rep) return bus::set_error(error, rep.error());
    return sd_bus_reply_method_return(m, "ss", rep->first.c_str(), rep->second.c_str());
  });
}

int method_ingest(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  auto* mgr = static_cast<Manager*>(userdata);
  return bus::guarded(error, [&] {
    if (int r = daemon::refuse_unless(m, error, daemon::operators_and(mgr->access())); r < 0) return r;
    int64_t id = 0;
    int r = sd_bus_message_read(m, "x", &id);
    if (r < 0) return r;
    if (id <= 0) return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS, "job id must be positive");
    if (auto st = mgr->reingest(id); !st) return bus::set_error(error, st.error());
    return sd_bus_reply_method_return(m, "");
  });
}

int method_bisect(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  auto* mgr = static_cast<Manager*>(userdata);
  return bus::guarded(error, [&] {
    if (int r = daemon::refuse_unless(m, error, daemon::operators_and(mgr->access())); r < 0) return r;
    const char *repository = nullptr, *clone_url = nullptr, *ref = nullptr, *good = nullptr, *bad = nullptr;
    int r = sd_bus_message_read(m, "sssss", &repository, &clone_url, &ref, &good, &bad);
    if (r < 0) return r;
    char** keys = nullptr;
    if ((r = sd_bus_message_read_strv(m, &keys)) < 0) return r;
    std::vector<std::string> benchmarks;
    for (char** k = keys; k && *k; ++k) {
      benchmarks.emplace_back(*k);
      free(*k);
    }
    free(keys);
    auto id = mgr->bisect(repository, clone_url, ref, good, bad, benchmarks);
    if (!id) return bus::set_error(error, id.error());
    return sd_bus_reply_method_return(m, "x", *id);
  });
}

int method_get_bisection(sd_bus_message* m, void* userdata, sd_bus_error* error) {
  auto* mgr = static_cast<Manager*>(userdata);
  return bus::guarded(error, [&] {
    int64_t id = 0;
    int r = sd_bus_message_read(m, "x", &id);
    if (r < 0) return r;
    auto text = mgr->bisection_json(id);
    if (!text) return bus::set_error(error, text.error());
    return sd_bus_reply_method_return(m, "s", text->c_str());
  });
}

int property_jobs_reported(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply,
                           void* userdata, sd_bus_error*) {
  return sd_bus_message_append(reply, "t", static_cast<Manager*>(userdata)->jobs_reported());
}

int property_history_bytes(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void* userdata,
                           sd_bus_error*) {
  return sd_bus_message_append(reply, "t", static_cast<Manager*>(userdata)->history_bytes());
}

int property_site_bytes(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void* userdata,
                        sd_bus_error*) {
  return sd_bus_message_append(reply, "t", static_cast<Manager*>(userdata)->site_bytes());
}

int property_outbox_pending(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void* userdata,
                            sd_bus_error*) {
  return sd_bus_message_append(reply, "u", static_cast<Manager*>(userdata)->outbox_pending());
}

int property_box_health(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void* userdata,
                        sd_bus_error* error) {
  return bus::guarded(error, [&] {
    return sd_bus_message_append(reply, "s", static_cast<Manager*>(userdata)->box_health().c_str());
  });
}

int property_version(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void*,
                     sd_bus_error*) {
  return sd_bus_message_append(reply, "s", bb::version());
}

const sd_bus_vtable kReporterVtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Version", "s", property_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("JobsReported", "t", property_jobs_reported, 0,
                    SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    // Read when asked (no change signals): sizes change with every job, the
    // outbox with GitHub.
    SD_BUS_PROPERTY("HistoryBytes", "t", property_history_bytes, 0, 0),
    SD_BUS_PROPERTY("SiteBytes", "t", property_site_bytes, 0, 0),
    SD_BUS_PROPERTY("OutboxPending", "u", property_outbox_pending, 0, 0),
    // The canary's verdict on this box (docs/canary.md), read when asked.
    SD_BUS_PROPERTY("BoxHealth", "s", property_box_health, 0, 0),
    SD_BUS_METHOD_WITH_ARGS("Report", SD_BUS_ARGS("x", job_id), SD_BUS_RESULT("s", markdown, "s", json_path),
                            method_report, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("GroupReport", SD_BUS_ARGS("x", group_id), SD_BUS_RESULT("s", markdown, "s", json_path),
                            method_group_report, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("Ingest", SD_BUS_ARGS("x", job_id), SD_BUS_NO_RESULT, method_ingest,
                            SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("Bisect",
                            SD_BUS_ARGS("s", repository, "s", clone_url, "s", ref, "s", good, "s", bad, "as",
                                        benchmarks),
                            SD_BUS_RESULT("x", bisection_id), method_bisect, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("GetBisection", SD_BUS_ARGS("x", bisection_id), SD_BUS_RESULT("s", json),
                            method_get_bisection, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_SIGNAL_WITH_ARGS("ReportReady", SD_BUS_ARGS("x", job_id, "s", verdict, "s", markdown_path), 0),
    SD_BUS_VTABLE_END,
};

}  // namespace

Result<bus::SlotPtr> register_reporter_object(sd_bus* bus, Manager* manager) {
  sd_bus_slot* slot = nullptr;
  int r = sd_bus_add_object_vtable(bus, &slot, bus::kReporterPath, bus::kReporterInterface,
                                   kReporterVtable, manager);
  if (r < 0) return errno_error("register Reporter1 object", -r);
  return bus::SlotPtr(slot);
}

}  // namespace bb::reporterd
