// Who is calling a bus method, and may they. The D-Bus policy files
// (policy/org.benchbox.*.conf) are the first gate; this is the second, in
// the daemon, so that a missing or permissive policy (a private bus, a
// hand-edited file, a test) does not open the door. The rule, per method:
// root and members of the operators' group may call it, and so may the
// daemon users the method names (webhookd for Enqueue, runnerd for Claim,
// ...). Every other caller gets org.freedesktop.DBus.Error.AccessDenied.
#pragma once

#include <sys/types.h>
#include <systemd/sd-bus.h>

#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace bb::bus {

struct Caller {
  uid_t uid = static_cast<uid_t>(-1);
  std::vector<gid_t> gids;  // effective, real and supplementary
};

// Who besides root may call one method.
struct Allowed {
  std::string admin_group;         // its members may call everything; "" = none
  std::vector<std::string> users;  // these users may call this method too
};

// The decision itself, on resolved ids: root, a member of admin_gid, or one
// of user_uids.
bool may_call(const Caller& caller, std::optional<gid_t> admin_gid, const std::vector<uid_t>& user_uids);

// Root at once; else resolves the names with NSS, at most every 5 s (a
// user created after the daemon started counts within seconds), and
// decides. A name that does not resolve grants nothing.
bool may_call(const Caller& caller, const Allowed& who);

// The sender of a method call, as the bus vouches for it (not what the
// message claims): asked of the bus once per sender (unique name) and bus.
Result<Caller> sender_of(sd_bus_message* m);

// The sender may call `method`, or a permission_denied error that names who
// may ("Complete is for root, group 'benchbox-admin' and user
// 'benchbox-runner'; the caller is uid 65534").
Status authorize(sd_bus_message* m, const Allowed& who);

// "root, group 'G' and users 'a', 'b'": the refusal's wording, one place.
std::string describe(const Allowed& who);

}  // namespace bb::bus
