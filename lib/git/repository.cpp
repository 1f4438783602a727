#include "git/repository.h"

#include <set>

#include <filesystem>
#include <memory>
#include <mutex>
#include <system_error>

#include "util/file.h"
#include "util/text.h"

namespace bb::git {

namespace fs = std::filesystem;

void init_library() {
  static std::once_flag once;
  std::call_once(once, [] { git_libgit2_init(); });
}

Error git_failure(const std::string& what, int code) {
  const git_error* e = git_error_last();
  std::string message = e && e->message ? e->message : "libgit2 error " + std::to_string(code);
  Errc errc = code == GIT_ENOTFOUND ? Errc::not_found : Errc::io;
  return make_error(errc, what + ": " + message);
}

std::vector<std::string> fetch_refspecs(int64_t pr_number) {
  std::vector<std::string> specs = {"+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"};
  if (pr_number > 0) {
    std::string ref = "refs/pull/" + std::to_string(pr_number) + "/head";
    specs.push_back("+" + ref + ":" + ref);
  } else if (pr_number < 0) {
    specs.push_back("+refs/pull/*/head:refs/pull/*/head");
  }
  return specs;
}

std::string cache_path(const std::string& cache_dir, const std::string& repository) {
  std::string leaf;
  for (char c : repository)
    leaf += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-') ? c : '_';
  return path_join(cache_dir, leaf + "-" + sha256_hex(repository).substr(0, 8) + ".git");
}

Result<Repository> Repository::open(const std::string& path) {
  init_library();
  git_repository* raw = nullptr;
  int r = git_repository_open_bare(&raw, path.c_str());
  if (r < 0) return git_failure("open repository " + path, r);
  return Repository(RepositoryPtr(raw), path);
}

Result<Repository> Repository::open_any(const std::string& path) {
  init_library();
  git_repository* raw = nullptr;
  int r = git_repository_open_ext(&raw, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr);
  if (r < 0) return git_failure("open repository " + path, r);
  return Repository(RepositoryPtr(raw), path);
}

Result<Repository> Repository::open_or_init_bare(const std::string& path) {
  init_library();
  if (path_exists(path)) return open(path);
  if (auto st = make_dirs(path); !st) return st.error();
  git_repository* raw = nullptr;
  int r = git_repository_init(&raw, path.c_str(), /*is_bare=*/1);
  if (r < 0) return git_failure("create repository " + path, r);
  return Repository(RepositoryPtr(raw), path);
}

Status Repository::fetch(const std::string& url, const std::vector<std::string>& refspecs,
                         const FetchCredential* credential) {
  // Every message leaving here is scrubbed: libgit2 quotes the URL and
  // parts of server replies, which we do not control.
  const std::string no_secret;
  const std::string& secret = credential ? credential->secret : no_secret;
  auto failed = [&](int code, const std::string& why = {}) -> Error {
    // Errc::io like every other fetch failure, so callers' handling is unchanged.
    Error e = why.empty() ? git_failure("fetch " + url, code)
                          : make_error(Errc::io, "fetch " + url + ": " + why);
    e.message = scrub_secret(std::move(e.message), secret);
    return e;
  };

  // Anonymous, and without url.<base>.insteadOf rewriting: the cache's own
  // config has none, and libgit2 1.5's glob iteration over the config for
  // it leaks PCRE2 match data on every call (fixed upstream by libgit2
  // PR #6382, after 1.5), about 100 KiB per fetch in a daemon that lives
  // for months. Anonymous also means neither URL nor credential is ever
  // written to the cache's config.
  git_remote_create_options create = GIT_REMOTE_CREATE_OPTIONS_INIT;
  create.repository = repo_.get();
  create.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
  git_remote* raw = nullptr;
  int r = git_remote_create_with_opts(&raw, url.c_str(), &create);
  if (r < 0) return failed(r);
  RemotePtr remote(raw);

  std::vector<std::string> owned = refspecs;
  std::vector<char*> ptrs;
  for (auto& s : owned) ptrs.push_back(s.data());
  git_strarray specs{ptrs.data(), ptrs.size()};

  git_fetch_options opts = GIT_FETCH_OPTIONS_INIT;
  // The refspecs say exactly which tags we want; auto-following would add
  // nothing and makes a second negotiation round.
  opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
  opts.update_fetchhead = 0;
  // Installed even without a credential, to tell "needs credentials" apart
  // from other failures.
  CredentialCallback callback(credential);
  callback.install(opts.callbacks);
  r = git_remote_fetch(remote.get(), &specs, &opts, "benchbox fetch");
  if (r < 0) return failed(r, callback.failure());
  return {};
}

Result<CommitPtr> Repository::lookup_commit(const std::string& spec) const {
  git_object* obj = nullptr;
  int r = git_revparse_single(&obj, repo_.get(), spec.c_str());
  if (r < 0) return git_failure("resolve '" + spec + "' in " + path_, r);
  ObjectPtr object(obj);
  git_object* peeled = nullptr;
  r = git_object_peel(&peeled, object.get(), GIT_OBJECT_COMMIT);
  if (r < 0) return git_failure("'" + spec + "' is not a commit", r);
  return CommitPtr(reinterpret_cast<git_commit*>(peeled));
}

Result<std::string> Repository::resolve(const std::string& spec) const {
  auto commit = lookup_commit(spec);
  if (!commit) return commit.error();
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, git_commit_id(commit->get()));
  return std::string(hex);
}

