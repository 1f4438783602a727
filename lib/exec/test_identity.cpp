// A job's own identity: the range, the tree hand-over, the path check, and,
// as root (CI), a command really running as it and leaving nothing behind.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include "skip.h"
#include <cstdlib>
#include <fstream>

#include "exec/identity.h"
#include "exec/identity_lease.h"
#include "exec/pinned_runner.h"
#include "exec/test_scratch.h"
#include "util/file.h"

using namespace bb;
using namespace bb::exec;
using namespace std::chrono_literals;

namespace {

using bb::exec::test::Scratch;

}  // namespace

TEST_CASE("each job's identity is its own, in a range nothing else allocates") {
  CHECK(job_identity(1).uid == kJobIdentityBase + 1);
  CHECK(job_identity(1).gid == job_identity(1).uid);
  CHECK(job_identity(2).uid != job_identity(1).uid);
  CHECK(job_identity(65536 + 7).uid == job_identity(7).uid);
  CHECK(job_identity(65535).uid < 0x80000000u);  // clear of signed-int trouble
  CHECK(job_identity(0).uid > 0x6FFFFFFFu);      // above nspawn's container ranges
  CHECK(describe(job_identity(3)).find("uid 2113929219") == 0);
}

TEST_CASE("a leased identity is one job's alone on this host while it is held") {
  Scratch s;
  const std::string locks = s.dir + "/locks";
  const uid_t own = job_identity(7).uid;
  auto a = lease_job_identity(7, locks);
  REQUIRE(a.ok());
  CHECK(a->identity().uid == own);
  CHECK(a->identity().gid == own);
  // Another runner on the host with a job 7 of its own: the next uid.
  auto b = lease_job_identity(7, locks);
  REQUIRE(b.ok());
  CHECK(b->identity().uid == own + 1);
  // Another process too (the lock is the kernel's, not this process's).
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    auto c = lease_job_identity(7, locks);
    uid_t got = c.ok() ? c->identity().uid : 0;
    ssize_t w = ::write(fds[1], &got, sizeof got);
    ::_exit(w == sizeof got ? 0 : 1);
  }
  uid_t from_child = 0;
  REQUIRE(::read(fds[0], &from_child, sizeof from_child) == sizeof from_child);
  ::waitpid(child, nullptr, 0);
  ::close(fds[0]);
  ::close(fds[1]);
  CHECK(from_child == own + 2);
  // Released, the job's own uid is free again; the child's went with it.
  a = IdentityLease();
  auto again = lease_job_identity(7, locks);
  REQUIRE(again.ok());
  CHECK(again->identity().uid == own);
  auto third = lease_job_identity(7, locks);
  REQUIRE(third.ok());
  CHECK(third->identity().uid == own + 2);
  // The range wraps at its end.
  auto last = lease_job_identity(65535, locks);
  auto wrapped = lease_job_identity(65535, locks);
  REQUIRE(last.ok());
  REQUIRE(wrapped.ok());
  CHECK(last->identity().uid == kJobIdentityBase + 65535);
  CHECK(wrapped->identity().uid == kJobIdentityBase);
}

TEST_CASE("a work tree behind a directory others may not pass is named") {
  Scratch s;
  REQUIRE(make_dirs(s.dir + "/a/b/work"));
  REQUIRE(::chmod(s.dir.c_str(), 0755) == 0);
  REQUIRE(::chmod((s.dir + "/a").c_str(), 0750) == 0);
  auto st = reachable_by_others(s.dir + "/a/b/work");
  REQUIRE_FALSE(st);
  CHECK(st.error().message == s.dir + "/a is mode 0750: the job's own uid cannot pass through it to its work tree");
  REQUIRE(::chmod((s.dir + "/a").c_str(), 0711) == 0);
  CHECK(reachable_by_others(s.dir + "/a/b/work"));
}

TEST_CASE("a path in a job's tree is used only if it stays inside") {
  Scratch s;
  REQUIRE(make_dirs(s.dir + "/tree/out"));
  std::ofstream(s.dir + "/tree/out/r.json") << "{}";
  std::ofstream(s.dir + "/secret") << "x";
  REQUIRE(::symlink((s.dir + "/secret").c_str(), (s.dir + "/tree/leak.json").c_str()) == 0);
  REQUIRE(::symlink("/etc", (s.dir + "/tree/etc").c_str()) == 0);
  REQUIRE(::symlink("out/r.json", (s.dir + "/tree/alias.json").c_str()) == 0);
  auto ok = inside(s.dir + "/tree", s.dir + "/tree/out/r.json");
  REQUIRE(ok);
  CHECK(*ok == s.dir + "/tree/out/r.json");
  CHECK(inside(s.dir + "/tree", s.dir + "/tree/alias.json"));  // a link within the tree is fine
  auto leak = inside(s.dir + "/tree", s.dir + "/tree/leak.json");
  REQUIRE_FALSE(leak);
  CHECK(leak.error().code == Errc::permission_denied);
  CHECK(leak.error().message.find("leads out of") != std::string::npos);
  CHECK_FALSE(inside(s.dir + "/tree", s.dir + "/tree/etc/passwd"));
  CHECK_FALSE(inside(s.dir + "/tree", s.dir + "/tree/../secret"));
  CHECK(inside(s.dir + "/tree", s.dir + "/tree/missing").error().code == Errc::not_found);
}

