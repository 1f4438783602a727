#include "push_base.h"

#include "util/text.h"

namespace bb::runnerd {

std::string add_push_base(const git::Repository& repo, const model::JobSpec& spec,
                          const std::vector<config::Suite>& suites, std::vector<Target>& targets) {
  if (spec.kind != model::JobKind::push || targets.size() != 1) return "not a push of one commit";
  if (spec.base_sha.empty()) return "the job names no previous head (a new branch, or enqueued without one)";
  // Each shard is a job of its own, on whichever box claims it; a push's
  // shards are compared with their previous runs.
  if (spec.shard > 0) return "a shard of a push is compared with its previous run";
  for (const auto& s : suites) {
    if (s.push_baseline == config::Suite::PushBaseline::previous_run)
      return "suite '" + s.name + "' asks for push_baseline: previous-run";
    if (s.shards > 1) return "suite '" + s.name + "' is sharded; its shards are compared with their previous runs";
  }
  const std::string& head = targets.front().commit;
  if (spec.base_sha == head) return "the previous head is the pushed commit";
  if (!repo.has_commit(spec.base_sha))
    return "the previous head " + short_sha(spec.base_sha) + " is not in the repository (force-pushed away?)";
  // After a force-push the old head is no ancestor: a step between two
  // unrelated lines of history is not what the branch changed.
  auto mb = repo.merge_base(spec.base_sha, head);
  if (!mb || *mb != spec.base_sha)
    return "the previous head " + short_sha(spec.base_sha) + " is not an ancestor of " + short_sha(head) +
           " (a force-push)";
  Target base;
  base.role = "base";
  base.commit = spec.base_sha;
  base.result.ref = spec.ref;
  targets.insert(targets.begin(), std::move(base));
  return "";
}

}  // namespace bb::runnerd
