#include "cache/build_cache.h"

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "util/file.h"
#include "util/text.h"

namespace bb::cache {

namespace fs = std::filesystem;

namespace {

constexpr const char* kMeta = "meta.json";

std::string human(uint64_t bytes) {
  const double gib = double(bytes) / (1024.0 * 1024 * 1024);
  char buf[48];
  if (gib >= 1) std::snprintf(buf, sizeof buf, "%.1f GiB", gib);
  else std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / (1024.0 * 1024));
  return buf;
}

bool valid_key(const std::string& key) {
  return key.size() == 64 && std::all_of(key.begin(), key.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

Status write_meta(const std::string& entry_dir, const Entry& e) {
  nlohmann::json j = {{"key", e.key}, {"bytes", e.bytes}, {"last_used", e.last_used}};
  return write_file_atomic(path_join(entry_dir, kMeta), j.dump() + "\n");
}

void remove_tree(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

Status copy_tree(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  if (ec) return make_error(Errc::io, "copy " + from + " to " + to + ": " + ec.message());
  return {};
}

}  // namespace

std::string build_key(const std::string& tree_id, const std::vector<std::string>& builds,
                      const std::string& environment_key) {
  nlohmann::json j = {{"tree", tree_id}, {"builds", builds}, {"environment", environment_key}};
  return sha256_hex(j.dump());
}

uint64_t tree_bytes(const std::string& path) {
  uint64_t total = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code e2;
    if (it->is_regular_file(e2) && !it->is_symlink(e2)) total += it->file_size(e2);
  }
  return total;
}

BuildCache::BuildCache(std::string dir, uint64_t max_bytes, const Clock& clock)
    : dir_(std::move(dir)), max_bytes_(max_bytes), clock_(clock) {}

Result<bool> BuildCache::restore(const std::string& key, const std::string& dest) {
  if (!valid_key(key)) return make_error(Errc::invalid_argument, "not a build cache key: '" + key + "'");
  const std::string entry = path_join(dir_, key);
  auto meta = read_file(path_join(entry, kMeta), 1 << 16);
  if (!meta) return false;  // absent, or a store that never finished
  auto j = nlohmann::json::parse(*meta, nullptr, false);
  if (!j.is_object() || !j.contains("bytes") || !j["bytes"].is_number_unsigned()) {
    remove_tree(entry);
    return false;
  }
  if (auto st = copy_tree(path_join(entry, "tree"), dest); !st) {
    remove_tree(entry);
    remove_tree(dest);
    return st.error().with_context("build cache entry " + key.substr(0, 12) + " (removed)");
  }
  Entry e{key, j["bytes"].get<uint64_t>(), clock_.now_unix()};
  (void)write_meta(entry, e);  // a failed touch only makes it older for eviction
  return true;
}

Result<Stored> BuildCache::store(const std::string& key, const std::string& tree) {
  if (!valid_key(key)) return make_error(Errc::invalid_argument, "not a build cache key: '" + key + "'");
  Stored out;
  const uint64_t bytes = tree_bytes(tree);
  if (bytes > max_bytes_) {
    out.why_not = "the built tree is larger than the cache (" + human(bytes) + " > " + human(max_bytes_) + ")";
    return out;
  }
  if (auto st = make_dirs(dir_); !st) return st.error();
  // Built beside the entries and renamed in: an entry is complete or absent.
  const std::string staging = path_join(dir_, ".staging-" + key);
  remove_tree(staging);
  if (auto st = make_dirs(staging); !st) return st.error();
  if (auto st = copy_tree(tree, path_join(staging, "tree")); !st) {
    remove_tree(staging);
    return st.error();
  }
  if (auto st = write_meta(staging, Entry{key, bytes, clock_.now_unix()}); !st) {
    remove_tree(staging);
    return st.error();
  }
  const std::string entry = path_join(dir_, key);
  remove_tree(entry);
  std::error_code ec;
  fs::rename(staging, entry, ec);
  if (ec) {
    remove_tree(staging);
    return make_error(Errc::io, "rename " + staging + " to " + entry + ": " + ec.message());
  }
  out.stored = true;

  auto all = entries();
  if (!all) return all.error();
  uint64_t total = 0;
  for (const auto& e : *all) total += e.bytes;
  for (const auto& e : *all) {  // least recently used first; the new entry is the newest
    if (total <= max_bytes_) break;
    if (e.key == key) continue;
    remove_tree(path_join(dir_, e.key));
    total -= std::min(total, e.bytes);
    out.evicted.push_back(e.key);
  }
  return out;
}

Result<std::vector<Entry>> BuildCache::entries() const {
  std::vector<Entry> out;
  std::error_code ec;
  if (!fs::exists(dir_, ec)) return out;
  for (auto it = fs::directory_iterator(dir_, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!valid_key(name)) continue;
    auto meta = read_file(path_join(it->path().string(), kMeta), 1 << 16);
    if (!meta) continue;
    auto j = nlohmann::json::parse(*meta, nullptr, false);
    if (!j.is_object()) continue;
    out.push_back(Entry{name, j.value("bytes", uint64_t(0)), j.value("last_used", int64_t(0))});
  }
  if (ec) return make_error(Errc::io, "list " + dir_ + ": " + ec.message());
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
    return a.last_used != b.last_used ? a.last_used < b.last_used : a.key < b.key;
  });
  return out;
}

}  // namespace bb::cache
