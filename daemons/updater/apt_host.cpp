// AptHost's package side: apt-get, apt-cache, dpkg (services.cpp has the
// bus side).
#include "apt_host.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <thread>

#include "util/file.h"
#include "util/text.h"

namespace bb::updater {

namespace {

using std::chrono::minutes;
using std::chrono::seconds;

// One argument for /bin/sh, whatever it holds.
std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string output_of(const exec::Outcome& o) { return o.stdout_text + o.stderr_text; }

}  // namespace

Result<exec::Outcome> AptHost::sh(const std::string& command, seconds timeout) {
  exec::Command c;
  c.shell = command;
  c.cwd = "/";
  c.env = {{"DEBIAN_FRONTEND", "noninteractive"}, {"LC_ALL", "C.UTF-8"}};
  c.timeout = timeout;
  c.max_output_bytes = 4 << 20;
  return runner_.run(c, nullptr);
}

std::string AptHost::only_our_source() const {
  return "-o Dir::Etc::SourceList=" + quote(s_.source_file) +
         " -o Dir::Etc::SourceParts=- -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=";
}

Result<std::string> AptHost::installed_version() {
  auto o = sh("dpkg-query -W -f='${db:Status-Status} ${Version}' " + quote(s_.package), seconds(30));
  if (!o) return o.error();
  if (!o->success()) return make_error(Errc::not_found, s_.package + " is not installed: " + trim(output_of(*o)));
  auto words = split(trim(o->stdout_text), ' ');
  if (words.size() != 2) return make_error(Errc::parse, "dpkg-query said '" + o->stdout_text + "'");
  if (words[0] != "installed")
    return make_error(Errc::conflict, s_.package + " " + words[1] + " is " + words[0] + ", not installed");
  return words[1];
}

std::string AptHost::scratch() const { return only_our_source() + " -o Dir::State::Lists=" + quote(s_.scratch_lists); }

Status AptHost::refresh() {
  auto o = sh("rm -rf " + quote(s_.scratch_lists) + " && mkdir -p " + quote(s_.scratch_lists) +
                  " && apt-get update -q " + scratch() + " 2>&1",
              minutes(10));
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
  auto o = sh("apt-cache " + scratch() + " madison " + quote(s_.package), seconds(60));
  if (!o) return o.error();
  if (!o->success()) return update::apt_failure(output_of(*o), "apt-cache madison " + o->describe());
  return update::madison_versions(o->stdout_text, s_.source.uri);
}

Result<int> AptHost::compare_versions(const std::string& a, const std::string& b) {
  for (auto [op, value] : {std::pair{"lt", -1}, std::pair{"eq", 0}}) {
    auto o = sh("dpkg --compare-versions " + quote(a) + " " + op + " " + quote(b), seconds(10));
    if (!o) return o.error();
    if (o->success()) return value;
    if (o->exit_code != 1) return make_error(Errc::invalid_argument, "dpkg cannot compare '" + a + "' and '" + b + "'");
  }
  return 1;
}

Result<std::string> AptHost::keep_package(const std::string& version) {
  if (auto st = make_dirs(s_.packages_dir, 0700); !st) return st.error();
  auto arch = sh("dpkg --print-architecture", seconds(10));
  if (!arch || !arch->success()) return make_error(Errc::internal, "dpkg --print-architecture failed");
  const std::string file = s_.package + "_" + version + "_" + trim(arch->stdout_text) + ".deb";
  const std::string kept = path_join(s_.packages_dir, file);
  if (!path_exists(kept)) {
    // apt-get leaves what it downloaded in its cache (the apt front end
    // does not); else fetch it again while the archive still has it.
    std::string cached = path_join(s_.apt_archives, file);
    std::string cmd = path_exists(cached) ? "cp -f " + quote(cached) + " " + quote(kept + ".part")
                                          : "cd " + quote(s_.packages_dir) + " && apt-get download -q " +
                                                quote(s_.package + "=" + version) + " 2>&1 && mv -f " +
                                                quote(file) + " " + quote(kept + ".part");
    auto o = sh(cmd + " && mv -f " + quote(kept + ".part") + " " + quote(kept), minutes(10));
    if (!o) return o.error();
    if (!o->success()) return update::apt_failure(output_of(*o), "cannot get " + file + ": " + o->describe());
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
  auto up = sh("apt-get update -q " + only_our_source() + " -o APT::Get::List-Cleanup=0 2>&1", minutes(10));
  if (!up) return up.error();
  if (Error e = update::apt_failure(output_of(*up), "apt-get update " + up->describe());
      !up->success() || e.code == Errc::invalid_argument)
    return e;
  auto o = sh("apt-get install -y -q --no-install-recommends -o Dpkg::Options::=--force-confdef"
              " -o Dpkg::Options::=--force-confold " + quote(s_.package + "=" + version) + " 2>&1",
              minutes(30));
  if (!o) return o.error();
  if (!o->success()) return update::apt_failure(output_of(*o), "apt-get install " + o->describe());
  return {};
}

Status AptHost::install_file(const std::string& path) {
  auto o = sh("dpkg -i --force-confdef --force-confold " + quote(path) + " 2>&1", minutes(30));
  if (!o) return o.error();
  if (!o->success()) return make_error(Errc::io, "dpkg -i " + path + ": " + trim(output_of(*o)));
  return {};
}

int64_t AptHost::now() { return static_cast<int64_t>(::time(nullptr)); }

void AptHost::sleep(std::chrono::milliseconds d) { std::this_thread::sleep_for(d); }

}  // namespace bb::updater