bool Repository::has_commit(const std::string& sha) const {
  git_oid oid;
  if (sha.size() != GIT_OID_HEXSZ || git_oid_fromstr(&oid, sha.c_str()) < 0) return false;
  git_commit* raw = nullptr;
  if (git_commit_lookup(&raw, repo_.get(), &oid) < 0) return false;
  git_commit_free(raw);
  return true;
}

Result<std::string> Repository::merge_base(const std::string& a, const std::string& b) const {
  auto ca = lookup_commit(a);
  if (!ca) return ca.error();
  auto cb = lookup_commit(b);
  if (!cb) return cb.error();
  git_oid out;
  int r = git_merge_base(&out, repo_.get(), git_commit_id(ca->get()), git_commit_id(cb->get()));
  if (r < 0) return git_failure("merge-base of " + a + " and " + b, r);
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &out);
  return std::string(hex);
}

Result<std::string> Repository::read_file(const std::string& commit, const std::string& path,
                                          size_t max_bytes) const {
  auto c = lookup_commit(commit);
  if (!c) return c.error();
  git_tree* tree_raw = nullptr;
  int r = git_commit_tree(&tree_raw, c->get());
  if (r < 0) return git_failure("tree of " + commit, r);
  TreePtr tree(tree_raw);
  git_tree_entry* entry_raw = nullptr;
  r = git_tree_entry_bypath(&entry_raw, tree.get(), path.c_str());
  if (r == GIT_ENOTFOUND) return make_error(Errc::not_found, "no " + path + " in commit " + commit);
  if (r < 0) return git_failure("find " + path + " in " + commit, r);
  TreeEntryPtr entry(entry_raw);
  if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB)
    return make_error(Errc::invalid_argument, path + " in commit " + commit + " is not a file");
  git_blob* blob_raw = nullptr;
  r = git_blob_lookup(&blob_raw, repo_.get(), git_tree_entry_id(entry.get()));
  if (r < 0) return git_failure("read " + path + " in " + commit, r);
  BlobPtr blob(blob_raw);
  auto size = static_cast<size_t>(git_blob_rawsize(blob.get()));
  if (size > max_bytes)
    return make_error(Errc::invalid_argument, path + " in commit " + commit + " is larger than " +
                                                  std::to_string(max_bytes) + " bytes");
  return std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())), size);
}

Result<std::string> Repository::tree_id(const std::string& commit) const {
  auto c = lookup_commit(commit);
  if (!c) return c.error();
  char hex[GIT_OID_HEXSZ + 1] = {};
  git_oid_tostr(hex, sizeof hex, git_commit_tree_id(c->get()));
  return std::string(hex);
}

