// benchboxctl jobs / enqueue / cancel: the queue from the command line.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bus/dict.h"
#include "bus/names.h"
#include "bus_client.h"
#include "commands.h"
#include "model/job.h"
#include "model/job_group.h"
#include "util/clock.h"
#include "util/text.h"

namespace bb::cli {

namespace {

Result<bus::MessagePtr> queue_call(BusClient& c, const char* member) {
  return c.new_call(bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, member);
}

void print_job_line(const model::Job& j) {
  std::string commit = j.spec.head_sha.empty() ? j.spec.ref : short_sha(j.spec.head_sha);
  std::string what = j.spec.kind == model::JobKind::pull_request
                         ? "PR #" + std::to_string(j.spec.pr_number)
                         : std::string(model::to_string(j.spec.kind));
  std::string group = j.spec.group_id ? std::to_string(j.spec.group_id) : "-";
  std::printf("%6lld  %-9s  %-12s  %5s  %-24s  %-12s  %s\n", static_cast<long long>(j.id),
              model::to_string(j.state), what.c_str(), group.c_str(), j.spec.repository.c_str(), commit.c_str(),
              j.error.c_str());
}

// Prints a reply's aa{sv}, one line per entry (`parse` then `print`), or as
// JSON.
template <class Parse, class Print>
int print_dicts(sd_bus_message* reply, bool json, Parse parse, Print print) {
  if (sd_bus_message_enter_container(reply, 'a', "a{sv}") < 0) return fail("bad reply: no list");
  nlohmann::json all = nlohmann::json::array();
  while (sd_bus_message_at_end(reply, 0) == 0) {
    auto d = bus::read_dict(reply);
    if (!d) return fail(d.error().message);
    auto item = parse(*d);
    if (!item) return fail(item.error().message);
    if (json) all.push_back(*d);
    else print(*item);
  }
  if (json) std::cout << all.dump(2) << "\n";
  return 0;
}

// Prints a reply's aa{sv} of jobs, as a table or as JSON.
int print_jobs(sd_bus_message* reply, bool json) {
  if (!json)
    std::printf("%6s  %-9s  %-12s  %5s  %-24s  %-12s  %s\n", "ID", "STATE", "KIND", "GROUP", "REPOSITORY", "COMMIT",
                "ERROR");
  return print_dicts(reply, json, model::job_from_json, print_job_line);
}

int jobs_list(BusClient& c, const std::string& state, unsigned limit, bool json) {
  auto m = queue_call(c, "List");
  if (!m) return fail(m.error().message);
  sd_bus_message_append(m->get(), "su", state.c_str(), limit);
  auto reply = c.call(m->get());
  if (!reply) return fail(reply.error().message);
  return print_jobs(reply->get(), json);
}

int jobs_show(BusClient& c, int64_t id) {
  auto m = queue_call(c, "Get");
  if (!m) return fail(m.error().message);
  sd_bus_message_append(m->get(), "x", id);
  auto reply = c.call(m->get());
  if (!reply) return fail(reply.error().message);
  auto d = bus::read_dict(reply->get());
  if (!d) return fail(d.error().message);
  std::cout << d->dump(2) << "\n";
  return 0;
}

void print_group_line(const model::JobGroup& g) {
  std::string progress = std::to_string(g.done + g.failed + g.cancelled) + "/" + std::to_string(g.total());
  std::printf("%5lld  %-8s  %-24s  %9s  %6u  %7u  %6u  %9u  %s%s%s\n", static_cast<long long>(g.id),
              model::to_string(g.spec.kind), g.spec.repository.c_str(), progress.c_str(), g.queued, g.running,
              g.failed, g.cancelled, g.spec.description.c_str(), g.step.empty() ? "" : ": ", g.step.c_str());
}

const char* kGroupHeader = "%5s  %-8s  %-24s  %9s  %6s  %7s  %6s  %9s  %s\n";

int jobs_groups(BusClient& c, bool json) {
  auto m = queue_call(c, "ListGroups");
  if (!m) return fail(m.error().message);
  sd_bus_message_append(m->get(), "u", 50u);
  auto reply = c.call(m->get());
  if (!reply) return fail(reply.error().message);
  if (!json)
    std::printf(kGroupHeader, "GROUP", "KIND", "REPOSITORY", "FINISHED", "QUEUED", "RUNNING", "FAILED", "CANCELLED",
                "WHAT");
  return print_dicts(reply->get(), json, model::job_group_from_json, print_group_line);
}

int jobs_group(BusClient& c, int64_t id, bool json) {
  auto m = queue_call(c, "GetGroup");
  if (!m) return fail(m.error().message);
  sd_bus_message_append(m->get(), "x", id);
  auto reply = c.call(m->get());
  if (!reply) return fail(reply.error().message);
  auto d = bus::read_dict(reply->get());
  if (!d) return fail(d.error().message);
  auto g = model::job_group_from_json(*d);
  if (!g) return fail(g.error().message);
  auto jm = queue_call(c, "GroupJobs");
  if (!jm) return fail(jm.error().message);
  sd_bus_message_append(jm->get(), "x", id);
  auto jobs = c.call(jm->get());
  if (!jobs) return fail(jobs.error().message);
  if (json) {
    std::cout << d->dump(2) << "\n";
  } else {
    std::printf(kGroupHeader, "GROUP", "KIND", "REPOSITORY", "FINISHED", "QUEUED", "RUNNING", "FAILED", "CANCELLED",
                "WHAT");
    print_group_line(*g);
    std::printf("\n");
  }
  return print_jobs(jobs->get(), json);
}

bool parse_id(const std::string& s, int64_t& out) {
  try {
    size_t used = 0;
    out = std::stoll(s, &used);
    return used == s.size() && out > 0;
  } catch (...) {
    return false;
  }
}

}  // namespace

int cmd_jobs(const Args& args) {
  const char* usage =
      "usage: benchboxctl jobs [list [--state STATE] [--limit N] [--json] | show ID | groups [--json] | "
      "group ID [--json]]";
  std::string sub = args.empty() ? "list" : args[0];
  auto client = BusClient::connect();
  if (!client) return fail(client.error().message);
  if (sub == "show") {
    int64_t id = 0;
    if (args.size() != 2 || !parse_id(args[1], id)) return fail(usage);
    return jobs_show(*client, id);
  }
  if (sub == "groups") {
    if (args.size() > 2 || (args.size() == 2 && args[1] != "--json")) return fail(usage);
    return jobs_groups(*client, args.size() == 2);
  }
  if (sub == "group") {
    int64_t id = 0;
    if (args.size() < 2 || args.size() > 3 || !parse_id(args[1], id) || (args.size() == 3 && args[2] != "--json"))
      return fail(usage);
    return jobs_group(*client, id, args.size() == 3);
  }
  if (sub != "list") return fail(usage);
  std::string state;
  unsigned limit = 50;
  bool json = false;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--json") json = true;
    else if (args[i] == "--state" && i + 1 < args.size()) state = args[++i];
    else if (args[i] == "--limit" && i + 1 < args.size()) limit = static_cast<unsigned>(std::stoul(args[++i]));
    else return fail(usage);
  }
  if (!state.empty() && !model::job_state_from_string(state))
    return fail("unknown state '" + state + "' (queued, running, done, failed, cancelled)");
  return jobs_list(*client, state, limit, json);
}

