#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "cache/build_cache.h"
#include "util/file.h"

using namespace bb;

namespace {

struct Dir {
  std::string path;
  Dir() {
    char t[] = "/tmp/bb-build-cache-XXXXXX";
    path = ::mkdtemp(t);
  }
  ~Dir() { std::system(("rm -rf " + path).c_str()); }
};

// A "built" tree: a source file, a binary of `bytes` bytes, a symlink.
std::string built_tree(const std::string& root, const std::string& name, size_t bytes) {
  const std::string t = root + "/" + name;
  REQUIRE(make_dirs(t + "/out").ok());
  REQUIRE(write_file_atomic(t + "/main.c", "int main(){}\n").ok());
  REQUIRE(write_file_atomic(t + "/out/bench", std::string(bytes, 'x')).ok());
  ::chmod((t + "/out/bench").c_str(), 0755);
  REQUIRE(::symlink("out/bench", (t + "/bench").c_str()) == 0);
  return t;
}

}  // namespace

TEST_CASE("build key: the tree id, the build commands in order, the environment") {
  const auto k = cache::build_key("tree1", {"make", "make docs"}, "env1");
  CHECK(k.size() == 64);
  CHECK(k == cache::build_key("tree1", {"make", "make docs"}, "env1"));
  CHECK(k != cache::build_key("tree2", {"make", "make docs"}, "env1"));
  CHECK(k != cache::build_key("tree1", {"make docs", "make"}, "env1"));
  CHECK(k != cache::build_key("tree1", {"make", "make docs"}, "env2"));
  CHECK(cache::build_key("t", {"a b"}, "e") != cache::build_key("t", {"a", "b"}, "e"));
}

TEST_CASE("build cache: a miss, a store, a hit that restores the tree as built") {
  Dir d;
  FakeClock clock;
  cache::BuildCache c(d.path + "/cache", 1 << 20, clock);
  const std::string key = cache::build_key("t", {"make"}, "e");
  auto miss = c.restore(key, d.path + "/w1");
  REQUIRE(miss.ok());
  CHECK_FALSE(*miss);
  auto stored = c.store(key, built_tree(d.path, "built", 1000));
  REQUIRE(stored.ok());
  CHECK(stored->stored);
  auto hit = c.restore(key, d.path + "/w2");
  REQUIRE(hit.ok());
  CHECK(*hit);
  CHECK(read_file(d.path + "/w2/out/bench").value() == std::string(1000, 'x'));
  struct stat st {};
  REQUIRE(::stat((d.path + "/w2/out/bench").c_str(), &st) == 0);
  CHECK((st.st_mode & 0111) != 0);  // still executable
  char link[64] = {};
  REQUIRE(::readlink((d.path + "/w2/bench").c_str(), link, sizeof link - 1) > 0);
  CHECK(std::string(link) == "out/bench");  // a symlink, not a copy
  auto list = c.entries();
  REQUIRE(list.ok());
  REQUIRE(list->size() == 1);
  CHECK(list->front().bytes == 1000 + 13);
  CHECK_FALSE(c.restore("../../etc", d.path + "/w3").ok());
}

TEST_CASE("build cache: bounded by size, least recently used evicted first") {
  Dir d;
  FakeClock clock;
  cache::BuildCache c(d.path + "/cache", 3000, clock);
  auto key = [](int i) { return cache::build_key("t" + std::to_string(i), {"make"}, "e"); };
  for (int i = 0; i < 3; ++i) {
    REQUIRE(c.store(key(i), built_tree(d.path, "b" + std::to_string(i), 900)).ok());
    clock.advance_seconds(10);
  }
  // Entry 0 is used again: entry 1 is now the least recently used.
  REQUIRE(c.restore(key(0), d.path + "/w0").value());
  clock.advance_seconds(10);
  auto s = c.store(key(3), built_tree(d.path, "b3", 900));
  REQUIRE(s.ok());
  CHECK(s->stored);
  CHECK(s->evicted == std::vector<std::string>{key(1)});
  CHECK_FALSE(c.restore(key(1), d.path + "/w1").value());
  CHECK(c.restore(key(0), d.path + "/w0b").value());
  // Larger than the whole cache: not stored, and nothing evicted for it.
  auto big = c.store(key(9), built_tree(d.path, "big", 5000));
  REQUIRE(big.ok());
  CHECK_FALSE(big->stored);
  CHECK(big->why_not.find("larger than the cache") != std::string::npos);
  CHECK(c.entries().value().size() == 3);
}

TEST_CASE("build cache: a half-written entry is a miss, never a broken tree") {
  Dir d;
  FakeClock clock;
  cache::BuildCache c(d.path + "/cache", 1 << 20, clock);
  const std::string key = cache::build_key("t", {"make"}, "e");
  REQUIRE(make_dirs(d.path + "/cache/" + key + "/tree").ok());  // no meta.json: the store died
  CHECK_FALSE(c.restore(key, d.path + "/w").value());
  CHECK_FALSE(path_exists(d.path + "/w"));
  CHECK(c.entries().value().empty());
}
