// The git side of runnerd: a bare cache repository per watched repository,
// fetched with explicit refspecs (branches, tags, pull-request heads), and
// the few read operations a job needs: resolve a ref, merge-base, read a
// file from a commit, and write a commit's tree into a directory.
//
// Work trees are *exports*, not `git worktree`s. libgit2 1.5 can only add a
// worktree on a branch (git_worktree_add_options.ref; no detached HEAD), so
// each job would create a branch in the cache, and a runner killed mid-job
// leaves .git/worktrees/<name> behind (locked, to be pruned by hand) and
// branches nobody deletes. Exporting the tree with git_checkout_tree into
// an empty directory (target_directory, index untouched) leaves nothing in
// the cache to clean up: deleting the directory is the whole cleanup, and a
// crash leaves only a directory the next job removes. The price: the work
// tree has no .git, so a build that runs `git describe` fails there; runnerd
// exports BENCHBOX_COMMIT instead (docs/benchbox-yml.md).
//
// All errors carry libgit2's own message.
#pragma once

#include <string>
#include <vector>

#include "git/credentials.h"
#include "git/handles.h"
#include "util/result.h"

namespace bb::git {

// git_libgit2_init, once per process (thread-safe); the library is never
// shut down because the process ends first. Every entry point calls it.
void init_library();

// Refspecs benchbox fetches: every branch and tag, mirrored under the same
// names (forced, a force-push must win), and, for pr_number > 0, that pull
// request's head (refs/pull/N/head). pr_number < 0 fetches every PR head,
// which is expensive on big repositories and only meant for tests/backfill.
std::vector<std::string> fetch_refspecs(int64_t pr_number);

// Where the cache of `repository` ("owner/name") lives under cache_dir:
// "<cache_dir>/owner_name-<8 hex of sha256(name)>.git", readable and free of
// collisions between names that sanitize alike.
std::string cache_path(const std::string& cache_dir, const std::string& repository);

// What history and the dashboard need to know of a commit.
struct CommitMeta {
  int64_t time = 0;          // committer date, unix seconds
  std::string author;        // "Name <email>"
  std::string subject;       // first line of the message
  // Commits before it on its first-parent chain: 0 for a root commit. On a
  // branch, first-parent order is the order the branch's tip went through.
  int64_t first_parent_position = 0;
};

class Repository {
 public:
  // Opens the bare repository at `path`, creating it (and its parents) if
  // it does not exist.
  static Result<Repository> open_or_init_bare(const std::string& path);
  static Result<Repository> open(const std::string& path);
  // A clone with a work tree or a bare one, exactly at `path` (no search
  // upwards): someone's own clone, to read commits from.
  static Result<Repository> open_any(const std::string& path);

  // Fetches `refspecs` from url (https://, file://, or a local path) with an
  // anonymous remote, so a changed clone URL needs no config edit.
  //
  // `credential` (optional, for private repositories) is offered only when
  // the server asks (HTTP 401), only as HTTP basic auth, and only once: a
  // second request means the server refused it and the fetch fails with
  // "fetch URL: the server refused the credential (HTTP 401)". It goes to
  // libgit2 through the credentials callback alone, so the token is never
  // on a command line, in a URL, in the cache's config, in a log or in the
  // returned error (scrubbed to "***"); see git/credentials.h. Without one,
  // a server asking for auth fails with "... needs credentials (a private
  // repository ...)". The caller owns the credential and wipes it
  // (FetchCredential::wipe, best effort; its destructor does too).
  Status fetch(const std::string& url, const std::vector<std::string>& refspecs,
               const FetchCredential* credential = nullptr);

  // A full sha, a ref ("refs/heads/main", "refs/pull/3/head") or anything
  // git_revparse_single understands, peeled to a commit; returns the sha.
  Result<std::string> resolve(const std::string& spec) const;
  bool has_commit(const std::string& sha) const;
  Result<std::string> merge_base(const std::string& a, const std::string& b) const;

  // The bytes of `path` in `commit`'s tree. Errc::not_found when the commit
  // has no such file; refuses files larger than max_bytes.
  Result<std::string> read_file(const std::string& commit, const std::string& path,
                                size_t max_bytes = 1 << 20) const;

  // Writes commit's tree into `dir` (created if needed; must be empty).
  Status export_tree(const std::string& commit, const std::string& dir) const;
  // Date, author, subject and first-parent position of a commit. The
  // position walks the first-parent chain to its root: linear in the
  // branch's length (about 1 µs a commit), once per measured commit.
  Result<CommitMeta> commit_meta(const std::string& commit) const;

  // The id of the commit's tree: equal for commits with equal contents.
  Result<std::string> tree_id(const std::string& commit) const;
  // The paths that differ between two commits' trees (added, removed,
  // modified; both sides of a rename), sorted.
  Result<std::vector<std::string>> changed_paths(const std::string& from, const std::string& to) const;

  // Removes lock files a killed fetch can leave (refs/**/*.lock,
  // packed-refs.lock, config.lock, shallow.lock). Only call while nothing
  // else uses this repository: runnerd, the cache's only writer, does so
  // before each fetch.
  Status remove_stale_locks() const;

  const std::string& path() const { return path_; }
  git_repository* get() const { return repo_.get(); }

 private:
  Repository(RepositoryPtr repo, std::string path) : repo_(std::move(repo)), path_(std::move(path)) {}
  Result<CommitPtr> lookup_commit(const std::string& spec) const;

  RepositoryPtr repo_;
  std::string path_;
};

// Error from a failed libgit2 call: "what: <libgit2 message>", with
// GIT_ENOTFOUND mapped to Errc::not_found.
Error git_failure(const std::string& what, int code);

}  // namespace bb::git
