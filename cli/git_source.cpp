#include "git_source.h"

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "bus/dict.h"
#include "bus/names.h"
#include "model/job.h"

namespace bb::cli {

namespace {

void remove_tree(const std::string& path) {
  std::error_code ec;
  if (!path.empty()) std::filesystem::remove_all(path, ec);
}

}  // namespace

Result<std::unique_ptr<GitSource>> GitSource::open(const std::string& clone_url, const std::string& git_dir) {
  if (!git_dir.empty()) {
    auto repo = git::Repository::open_any(git_dir);
    if (!repo) return repo.error();
    return std::unique_ptr<GitSource>(new GitSource(std::move(*repo), ""));
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string scratch = std::string(tmp && *tmp ? tmp : "/tmp") + "/benchboxctl-git-XXXXXX";
  if (!::mkdtemp(scratch.data())) return errno_error("make a scratch directory under " + scratch, errno);
  std::fprintf(stderr, "fetching %s ...\n", clone_url.c_str());
  auto repo = git::Repository::open_or_init_bare(scratch + "/repo.git");
  if (!repo) {
    remove_tree(scratch);
    return repo.error();
  }
  if (auto st = repo->fetch(clone_url, git::fetch_refspecs(0)); !st) {
    remove_tree(scratch);
    return make_error(st.error().code, st.error().message + " (pass --git-dir to read a local clone instead)");
  }
  return std::unique_ptr<GitSource>(new GitSource(std::move(*repo), scratch));
}

GitSource::~GitSource() { remove_tree(scratch_); }

Result<std::string> known_clone_url(BusClient& c, const std::string& repository) {
  auto m = c.new_call(bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, "List");
  if (!m) return m.error();
  sd_bus_message_append(m->get(), "su", "", 1000u);
  auto reply = c.call(m->get());
  if (!reply) return reply.error();
  if (sd_bus_message_enter_container(reply->get(), 'a', "a{sv}") < 0) return make_error(Errc::parse, "bad List reply");
  while (sd_bus_message_at_end(reply->get(), 0) == 0) {
    auto d = bus::read_dict(reply->get());
    if (!d) return d.error();
    auto job = model::job_from_json(*d);
    if (job && job->spec.repository == repository && !job->spec.clone_url.empty()) return job->spec.clone_url;
  }
  return make_error(Errc::not_found, "the queue's newest 1000 jobs do not name " + repository +
                                         "'s clone URL; pass --clone-url");
}

}  // namespace bb::cli
