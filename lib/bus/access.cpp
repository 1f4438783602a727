#include "bus/access.h"

#include <grp.h>
#include <pwd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace bb::bus {

namespace {

// Names resolved with NSS at most once every kNameTtl: each lookup can be
// a round trip to systemd-userdbd (nss-systemd), and a busy queue asks for
// every call. A user or group made after the daemon started still counts,
// seconds later.
constexpr auto kNameTtl = std::chrono::seconds(5);

template <class Resolve>
std::optional<uint32_t> cached_id(char kind, const std::string& name, Resolve&& resolve) {
  using Clock = std::chrono::steady_clock;
  static std::mutex mu;
  static std::map<std::pair<char, std::string>, std::pair<std::optional<uint32_t>, Clock::time_point>> known;
  const auto now = Clock::now();
  {
    std::lock_guard lock(mu);
    if (auto it = known.find({kind, name}); it != known.end() && now - it->second.second < kNameTtl)
      return it->second.first;
  }
  const std::optional<uint32_t> id = resolve();
  std::lock_guard lock(mu);
  if (known.size() >= 256) known.clear();
  known[{kind, name}] = {id, now};
  return id;
}

std::optional<gid_t> resolve_group(const std::string& name) {
  if (name.empty()) return std::nullopt;
  struct group grp {};
  struct group* found = nullptr;
  std::vector<char> buf(16384);
  if (getgrnam_r(name.c_str(), &grp, buf.data(), buf.size(), &found) != 0 || !found) return std::nullopt;
  return found->gr_gid;
}

std::optional<uid_t> resolve_user(const std::string& name) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || !found) return std::nullopt;
  return found->pw_uid;
}

std::optional<gid_t> group_id(const std::string& name) {
  if (name.empty()) return std::nullopt;
  return cached_id('g', name, [&] { return resolve_group(name); });
}
std::optional<uid_t> user_id(const std::string& name) {
  return cached_id('u', name, [&] { return resolve_user(name); });
}

// A sender's ids, as the bus vouched for them. The bus records them when
// the sender connects and never reuses a unique name while it runs, so
// they are asked for (a round trip to the bus) once per sender and bus;
// the bus's id tells a restarted bus, which starts its names afresh.
class Senders {
 public:
  std::optional<Caller> find(const std::string& key) {
    std::lock_guard lock(mu_);
    auto it = known_.find(key);
    if (it == known_.end()) return std::nullopt;
    return it->second;
  }
  void add(const std::string& key, const Caller& c) {
    std::lock_guard lock(mu_);
    if (known_.size() >= 1024) known_.clear();
    known_[key] = c;
  }

 private:
  std::mutex mu_;
  std::unordered_map<std::string, Caller> known_;
};

Senders& senders() {
  static Senders s;
  return s;
}

// "<bus id>/<unique name>", or "" where the sender has no unique name.
std::string sender_key(sd_bus_message* m) {
  const char* sender = sd_bus_message_get_sender(m);
  sd_id128_t id;
  if (!sender || sender[0] != ':' || sd_bus_get_bus_id(sd_bus_message_get_bus(m), &id) < 0) return "";
  char text[SD_ID128_STRING_MAX];
  return std::string(sd_id128_to_string(id, text)) + "/" + sender;
}

}  // namespace

bool may_call(const Caller& caller, std::optional<gid_t> admin_gid, const std::vector<uid_t>& user_uids) {
  if (caller.uid == static_cast<uid_t>(-1)) return false;
  if (caller.uid == 0) return true;
  if (admin_gid && std::find(caller.gids.begin(), caller.gids.end(), *admin_gid) != caller.gids.end()) return true;
  return std::find(user_uids.begin(), user_uids.end(), caller.uid) != user_uids.end();
}

bool may_call(const Caller& caller, const Allowed& who) {
  if (caller.uid == 0) return true;  // before any name is looked up
  std::vector<uid_t> uids;
  for (const auto& name : who.users)
    if (auto uid = user_id(name)) uids.push_back(*uid);
  return may_call(caller, group_id(who.admin_group), uids);
}

Result<Caller> sender_of(sd_bus_message* m) {
  const std::string key = sender_key(m);
  if (!key.empty())
    if (auto known = senders().find(key)) return *known;
  sd_bus_creds* raw = nullptr;
  int r = sd_bus_query_sender_creds(m,
                                    SD_BUS_CREDS_UID | SD_BUS_CREDS_EUID | SD_BUS_CREDS_GID | SD_BUS_CREDS_EGID |
                                        SD_BUS_CREDS_SUPPLEMENTARY_GIDS | SD_BUS_CREDS_AUGMENT,
                                    &raw);
  std::unique_ptr<sd_bus_creds, sd_bus_creds* (*)(sd_bus_creds*)> creds(raw, sd_bus_creds_unref);
  if (r < 0) return make_error(Errc::permission_denied, "cannot tell who is calling: " + std::string(strerror(-r)));
  Caller c;
  if (sd_bus_creds_get_euid(raw, &c.uid) < 0 && sd_bus_creds_get_uid(raw, &c.uid) < 0)
    return make_error(Errc::permission_denied, "cannot tell the caller's user id");
  gid_t g;
  if (sd_bus_creds_get_egid(raw, &g) >= 0) c.gids.push_back(g);
  if (sd_bus_creds_get_gid(raw, &g) >= 0) c.gids.push_back(g);
  const gid_t* sup = nullptr;
  int n = sd_bus_creds_get_supplementary_gids(raw, &sup);
  for (int i = 0; i < n; ++i) c.gids.push_back(sup[i]);
  if (!key.empty()) senders().add(key, c);
  return c;
}

std::string describe(const Allowed& who) {
  std::string s = "root";
  if (!who.admin_group.empty()) s += (who.users.empty() ? " and group '" : ", group '") + who.admin_group + "'";
  for (size_t i = 0; i < who.users.size(); ++i)
    s += std::string(i + 1 == who.users.size() ? " and user '" : ", user '") + who.users[i] + "'";
  return s;
}

Status authorize(sd_bus_message* m, const Allowed& who) {
  auto caller = sender_of(m);
  if (!caller) return caller.error();
  if (may_call(*caller, who)) return {};
  const char* member = sd_bus_message_get_member(m);
  return make_error(Errc::permission_denied, std::string(member ? member : "this method") + " is for " +
                                                 describe(who) + "; the caller is uid " +
                                                 std::to_string(caller->uid));
}

}  // namespace bb::bus
