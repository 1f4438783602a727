// Where benchboxctl reads a repository's commits (backfill, bisect): the
// operator's own clone (--git-dir), or a fresh fetch of the clone URL into
// a scratch directory that goes away with the GitSource. Never runnerd's
// git cache, which is runnerd's alone.
#pragma once

#include <memory>
#include <string>

#include "bus_client.h"
#include "git/repository.h"
#include "util/result.h"

namespace bb::cli {

class GitSource {
 public:
  // git_dir "" = fetch clone_url (branches and tags) into $TMPDIR.
  static Result<std::unique_ptr<GitSource>> open(const std::string& clone_url, const std::string& git_dir);
  ~GitSource();
  GitSource(const GitSource&) = delete;
  GitSource& operator=(const GitSource&) = delete;

  const git::Repository& repo() const { return repo_; }

 private:
  GitSource(git::Repository repo, std::string scratch) : repo_(std::move(repo)), scratch_(std::move(scratch)) {}
  git::Repository repo_;
  std::string scratch_;  // removed on destruction; "" for --git-dir
};

// The clone URL the queue's newest job of `repository` names, among its
// newest 1000 jobs.
Result<std::string> known_clone_url(BusClient& c, const std::string& repository);

}  // namespace bb::cli
