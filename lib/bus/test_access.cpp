// The caller check's decision, without a bus. Name resolution uses users
// and groups every Debian system has (root, nobody, nogroup).
#include <catch2/catch.hpp>

#include <grp.h>
#include <pwd.h>

#include "bus/access.h"

using namespace bb::bus;

namespace {
Caller caller(uid_t uid, std::vector<gid_t> gids = {}) { return Caller{uid, std::move(gids)}; }
}  // namespace

TEST_CASE("root may call anything; an unknown caller nothing") {
  CHECK(may_call(caller(0), std::nullopt, {}));
  CHECK_FALSE(may_call(caller(static_cast<uid_t>(-1)), gid_t{100}, {static_cast<uid_t>(-1)}));
  CHECK_FALSE(may_call(caller(1000, {1000}), std::nullopt, {}));
}

TEST_CASE("the operators' group counts in any of the caller's groups") {
  CHECK(may_call(caller(1000, {1000, 27, 990}), gid_t{990}, {}));
  CHECK_FALSE(may_call(caller(1000, {1000, 27}), gid_t{990}, {}));
  // No operators' group configured: membership of anything grants nothing.
  CHECK_FALSE(may_call(caller(1000, {990}), std::nullopt, {}));
}

TEST_CASE("a method's own users may call it, and only they") {
  CHECK(may_call(caller(991, {991}), std::nullopt, {990, 991}));
  CHECK_FALSE(may_call(caller(992, {991}), std::nullopt, {990, 991}));
}

TEST_CASE("names resolve through NSS; a name that does not resolve grants nothing") {
  struct passwd* nobody = getpwnam("nobody");
  REQUIRE(nobody != nullptr);
  const uid_t uid = nobody->pw_uid;
  CHECK(may_call(caller(uid, {nobody->pw_gid}), Allowed{"", {"nobody"}}));
  CHECK_FALSE(may_call(caller(uid, {nobody->pw_gid}), Allowed{"", {"benchbox-no-such-user"}}));
  CHECK_FALSE(may_call(caller(uid, {nobody->pw_gid}), Allowed{"benchbox-no-such-group", {}}));
  struct group* nogroup = getgrgid(nobody->pw_gid);
  REQUIRE(nogroup != nullptr);
  CHECK(may_call(caller(uid, {nobody->pw_gid}), Allowed{nogroup->gr_name, {}}));
  CHECK(may_call(caller(0), Allowed{"benchbox-no-such-group", {}}));
}

TEST_CASE("the refusal names who may call") {
  CHECK(describe(Allowed{"", {}}) == "root");
  CHECK(describe(Allowed{"benchbox-admin", {}}) == "root and group 'benchbox-admin'");
  CHECK(describe(Allowed{"benchbox-admin", {"benchbox-runner"}}) ==
        "root, group 'benchbox-admin' and user 'benchbox-runner'");
  CHECK(describe(Allowed{"ops", {"a", "b"}}) == "root, group 'ops', user 'a' and user 'b'");
}