Result<std::vector<std::string>> Repository::changed_paths(const std::string& from, const std::string& to) const {
  TreePtr trees[2];
  const std::string* commits[2] = {&from, &to};
  for (int i = 0; i < 2; ++i) {
    auto c = lookup_commit(*commits[i]);
    if (!c) return c.error();
    git_tree* raw = nullptr;
    if (int rc = git_commit_tree(&raw, c->get()); rc < 0) return git_failure("tree of " + *commits[i], rc);
    trees[i].reset(raw);
  }
  git_diff* raw = nullptr;
  if (int rc = git_diff_tree_to_tree(&raw, repo_.get(), trees[0].get(), trees[1].get(), nullptr); rc < 0)
    return git_failure("diff " + from + ".." + to, rc);
  DiffPtr diff(raw);
  std::set<std::string> paths;
  for (size_t i = 0, n = git_diff_num_deltas(diff.get()); i < n; ++i) {
    const git_diff_delta* d = git_diff_get_delta(diff.get(), i);
    if (d->old_file.path) paths.insert(d->old_file.path);
    if (d->new_file.path) paths.insert(d->new_file.path);
  }
  return std::vector<std::string>(paths.begin(), paths.end());
}

Result<CommitMeta> Repository::commit_meta(const std::string& commit) const {
  auto c = lookup_commit(commit);
  if (!c) return c.error();
  CommitMeta meta;
  meta.time = static_cast<int64_t>(git_commit_time(c->get()));
  if (const git_signature* a = git_commit_author(c->get()))
    meta.author = std::string(a->name ? a->name : "") + " <" + (a->email ? a->email : "") + ">";
  if (const char* summary = git_commit_summary(c->get())) meta.subject = summary;
  // A revwalk that follows first parents only, counting: cheaper than
  // looking each parent up as a git_commit.
  git_revwalk* walk_raw = nullptr;
  int r = git_revwalk_new(&walk_raw, repo_.get());
  if (r < 0) return git_failure("walk " + commit, r);
  RevwalkPtr walk(walk_raw);
  git_revwalk_simplify_first_parent(walk.get());
  if ((r = git_revwalk_push(walk.get(), git_commit_id(c->get()))) < 0) return git_failure("walk " + commit, r);
  git_oid oid;
  int64_t seen = 0;
  while ((r = git_revwalk_next(&oid, walk.get())) == 0) ++seen;
  if (r != GIT_ITEROVER) return git_failure("walk " + commit, r);
  meta.first_parent_position = seen - 1;
  return meta;
}

Status Repository::export_tree(const std::string& commit, const std::string& dir) const {
  auto c = lookup_commit(commit);
  if (!c) return c.error();
  if (auto st = make_dirs(dir); !st) return st.error();
  std::error_code ec;
  if (!fs::is_empty(dir, ec) || ec)
    return make_error(Errc::conflict, "export " + commit + ": " + dir + " is not an empty directory");

  // An empty in-memory index as the baseline: every file of the target tree
  // is "new" and gets written, whatever HEAD of the cache points at, and
  // the cache's own index is never read or written.
  git_index* index_raw = nullptr;
  int r = git_index_new(&index_raw);
  if (r < 0) return git_failure("export " + commit, r);
  IndexPtr baseline(index_raw);

  git_checkout_options opts = GIT_CHECKOUT_OPTIONS_INIT;
  opts.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DONT_UPDATE_INDEX;
  opts.target_directory = dir.c_str();
  opts.baseline_index = baseline.get();
  r = git_checkout_tree(repo_.get(), reinterpret_cast<const git_object*>(c->get()), &opts);
  if (r < 0) return git_failure("export " + commit + " into " + dir, r);
  return {};
}

Status Repository::remove_stale_locks() const {
  std::error_code ec;
  std::vector<fs::path> locks;
  for (const char* leaf : {"packed-refs.lock", "config.lock", "shallow.lock", "HEAD.lock", "index.lock"})
    if (fs::exists(fs::path(path_) / leaf, ec)) locks.push_back(fs::path(path_) / leaf);
  fs::path refs = fs::path(path_) / "refs";
  if (fs::exists(refs, ec)) {
    for (auto it = fs::recursive_directory_iterator(refs, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ".lock") locks.push_back(it->path());
    if (ec) return make_error(Errc::io, "scan " + refs.string() + ": " + ec.message());
  }
  for (const auto& p : locks)
    if (!fs::remove(p, ec) && ec) return make_error(Errc::io, "remove " + p.string() + ": " + ec.message());
  return {};
}

}  // namespace bb::git
