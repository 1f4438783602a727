// benchboxctl bisect: find the commit that made a branch slower, on the
// box, as reporterd does for a regression it found itself (docs/bisect.md):
// a confirmation of GOOD against BAD, then one compare job per step. Prints
// each step as it is decided and ends with the culprit and its effect.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <set>
#include <nlohmann/json.hpp>

#include "bus/names.h"
#include "bus_client.h"
#include "commands.h"
#include "git_source.h"
#include "model/job.h"

namespace bb::cli {

namespace {

const char* kBisectUsage =
    "usage: benchboxctl bisect OWNER/NAME GOOD BAD [--benchmark KEY]... [--branch NAME] [--clone-url URL]\n"
    "         [--git-dir PATH] [--no-wait]\n"
    "       benchboxctl bisect --follow BISECTION_ID";

Result<std::string> full_commit(const GitSource* source, const std::string& name) {
  if (model::is_commit_id(name)) return name;
  if (!source) return make_error(Errc::invalid_argument, "'" + name + "' is not a full commit id");
  auto sha = source->repo().resolve(name);
  if (!sha) return sha.error();
  return sha;
}

// Prints a bisection as it goes: the confirmation, each step once it is
// decided, and the end; returns the exit status.
int follow(BusClient& c, int64_t id) {
  std::string last_step;
  size_t steps_printed = 0;
  bool confirmation_printed = false;
  for (;;) {
    auto g = c.new_call(bus::kReporterName, bus::kReporterPath, bus::kReporterInterface, "GetBisection");
    if (!g) return fail(g.error().message);
    sd_bus_message_append(g->get(), "x", id);
    auto r = c.call(g->get());
    if (!r) return fail(r.error().message);
    const char* text = nullptr;
    if (sd_bus_message_read(r->get(), "s", &text) < 0) return fail("bad GetBisection reply");
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object()) return fail("bad GetBisection reply");
    if (!confirmation_printed && !j.value("confirm_detail", "").empty()) {
      std::printf("confirmed: %s\n", j.value("confirm_detail", "").c_str());
      confirmation_printed = true;
    }
    const auto& steps = j["steps"];
    for (; steps.is_array() && steps_printed < steps.size(); ++steps_printed) {
      const auto& s = steps[steps_printed];
      std::printf("step %zu: %s against %s: %s%s%s (job %lld)\n", steps_printed + 1,
                  s.value("commit", "").substr(0, 12).c_str(), s.value("base", "").substr(0, 12).c_str(),
                  s.value("outcome", "").c_str(), s.value("residual", false) ? " (range end vs culprit)" : "",
                  s.value("detail", "").empty() ? "" : (": " + s.value("detail", "")).c_str(),
                  static_cast<long long>(s.value("job_id", int64_t{0})));
    }
    const std::string state = j.value("state", ""), step = j.value("step", "");
    if (step != last_step && (state == "confirming" || state == "bisecting")) {
      std::printf("... %s\n", step.c_str());
      last_step = step;
    }
    std::fflush(stdout);
    if (state == "done") {
      std::printf("first bad commit: %s\n", j.value("culprit", "").c_str());
      std::printf("%s", j.value("markdown", "").c_str());
      return 0;
    }
    if (state == "narrowed" || state == "refuted" || state == "failed") {
      std::printf("%s: %s\n", state.c_str(), j.value("outcome", "").c_str());
      // The answer is "no culprit named" (1) unless the bisection itself failed (2).
      return state == "failed" ? 2 : 1;
    }
    ::sleep(1);
  }
}

}  // namespace

int cmd_bisect(const Args& args) {
  if (args.size() == 2 && args[0] == "--follow") {
    int64_t id = 0;
    try {
      id = std::stoll(args[1]);
    } catch (...) {
      return fail(kBisectUsage);
    }
    auto client = BusClient::connect();
    if (!client) return fail(client.error().message);
    return follow(*client, id);
  }
  if (args.size() < 3 || args[0].rfind("--", 0) == 0) return fail(kBisectUsage);
  const std::string repository = args[0];
  std::string good = args[1], bad = args[2], branch = "main", clone_url, git_dir;
  std::vector<std::string> benchmarks;
  bool wait = true;
  for (size_t i = 3; i < args.size(); ++i) {
    const std::string& k = args[i];
    if (k == "--no-wait") wait = false;
    else if (i + 1 < args.size() && k == "--benchmark") benchmarks.push_back(args[++i]);
    else if (i + 1 < args.size() && k == "--branch") branch = args[++i];
    else if (i + 1 < args.size() && k == "--clone-url") clone_url = args[++i];
    else if (i + 1 < args.size() && k == "--git-dir") git_dir = args[++i];
    else return fail(std::string(kBisectUsage) + "\n(at '" + k + "')");
  }
  if (repository.find('/') == std::string::npos) return fail("the repository is OWNER/NAME, got '" + repository + "'");

  auto client = BusClient::connect();
  if (!client) return fail(client.error().message);
  if (clone_url.empty()) {
    auto url = known_clone_url(*client, repository);
    if (!url) return fail(url.error().message);
    clone_url = *url;
  }
  // Names (a tag, a branch, a short sha) need the repository; full ids do not.
  std::unique_ptr<GitSource> source;
  if (!model::is_commit_id(good) || !model::is_commit_id(bad) || !git_dir.empty()) {
    auto s = GitSource::open(clone_url, git_dir);
    if (!s) return fail(s.error().message);
    source = std::move(*s);
  }
  auto good_sha = full_commit(source.get(), good);
  if (!good_sha) return fail("GOOD: " + good_sha.error().message);
  auto bad_sha = full_commit(source.get(), bad);
  if (!bad_sha) return fail("BAD: " + bad_sha.error().message);

  auto m = client->new_call(bus::kReporterName, bus::kReporterPath, bus::kReporterInterface, "Bisect");
  if (!m) return fail(m.error().message);
  sd_bus_message_append(m->get(), "sssss", repository.c_str(), clone_url.c_str(), ("refs/heads/" + branch).c_str(),
                        good_sha->c_str(), bad_sha->c_str());
  std::vector<const char*> keys;
  for (const auto& b : benchmarks) keys.push_back(b.c_str());
  keys.push_back(nullptr);
  sd_bus_message_append_strv(m->get(), const_cast<char**>(keys.data()));
  auto reply = client->call(m->get());
  if (!reply) return fail(reply.error().message);
  int64_t id = 0;
  if (sd_bus_message_read(reply->get(), "x", &id) < 0) return fail("bad Bisect reply");
  std::printf("bisection %lld: %s..%s on %s\n", static_cast<long long>(id), good_sha->substr(0, 12).c_str(),
              bad_sha->substr(0, 12).c_str(), branch.c_str());
  std::fflush(stdout);
  if (!wait) return 0;

  return follow(*client, id);
}

}  // namespace bb::cli
