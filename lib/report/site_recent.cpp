#include "report/site_recent.h"

#include <utility>

#include "report/site_paths.h"
#include "util/file.h"
#include "util/text.h"

namespace bb::report {

RecentFiles::Group& RecentFiles::group(const std::string& repository, const std::string& ref,
                                       const std::string& sid) {
  GroupKey key{repository, ref, site::recent_group(sid)};
  auto it = groups_.find(key);
  if (it != groups_.end()) return it->second;
  Group& g = groups_[key];
  // The file as the last writer left it. One that cannot be read is
  // written again whole by the next flush of its group; until then its
  // series show their chunks without the newest points.
  auto j = nlohmann::json::parse(
      site::read_data_file(path_join(site_dir_, site::recent_data(repository, ref, std::get<2>(key)))), nullptr,
      false);
  if (!j.is_object() || j.value("schema", "") != site::kRecentSchema || !j.contains("series") ||
      !j["series"].is_object())
    return g;
  for (auto& [id, entry] : j["series"].items())
    if (entry.is_object()) g.entries.emplace(id, std::move(entry));
  return g;
}

const nlohmann::json* RecentFiles::find(const std::string& repository, const std::string& ref,
                                        const std::string& sid) {
  Group& g = group(repository, ref, sid);
  auto it = g.entries.find(sid);
  return it == g.entries.end() ? nullptr : &it->second;
}

nlohmann::json& RecentFiles::entry(const std::string& repository, const std::string& ref, const std::string& sid) {
  Group& g = group(repository, ref, sid);
  g.changed = true;
  nlohmann::json& e = g.entries[sid];
  if (!e.is_object()) e = nlohmann::json::object();
  return e;
}

void RecentFiles::erase(const std::string& repository, const std::string& ref, const std::string& sid) {
  Group& g = group(repository, ref, sid);
  if (g.entries.erase(sid)) g.changed = true;
}

Status RecentFiles::write_group(const GroupKey& key, Group& g,
                                const std::function<bool(const std::string& ref, const std::string& sid)>& live) {
  const auto& [repository, ref, number] = key;
  if (!g.checked)
    for (auto it = g.entries.begin(); it != g.entries.end();)
      it = live(ref, it->first) ? std::next(it) : g.entries.erase(it);
  g.checked = true;
  // The entries move into the file's JSON and back: a group of a thousand
  // benchmarks' ref holds about sixteen tails of up to 64 points.
  nlohmann::json file = nlohmann::json::object();
  file["schema"] = site::kRecentSchema;
  nlohmann::json& series = file["series"] = nlohmann::json::object();
  for (auto& [id, entry] : g.entries) series[id] = std::move(entry);
  const std::string text = site::data_file(site::recent_name(ref, number), file);
  for (auto& [id, entry] : g.entries) entry = std::move(series[id]);
  if (auto st = write_(site::recent_data(repository, ref, number), text); !st) return st;
  g.changed = false;
  return {};
}

Status RecentFiles::flush(const std::string& repository,
                          const std::function<bool(const std::string& ref, const std::string& sid)>& live) {
  for (auto it = groups_.lower_bound(GroupKey{repository, "", -1});
       it != groups_.end() && std::get<0>(it->first) == repository; ++it)
    if (it->second.changed)
      if (auto st = write_group(it->first, it->second, live); !st) return st;
  size_t held = 0;
  for (const auto& [key, g] : groups_) held += g.entries.size();
  if (held > entries_kept_) {
    // Only the unchanged may go: another repository's changes wait for
    // their own flush.
    for (auto it = groups_.begin(); it != groups_.end();) it = it->second.changed ? std::next(it) : groups_.erase(it);
  }
  return {};
}

}  // namespace bb::report
