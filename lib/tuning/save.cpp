#include "tuning/save.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>

#include "util/fd.h"
#include "util/json_read.h"
#include "util/file.h"

namespace bb::tuning {

bool SaveFile::merge(const std::vector<SaveEntry>& more) {
  bool added = false;
  for (const auto& e : more) {
    bool known = false;
    for (const auto& have : entries) known = known || (have.kind == e.kind && have.target == e.target);
    if (!known) {
      entries.push_back(e);
      added = true;
    }
  }
  return added;
}

Result<std::optional<SaveFile>> load_save(const std::string& path) {
  if (!path_exists(path)) return std::optional<SaveFile>();
  auto text = read_file(path, 16 << 20);
  if (!text) return text.error().with_context("tuning save file");
  SaveFile save;
  try {
    auto j = nlohmann::json::parse(*text);
    if (j.value("version", 0) != 1) return make_error(Errc::parse, path + ": unknown save file version");
    auto saved_at = json_as<int64_t>(j.at("saved_at"));
    if (!saved_at) return make_error(Errc::parse, path + ": saved_at is not an integer");
    save.saved_at = *saved_at;
    for (const auto& e : j.at("entries"))
      save.entries.push_back({e.at("kind").get<std::string>(), e.at("target").get<std::string>(),
                              e.at("original").get<std::string>(), e.value("item", "")});
    for (const auto& n : j.value("applied_ok", nlohmann::json::array())) save.applied_ok.insert(n.get<std::string>());
  } catch (const nlohmann::json::exception& e) {
    return make_error(Errc::parse, path + ": " + e.what());
  }
  for (const auto& e : save.entries)
    if (e.kind != "file" && e.kind != "cgroup_dir" && e.kind != "allowed_cpus" && e.kind != "unit_active")
      return make_error(Errc::parse, path + ": unknown entry kind '" + e.kind + "' for " + e.target);
  return std::optional<SaveFile>(std::move(save));
}

Status store_save(const std::string& path, const SaveFile& save) {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& e : save.entries)
    entries.push_back({{"kind", e.kind}, {"target", e.target}, {"original", e.original}, {"item", e.item}});
  nlohmann::json j = {{"version", 1},
                      {"saved_at", save.saved_at},
                      {"entries", entries},
                      {"applied_ok", save.applied_ok}};
  auto slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0)
    if (auto st = make_dirs(path.substr(0, slash), 0700); !st) return st;
  return write_file_atomic(path, j.dump(2) + "\n", 0600);
}

Status remove_save(const std::string& path) {
  if (::unlink(path.c_str()) < 0 && errno != ENOENT) return errno_error("remove " + path, errno);
  // The removal must be durable too, or a power cut could restore twice
  // (harmless) or, worse, resurrect a save from an older Apply.
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.valid()) ::fsync(fd.get());
  return {};
}

}  // namespace bb::tuning
