#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/cpumask.h"
#include "sys/host.h"
#include "sys/memory_fs.h"
#include "sys/sysfs.h"
#include "util/file.h"

using namespace bb;
using namespace bb::sys;

TEST_CASE("cpu masks round-trip through the kernel syntax") {
  CHECK(parse_cpu_mask("3\n").value() == std::vector<int>{0, 1});
  CHECK(parse_cpu_mask("00000001,00000000").value() == std::vector<int>{32});
  CHECK(parse_cpu_mask("ff,ffffffff").value().size() == 40);
  CHECK(parse_cpu_mask("0").value().empty());
  CHECK(format_cpu_mask({0, 1}) == "3");
  CHECK(format_cpu_mask({32}) == "1,00000000");
  CHECK(format_cpu_mask({}) == "0");
  CHECK(format_cpu_mask({4, 5, 6, 7}) == "f0");
  for (const char* bad : {"", "xyz", "1,,2", "123456789"}) CHECK_FALSE(parse_cpu_mask(bad).ok());
  CHECK(cpus_intersect({0, 3}, {3}));
  CHECK_FALSE(cpus_intersect({0, 1}, {2, 3}));
}

TEST_CASE("the kernel command line is read like the kernel does") {
  std::string cmdline = "ro isolcpus=2,3 nohz_full=3 quiet -- isolcpus=9";
  CHECK(cmdline_arg(cmdline, "isolcpus").value == "2,3");
  CHECK(cmdline_arg(cmdline, "nohz_full").value == "3");
  CHECK(cmdline_arg(cmdline, "quiet").present);
  CHECK_FALSE(cmdline_arg(cmdline, "rcu_nocbs").present);
  CHECK_FALSE(cmdline_arg(cmdline, "nohz").present);
}

TEST_CASE("the real filesystem under a root dir reads, writes, never creates") {
  char tmpl[] = "/tmp/bb-sys-XXXXXX";
  std::string root = ::mkdtemp(tmpl);
  REQUIRE(make_dirs(root + "/proc/sys/vm").ok());
  REQUIRE(make_dirs(root + "/sys/devices/system/cpu").ok());
  REQUIRE(write_file_atomic(root + "/proc/sys/vm/swappiness", "60\n").ok());
  REQUIRE(write_file_atomic(root + "/sys/devices/system/cpu/online", "0-3\n").ok());
  REQUIRE(make_dirs(root + "/proc/sys/kernel").ok());
  REQUIRE(write_file_atomic(root + "/proc/sys/kernel/osrelease", "6.1.0-test\n").ok());
  auto fs = open_root(root);
  CHECK(read_value(*fs, "/proc/sys/vm/swappiness").value() == "60");
  REQUIRE(fs->write("/proc/sys/vm/swappiness", "1").ok());
  CHECK(fs->read("/proc/sys/vm/swappiness").value() == "1\n");
  auto missing = fs->write("/proc/sys/vm/nope", "1");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == Errc::not_found);
  CHECK_FALSE(path_exists(root + "/proc/sys/vm/nope"));
  CHECK(fs->list("/proc/sys").value() == std::vector<std::string>{"kernel", "vm"});
  CHECK(fs->is_dir("/proc/sys"));
  CHECK(online_cpus(*fs).value() == std::vector<int>{0, 1, 2, 3});
  CHECK(read_host_info(*fs).value().kernel == "6.1.0-test");
  CHECK(read_host_info(*fs).value().cpus == 4);
  CHECK(read_host_info(*fs).value().memory_bytes == 0);  // no /proc/meminfo in this tree
  REQUIRE(write_file_atomic(root + "/proc/meminfo", "MemTotal:       16303412 kB\nMemFree:  1 kB\n").ok());
  CHECK(read_host_info(*fs).value().memory_bytes == 16303412ull * 1024);
  // A cgroup others can reach, whatever the creator's umask (tunerd's is 0077).
  const mode_t old_mask = ::umask(0077);
  REQUIRE(fs->make_dir("/proc/x").ok());
  ::umask(old_mask);
  struct stat st {};
  REQUIRE(::stat((root + "/proc/x").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0755);
  REQUIRE(fs->remove_dir("/proc/x").ok());
  std::system(("rm -rf " + root).c_str());
}

TEST_CASE("the in-memory tree simulates read-only files and cgroupfs") {
  MemoryFs m;
  m.put("/proc/sys/vm/swappiness", "60\n");
  m.put("/sys/fs/cgroup/cpuset/cpuset.cpus", "0-3\n");
  m.put("/sys/fs/cgroup/cpuset/tasks", "1\n2\n");
  m.set_read_only("/proc/sys/vm/swappiness");
  auto w = m.write("/proc/sys/vm/swappiness", "1");
  REQUIRE_FALSE(w.ok());
  CHECK(w.error().message.find("Read-only") != std::string::npos);
  m.fail_writes("/sys/fs/cgroup/cpuset/cpuset.cpus", EINVAL);
  CHECK(m.write("/sys/fs/cgroup/cpuset/cpuset.cpus", "9").error().code == Errc::invalid_argument);

  REQUIRE(m.make_dir("/sys/fs/cgroup/cpuset/g").ok());
  CHECK(m.exists("/sys/fs/cgroup/cpuset/g/cpuset.mems"));
  REQUIRE(m.write("/sys/fs/cgroup/cpuset/g/tasks", "2").ok());
  CHECK(m.read("/sys/fs/cgroup/cpuset/tasks").value() == "1\n");
  CHECK(m.read("/sys/fs/cgroup/cpuset/g/tasks").value() == "2\n");
  CHECK_FALSE(m.remove_dir("/sys/fs/cgroup/cpuset/g").ok());  // busy: it has a task
  REQUIRE(m.write("/sys/fs/cgroup/cpuset/tasks", "2").ok());
  REQUIRE(m.remove_dir("/sys/fs/cgroup/cpuset/g").ok());
  CHECK_FALSE(m.exists("/sys/fs/cgroup/cpuset/g"));
  CHECK(m.list("/sys/fs/cgroup/cpuset").value() == std::vector<std::string>{"cpuset.cpus", "tasks"});
}
