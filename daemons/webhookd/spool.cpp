#include "spool.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "util/file.h"
#include "util/json_read.h"
#include "util/json_text.h"
#include "util/text.h"

namespace bb::webhookd {

namespace {

constexpr const char* kSuffix = ".delivery";

// GitHub delivery ids are GUIDs; anything else is hashed so a hostile header
// can never name a path.
std::string file_safe(const std::string& id) {
  bool safe = !id.empty() && id.size() <= 100 && std::all_of(id.begin(), id.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_';
  });
  return safe ? id : sha256_hex(id).substr(0, 32);
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Status fsync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno_error("open " + dir, errno);
  int r = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (r < 0) return errno_error("fsync " + dir, err);
  return {};
}

}  // namespace

Result<std::string> Spool::put(const std::string& event, const std::string& delivery_id,
                               const std::string& body, int64_t received_usec, const std::string& replay_key) {
  if (auto st = make_dirs(dir_, 0750); !st) return st.error().with_context("spool");
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "%020lld", static_cast<long long>(received_usec));
  std::string path = path_join(dir_, std::string(stamp) + "-" + file_safe(delivery_id) + kSuffix);
  nlohmann::json head = {{"event", event},
                         {"delivery_id", delivery_id},
                         {"received", received_usec},
                         {"replay_key", replay_key}};
  std::string content = dump_json(head) + "\n" + body;
  if (auto st = write_file_atomic(path, content, 0640); !st) return st.error().with_context("spool");
  return path;
}

Result<std::vector<std::string>> Spool::list() const {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir_.c_str());
  if (!d) {
    if (errno == ENOENT) return out;
    return errno_error("open spool " + dir_, errno);
  }
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name[0] != '.' && ends_with(name, kSuffix)) out.push_back(path_join(dir_, name));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

Result<SpooledDelivery> Spool::load(const std::string& path) const {
  auto text = read_file(path);
  if (!text) return text.error();
  size_t nl = text->find('\n');
  if (nl == std::string::npos) return make_error(Errc::parse, path + ": no header line");
  SpooledDelivery d;
  d.path = path;
  try {
    auto head = nlohmann::json::parse(text->substr(0, nl));
    d.event = head.at("event").get<std::string>();
    d.delivery_id = head.at("delivery_id").get<std::string>();
    auto received = json_as<int64_t>(head.at("received"));
    if (!received) return make_error(Errc::parse, path + ": bad header: 'received' is not an integer");
    d.received_usec = *received;
    if (head.contains("replay_key")) d.replay_key = head.at("replay_key").get<std::string>();
  } catch (const std::exception& e) {
    return make_error(Errc::parse, path + ": bad header: " + e.what());
  }
  d.body = text->substr(nl + 1);
  return d;
}

Status Spool::remove(const std::string& path) {
  if (::unlink(path.c_str()) < 0 && errno != ENOENT) return errno_error("remove " + path, errno);
  return fsync_dir(dir_);
}

Status Spool::reject(const std::string& path) {
  std::string rejected = path_join(dir_, "rejected");
  if (auto st = make_dirs(rejected, 0750); !st) return st;
  std::string target = path_join(rejected, path.substr(path.rfind('/') + 1));
  if (::rename(path.c_str(), target.c_str()) < 0) return errno_error("move " + path + " to " + rejected, errno);
  if (auto st = fsync_dir(rejected); !st) return st;
  return fsync_dir(dir_);
}

}  // namespace bb::webhookd
