#include "build_step.h"

#include <algorithm>
#include <filesystem>

#include "daemon/log.h"
#include "util/text.h"

namespace bb::runnerd {

std::string build_target(const std::vector<config::Suite>& suites, Target& t, const MeasureContext& ctx,
                         const BuildInputs& in, bool& cancelled) {
  cancelled = false;
  const std::string id = std::to_string(ctx.job_id);
  std::vector<const config::Suite*> steps;  // the first suite of each distinct build command
  std::vector<std::string> commands;
  for (const auto& s : suites)
    if (!s.build.empty() && std::find(commands.begin(), commands.end(), s.build) == commands.end()) {
      steps.push_back(&s);
      commands.push_back(s.build);
    }
  if (steps.empty()) return "";

  const std::string key = in.cache ? cache::build_key(in.tree_id, commands, in.environment_key) : "";
  if (in.cache) {
    // The exported tree makes way for the built one.
    const std::string restored = t.tree_dir + ".cached";
    auto hit = in.cache->restore(key, restored);
    if (!hit) {
      daemon::log_warning("build cache bypassed: " + hit.error().message, {{"JOB_ID", id}, {"COMMIT", t.commit}});
    } else if (*hit) {
      std::error_code ec;
      std::filesystem::remove_all(t.tree_dir, ec);
      std::filesystem::rename(restored, t.tree_dir, ec);
      // The cached tree is runnerd's copy: this job's identity gets it.
      if (!ec && ctx.identity)
        if (auto st = exec::hand_over(t.tree_dir, *ctx.identity); !st)
          return "could not give the cached build to the job: " + st.error().message;
      if (!ec && ctx.job_group)
        if (auto st = exec::share_with_group(t.tree_dir, *ctx.job_group); !st)
          return "could not give the cached build to the job: " + st.error().message;
      if (!ec) {
        t.result.build_cache = "hit";
        daemon::log_info("build cache hit: " + short_sha(t.commit) + " is not built again",
                         {{"JOB_ID", id}, {"COMMIT", t.commit}, {"BUILD_KEY", key}});
        return "";
      }
      // Both paths are in the work directory: this cannot happen short of
      // a broken disk, and a half-moved tree must not be measured.
      return "could not use the cached build of " + short_sha(t.commit) + ": " + ec.message();
    }
    t.result.build_cache = "miss";
  }
  for (const auto* s : steps) {
    daemon::log_info("building " + short_sha(t.commit) + " for suite '" + s->name + "'",
                     {{"JOB_ID", id}, {"COMMIT", t.commit}});
    std::string reason = build_suite(*s, t, ctx, cancelled);
    if (cancelled) return "cancelled";
    if (!reason.empty()) return reason;
  }
  if (in.cache) {
    auto stored = in.cache->store(key, t.tree_dir);
    if (!stored) {
      daemon::log_warning("build not cached: " + stored.error().message, {{"JOB_ID", id}, {"COMMIT", t.commit}});
    } else if (!stored->stored) {
      daemon::log_info("build not cached: " + stored->why_not, {{"JOB_ID", id}, {"COMMIT", t.commit}});
    } else {
      daemon::log_info("build cached" + (stored->evicted.empty() ? std::string()
                                                                  : " (" + std::to_string(stored->evicted.size()) +
                                                                        " least recently used evicted)"),
                       {{"JOB_ID", id}, {"COMMIT", t.commit}, {"BUILD_KEY", key}});
    }
  }
  return "";
}

}  // namespace bb::runnerd
