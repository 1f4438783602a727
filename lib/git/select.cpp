#include "git/select.h"

#include <string.h>

#include <algorithm>

#include "util/text.h"

namespace bb::git {

namespace {

std::string oid_text(const git_oid* oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, oid);
  return buf;
}

}  // namespace

Result<std::vector<TaggedCommit>> tags_matching(const Repository& repo, const std::string& glob) {
  init_library();
  git_strarray names{};
  int r = git_tag_list(&names, repo.get());
  if (r < 0) return git_failure("list tags", r);
  std::vector<std::string> matched;
  for (size_t i = 0; i < names.count; ++i)
    if (glob_match(glob, names.strings[i])) matched.emplace_back(names.strings[i]);
  git_strarray_dispose(&names);

  std::vector<TaggedCommit> out;
  for (const auto& name : matched) {
    git_object* raw = nullptr;
    r = git_revparse_single(&raw, repo.get(), ("refs/tags/" + name).c_str());
    if (r < 0) return git_failure("resolve tag " + name, r);
    ObjectPtr obj(raw);
    git_object* peeled_raw = nullptr;
    if (git_object_peel(&peeled_raw, obj.get(), GIT_OBJECT_COMMIT) < 0) continue;  // a tag of a tree or blob
    ObjectPtr peeled(peeled_raw);
    out.push_back({name, oid_text(git_object_id(peeled.get()))});
  }
  std::sort(out.begin(), out.end(), [](const TaggedCommit& a, const TaggedCommit& b) {
    return ::strverscmp(a.tag.c_str(), b.tag.c_str()) < 0;
  });
  return out;
}

Result<std::vector<std::string>> first_parent_commits(const Repository& repo, const std::string& tip,
                                                      const std::string& since, size_t limit) {
  init_library();
  auto tip_sha = repo.resolve(tip);
  if (!tip_sha) return tip_sha.error();
  git_revwalk* raw = nullptr;
  int r = git_revwalk_new(&raw, repo.get());
  if (r < 0) return git_failure("walk " + tip, r);
  RevwalkPtr walk(raw);
  git_revwalk_simplify_first_parent(walk.get());
  git_oid oid;
  if ((r = git_oid_fromstr(&oid, tip_sha->c_str())) < 0) return git_failure("walk " + tip, r);
  if ((r = git_revwalk_push(walk.get(), &oid)) < 0) return git_failure("walk " + tip, r);
  if (!since.empty()) {
    auto since_sha = repo.resolve(since);
    if (!since_sha) return since_sha.error();
    if ((r = git_oid_fromstr(&oid, since_sha->c_str())) < 0) return git_failure("walk " + since, r);
    if ((r = git_revwalk_hide(walk.get(), &oid)) < 0) return git_failure("walk " + since, r);
  }
  // Newest first (the walk's own order along one chain), then reversed.
  std::vector<std::string> out;
  while ((r = git_revwalk_next(&oid, walk.get())) == 0) {
    out.push_back(oid_text(&oid));
    if (limit && out.size() == limit) break;
  }
  if (r < 0 && r != GIT_ITEROVER) return git_failure("walk " + tip, r);
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<std::string> every_nth(const std::vector<std::string>& oldest_first, size_t n) {
  if (n <= 1) return oldest_first;
  std::vector<std::string> out;
  const size_t size = oldest_first.size();
  for (size_t i = 0; i < size; ++i)
    if ((size - 1 - i) % n == 0) out.push_back(oldest_first[i]);
  return out;
}

}  // namespace bb::git
