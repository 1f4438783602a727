// AptHost's package side: apt-get, apt-cache, dpkg (services.cpp has the
// bus side).
#include "apt_host.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <cstring>
#include <ctime>
#include <thread>

#include "util/file.h"
#include "util/text.h"

namespace bb::updater {

namespace {

using std::chrono::minutes;
using std::chrono::seconds;

std::string output_of(const exec::Outcome& o) { return o.stdout_text + o.stderr_text; }

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

Result<exec::Outcome> AptHost::run(std::vector<std::string> argv, seconds timeout, const std::string& cwd) {
  exec::Command c;
  c.argv = std::move(argv);
  c.cwd = cwd;
  c.env = {{"DEBIAN_FRONTEND", "noninteractive"}, {"LC_ALL", "C.UTF-8"}};
  c.timeout = timeout;
  c.max_output_bytes = 4 << 20;
  return runner_.run(c, nullptr);
}

std::vector<std::string> AptHost::only_our_source() const {
  return {"-o", "Dir::Etc::SourceList=" + s_.source_file, "-o", "Dir::Etc::SourceParts=-",
          "-o", "Dir::Cache::pkgcache=",                  "-o", "Dir::Cache::srcpkgcache="};
}

Result<std::string> AptHost::installed_version() {
  auto o = run({"dpkg-query", "-W", "-f=${db:Status-Status} ${Version}", s_.package}, seconds(30));
  if (!o) return o.error();
  if (!o->success()) return make_error(Errc::not_found, s_.package + " is not installed: " + trim(output_of(*o)));
  auto words = split(trim(o->stdout_text), ' ');
  if (words.size() != 2) return make_error(Errc::parse, "dpkg-query said '" + o->stdout_text + "'");
  if (words[0] != "installed")
    return make_error(Errc::conflict, s_.package + " " + words[1] + " is " + words[0] + ", not installed");
  return words[1];
}

std::vector<std::string> AptHost::scratch() const {
  return only_our_source() + std::vector<std::string>{"-o", "Dir::State::Lists=" + s_.scratch_lists};
}

Status AptHost::refresh() {
  std::error_code ec;
  std::filesystem::remove_all(s_.scratch_lists, ec);
  if (ec) return make_error(Errc::io, "cannot empty " + s_.scratch_lists + ": " + ec.message());
  if (auto st = make_dirs(s_.scratch_lists); !st) return st;
  auto o = run(std::vector<std::string>{"apt-get", "update", "-q"} + scratch(), minutes(10));
  if (!o) return o.error();
  Error e = update::apt_failure(output_of(*o), "apt-get update " + o->describe());
  // apt keeps the previous index and exits 0 after some signature
  // failures ("The repository is not updated and the previous index files
  // will be used"): that is still a refusal.
  if (!o->success() || e.code == Errc::invalid_argument) return e;
  return {};
}

Result<int64_t> AptHost::index_date() {
  // The scratch lists hold one source's files: its (In)Release is the one.
  const std::string suffix = "_dists_" + s_.source.suite + "_";
  for (const char* name : {"InRelease", "Release"}) {
    if (DIR* d = ::opendir(s_.scratch_lists.c_str())) {
      std::string found;
      while (dirent* e = ::readdir(d)) {
        std::string n = e->d_name;
        if (n.size() > suffix.size() + std::strlen(name) && n.ends_with(suffix + name)) found = n;
      }
      ::closedir(d);
      if (found.empty()) continue;
      auto text = read_file(path_join(s_.scratch_lists, found), 16 << 20);
      if (!text) return text.error();
      return update::release_date(*text);
    }
  }
  return make_error(Errc::not_found, "no index of " + s_.source.uri + " " + s_.source.suite + " in " +
                                         s_.scratch_lists + " (apt-get update fetched none)");
}

Result<std::vector<std::string>> AptHost::offered_versions() {
  auto o = run(std::vector<std::string>{"apt-cache"} + scratch() + std::vector<std::string>{"madison", s_.package},
               seconds(60));
  if (!o) return o.error();
  if (!o->success()) return update::apt_failure(output_of(*o), "apt-cache madison " + o->describe());
  return update::madison_versions(o->stdout_text, s_.source.uri);
}

Result<int> AptHost::compare_versions(const std::string& a, const std::string& b) {
  for (auto [op, value] : {std::pair{"lt", -1}, std::pair{"eq", 0}}) {
    auto o = run({"dpkg", "--compare-versions", a, op, b}, seconds(10));
    if (!o) return o.error();
    if (o->success()) return value;
    if (o->exit_code != 1) return make_error(Errc::invalid_argument, "dpkg cannot compare '" + a + "' and '" + b + "'");
  }
  return 1;
}

Result<std::string> AptHost::keep_package(const std::string& version) {
  if (auto st = make_dirs(s_.packages_dir, 0700); !st) return st.error();
  auto arch = run({"dpkg", "--print-architecture"}, seconds(10));
  if (!arch || !arch->success()) return make_error(Errc::internal, "dpkg --print-architecture failed");
  const std::string file = s_.package + "_" + version + "_" + trim(arch->stdout_text) + ".deb";
  const std::string kept = path_join(s_.packages_dir, file);
  if (!path_exists(kept)) {
    // apt-get leaves what it downloaded in its cache (the apt front end
    // does not); else fetch it again while the archive still has it. Either
    // way it is complete before it takes the kept name.
    const std::string cached = path_join(s_.apt_archives, file), part = kept + ".part";
    std::error_code ec;
    if (path_exists(cached)) {
      std::filesystem::copy_file(cached, part, std::filesystem::copy_options::overwrite_existing, ec);
      if (ec) return make_error(Errc::io, "cannot copy " + cached + ": " + ec.message());
    } else {
      auto o = run({"apt-get", "download", "-q", s_.package + "=" + version}, minutes(10), s_.packages_dir);
      if (!o) return o.error();
      if (!o->success()) return update::apt_failure(output_of(*o), "cannot get " + file + ": " + o->describe());
      std::filesystem::rename(path_join(s_.packages_dir, file), part, ec);
      if (ec) return make_error(Errc::io, "apt-get download left no " + file + ": " + ec.message());
    }
    std::filesystem::rename(part, kept, ec);
    if (ec) return make_error(Errc::io, "cannot keep " + kept + ": " + ec.message());
  }
  // Keep the three newest: enough to go back one version after a bad one.
  std::vector<std::pair<int64_t, std::string>> debs;
  if (DIR* d = ::opendir(s_.packages_dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      struct stat st {};
      std::string p = path_join(s_.packages_dir, name);
      if (name.size() > 4 && name.substr(name.size() - 4) == ".deb" && ::stat(p.c_str(), &st) == 0)
        debs.emplace_back(st.st_mtime, p);
    }
    ::closedir(d);
  }
  std::sort(debs.rbegin(), debs.rend());
  for (size_t i = 3; i < debs.size(); ++i)
    if (debs[i].second != kept) ::unlink(debs[i].second.c_str());
  return kept;
}

Status AptHost::install(const std::string& version) {
  // apt's own lists learn the version the scratch lists showed.
  auto up = run(std::vector<std::string>{"apt-get", "update", "-q"} + only_our_source() +
                    std::vector<std::string>{"-o", "APT::Get::List-Cleanup=0"},
                minutes(10));
  if (!up) return up.error();
  if (Error e = update::apt_failure(output_of(*up), "apt-get update " + up->describe());
      !up->success() || e.code == Errc::invalid_argument)
    return e;
  auto o = run({"apt-get", "install", "-y", "-q", "--no-install-recommends", "-o", "Dpkg::Options::=--force-confdef",
                "-o", "Dpkg::Options::=--force-confold", s_.package + "=" + version},
               minutes(30));
  if (!o) return o.error();
  if (!o->success()) return update::apt_failure(output_of(*o), "apt-get install " + o->describe());
  return {};
}

Status AptHost::install_file(const std::string& path) {
  auto o = run({"dpkg", "-i", "--force-confdef", "--force-confold", path}, minutes(30));
  if (!o) return o.error();
  if (!o->success()) return make_error(Errc::io, "dpkg -i " + path + ": " + trim(output_of(*o)));
  return {};
}

Status AptHost::configure_pending() {
  auto o = run({"dpkg", "--configure", "-a", "--force-confdef", "--force-confold"}, minutes(30));
  if (!o) return o.error();
  if (!o->success()) return make_error(Errc::io, "dpkg --configure -a: " + trim(output_of(*o)));
  return {};
}

int64_t AptHost::now() { return static_cast<int64_t>(::time(nullptr)); }

void AptHost::sleep(std::chrono::milliseconds d) { std::this_thread::sleep_for(d); }

}  // namespace bb::updater