TEST_CASE("as root: a command runs as the job's identity, with nothing of root's, and leaves nothing behind", "[root]") {
  if (!can_change_identity()) {
    BB_SKIP("not root: the identity drop cannot be tried here");
  }
  Scratch s;
  const Identity id = job_identity(4242);
  REQUIRE(make_dirs(s.dir + "/work/tree"));
  std::ofstream(s.dir + "/work/tree/src.c") << "int main(){}";
  std::ofstream(s.dir + "/outside") << "root's";
  REQUIRE(::chmod((s.dir + "/outside").c_str(), 0644) == 0);
  REQUIRE(::chmod(s.dir.c_str(), 0755) == 0);
  REQUIRE(::symlink((s.dir + "/outside").c_str(), (s.dir + "/work/tree/link").c_str()) == 0);
  REQUIRE(hand_over(s.dir + "/work", id));
  struct stat st {};
  REQUIRE(::stat((s.dir + "/work/tree/src.c").c_str(), &st) == 0);
  CHECK(st.st_uid == id.uid);
  REQUIRE(::stat((s.dir + "/outside").c_str(), &st) == 0);
  CHECK(st.st_uid == 0);  // the symlink was not followed
  REQUIRE(::stat((s.dir + "/work").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);

  Command c;
  c.cwd = s.dir + "/work/tree";
  c.identity = id;
  c.timeout = 20s;
  c.shell =
      "id -u; id -g; id -G; grep NoNewPrivs /proc/self/status; "
      "touch mine && echo wrote-own; "
      "echo x >> " + s.dir + "/outside && echo wrote-outside; "
      "echo x >> link && echo wrote-through-link; "
      "setsid sleep 300 </dev/null >/dev/null 2>&1 & "
      "sleep 0.2; true";
  PinnedChildRunner runner(1s);
  auto out = runner.run(c, nullptr);
  REQUIRE(out);
  INFO(out->stdout_text << out->stderr_text);
  CHECK(out->success());
  const std::string uid = std::to_string(id.uid);
  CHECK(out->stdout_text.find(uid + "\n" + uid + "\n" + uid + "\n") == 0);  // uid, gid, groups: only its own
  CHECK(out->stdout_text.find("NoNewPrivs:\t1") != std::string::npos);
  CHECK(out->stdout_text.find("wrote-own") != std::string::npos);
  CHECK(out->stdout_text.find("wrote-outside") == std::string::npos);
  CHECK(out->stdout_text.find("wrote-through-link") == std::string::npos);
  auto outside = read_file(s.dir + "/outside");
  REQUIRE(outside);
  CHECK(*outside == "root's");
  CHECK(live_processes_of(id.uid).empty());  // the setsid'd sleep is gone too

  // A job cannot reach into another job's tree.
  Command other = c;
  other.identity = job_identity(4243);
  other.cwd = "/";
  other.shell = "ls " + s.dir + "/work/tree && echo listed";
  auto o = runner.run(other, nullptr);
  REQUIRE(o);
  CHECK_FALSE(o->success());
  CHECK(o->stdout_text.find("listed") == std::string::npos);
}

TEST_CASE("as root: a command's network is none, its own loopback, or the host's", "[root]") {
  if (!can_change_identity()) {
    BB_SKIP("not root: network namespaces cannot be made here");
  }
  // A listener of the host's, on its loopback.
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  struct sockaddr_in addr {};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(fd, 8) == 0);
  socklen_t len = sizeof addr;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  const std::string port = std::to_string(ntohs(addr.sin_port));
  // Reaches the host's listener? Can it talk to itself on 127.0.0.1?
  const std::string probe =
      "python3 -c \"\nimport socket\n"
      "try:\n  socket.create_connection(('127.0.0.1', " + port + "), timeout=2); print('host: reached')\n"
      "except OSError as e: print('host: not reached')\n"
      "try:\n  s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1)\n"
      "  socket.create_connection(s.getsockname(), timeout=2); print('self: reached')\n"
      "except OSError as e: print('self: not reached')\n\"";
  PinnedChildRunner runner(1s);
  auto run = [&](Command::Network network) {
    Command c;
    c.shell = probe;
    c.identity = job_identity(4244);
    c.network = network;
    c.timeout = 20s;
    auto o = runner.run(c, nullptr);
    REQUIRE(o);
    INFO(o->stderr_text);
    CHECK(o->success());
    return o->stdout_text;
  };
  CHECK(run(Command::Network::full) == "host: reached\nself: reached\n");
  CHECK(run(Command::Network::loopback) == "host: not reached\nself: reached\n");
  CHECK(run(Command::Network::none) == "host: not reached\nself: not reached\n");
  ::close(fd);
}