// benchboxctl enqueue --repository O/R --clone-url URL (--commit SHA | --ref REF)
//   [--suite S] [--priority N]
int cmd_enqueue(const Args& args) {
  const char* usage =
      "usage: benchboxctl enqueue --repository OWNER/NAME --clone-url URL (--commit SHA | --ref REF) "
      "[--suite NAME] [--priority N]";
  model::JobSpec spec;
  spec.kind = model::JobKind::manual;
  spec.requested_by = local_user();
  for (size_t i = 0; i < args.size(); ++i) {
    if (i + 1 >= args.size()) return fail(usage);
    const std::string& k = args[i];
    const std::string& v = args[++i];
    if (k == "--repository") spec.repository = v;
    else if (k == "--clone-url") spec.clone_url = v;
    else if (k == "--commit") spec.head_sha = v;
    else if (k == "--ref") spec.ref = v;
    else if (k == "--suite") spec.suite = v;
    else if (k == "--priority") spec.priority = std::stoll(v);
    else return fail(usage);
  }
  if (auto st = model::validate(spec); !st) return fail(st.error().message);
  auto client = BusClient::connect();
  if (!client) return fail(client.error().message);
  auto m = queue_call(*client, "Enqueue");
  if (!m) return fail(m.error().message);
  if (bus::append_dict(m->get(), model::to_json(spec)) < 0) return fail("cannot build Enqueue call");
  auto reply = client->call(m->get());
  if (!reply) return fail(reply.error().message);
  int64_t id = 0;
  int created = 0;
  if (sd_bus_message_read(reply->get(), "xb", &id, &created) < 0) return fail("bad Enqueue reply");
  std::printf("job %lld %s\n", static_cast<long long>(id), created ? "queued" : "already queued");
  return 0;
}

int cmd_cancel(const Args& args) {
  const char* usage = "usage: benchboxctl cancel ID [REASON] | cancel --group ID [REASON]";
  const bool group = !args.empty() && args[0] == "--group";
  const size_t at = group ? 1 : 0;
  int64_t id = 0;
  if (args.size() <= at || args.size() > at + 2 || !parse_id(args[at], id)) return fail(usage);
  auto client = BusClient::connect();
  if (!client) return fail(client.error().message);
  auto m = queue_call(*client, group ? "CancelGroup" : "Cancel");
  if (!m) return fail(m.error().message);
  std::string reason = args.size() == at + 2 ? args[at + 1] : "cancelled with benchboxctl by " + local_user();
  sd_bus_message_append(m->get(), "xs", id, reason.c_str());
  auto reply = client->call(m->get());
  if (!reply) return fail(reply.error().message);
  if (!group) {
    std::printf("job %lld cancelled\n", static_cast<long long>(id));
    return 0;
  }
  uint32_t n = 0;
  if (sd_bus_message_read(reply->get(), "u", &n) < 0) return fail("bad CancelGroup reply");
  std::printf("group %lld: %u jobs cancelled\n", static_cast<long long>(id), n);
  return 0;
}

}  // namespace bb::cli
