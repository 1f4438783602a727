// RAII for libgit2 objects: every git_* handle benchbox holds is one of
// these, so an early return never leaks a repository, a commit or a tree.
#pragma once

#include <git2.h>

#include <memory>

namespace bb::git {

template <class T, void (*Free)(T*)>
struct GitFree {
  void operator()(T* p) const { Free(p); }
};

template <class T, void (*Free)(T*)>
using GitPtr = std::unique_ptr<T, GitFree<T, Free>>;

using RepositoryPtr = GitPtr<git_repository, git_repository_free>;
using RemotePtr = GitPtr<git_remote, git_remote_free>;
using ObjectPtr = GitPtr<git_object, git_object_free>;
using CommitPtr = GitPtr<git_commit, git_commit_free>;
using TreePtr = GitPtr<git_tree, git_tree_free>;
using TreeEntryPtr = GitPtr<git_tree_entry, git_tree_entry_free>;
using BlobPtr = GitPtr<git_blob, git_blob_free>;
using ReferencePtr = GitPtr<git_reference, git_reference_free>;
using IndexPtr = GitPtr<git_index, git_index_free>;
using RevwalkPtr = GitPtr<git_revwalk, git_revwalk_free>;
using DiffPtr = GitPtr<git_diff, git_diff_free>;

}  // namespace bb::git
