#include <catch2/catch.hpp>

#include "tuning/profile.h"

using namespace bb;
using namespace bb::tuning;

TEST_CASE("an empty profile turns every item on with documented defaults") {
  auto p = parse_profile("", "t.yml");
  REQUIRE(p.ok());
  for (const auto& name : item_names()) CHECK(p->enabled(name));
  CHECK(p->item("aslr").value == "0");
  CHECK(p->item("governor").value == "performance");
  CHECK(p->item("thp").value == "never");
  CHECK(p->restore_on_stop);
  CHECK_FALSE(p->apply_on_start);
}

TEST_CASE("a full profile parses, with shorthands") {
  auto p = parse_profile(R"(
cpus:
  housekeeping: "0-1"
  benchmark: "2-3"
restore_on_stop: false
apply_on_start: true
items:
  aslr: 2
  swappiness: {value: 1}
  smt: false
  governor: {enabled: true, value: performance}
  kernel_cmdline: {enabled: false}
)", "t.yml");
  REQUIRE(p.ok());
  CHECK(p->housekeeping_cpus == "0-1");
  CHECK(p->benchmark_cpus == "2-3");
  CHECK_FALSE(p->restore_on_stop);
  CHECK(p->apply_on_start);
  CHECK(p->item("aslr").value == "2");
  CHECK(p->item("swappiness").value == "1");
  CHECK_FALSE(p->enabled("smt"));
  CHECK_FALSE(p->enabled("kernel_cmdline"));
  CHECK(p->enabled("thp"));
}

TEST_CASE("bad profiles are refused with file, line and key") {
  struct Case {
    const char* text;
    const char* expect;
  };
  for (const auto& c : std::vector<Case>{
           {"items:\n  swapiness: 1\n", "t.yml:2:3: items: unknown key 'swapiness'"},
           {"items:\n  aslr: 3\n", "t.yml:2:9: items.aslr: expected an integer 0-2, got '3'"},
           {"items:\n  thp: sometimes\n", "'sometimes' is not one of always, madvise, never"},
           {"items:\n  smt: off\n", "items.smt: expected true, false or a mapping"},
           {"items:\n  smt: {value: 1}\n", "unknown key 'value'"},
           {"cpus:\n  benchmark: \"3-1\"\n", "t.yml:2:14: cpus.benchmark: bad CPU list '3-1'"},
           {"restore_on_stop: maybe\n", "t.yml:1:18: restore_on_stop: expected true or false"},
           {"items: [1, 2\n", "t.yml:"},
       }) {
    auto p = parse_profile(c.text, "t.yml");
    INFO(c.text);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message.find(c.expect) != std::string::npos);
  }
}

TEST_CASE("CPU roles default to the last CPU and are checked against the online CPUs") {
  Profile p = default_profile();
  auto r = resolve_roles(p, {0, 1, 2, 3});
  REQUIRE(r.ok());
  CHECK(r->benchmark == std::vector<int>{3});
  CHECK(r->housekeeping == std::vector<int>{0, 1, 2});

  p.benchmark_cpus = "2-3";
  CHECK(resolve_roles(p, {0, 1, 2, 3})->housekeeping == std::vector<int>{0, 1});
  p.benchmark_cpus = "";
  p.housekeeping_cpus = "0";
  CHECK(resolve_roles(p, {0, 1, 2, 3})->benchmark == std::vector<int>{1, 2, 3});

  auto fails = [](const char* hk, const char* bench, std::vector<int> online, const char* expect) {
    Profile q = default_profile();
    q.housekeeping_cpus = hk;
    q.benchmark_cpus = bench;
    auto res = resolve_roles(q, online);
    INFO(expect);
    REQUIRE_FALSE(res.ok());
    CHECK(res.error().message.find(expect) != std::string::npos);
  };
  fails("", "7", {0, 1, 2, 3}, "benchmark: CPU 7 is not online (online: 0-3)");
  fails("0-1", "1-2", {0, 1, 2, 3}, "CPU 1 is both a housekeeping and a benchmark CPU");
  fails("", "0-3", {0, 1, 2, 3}, "no housekeeping CPU is left");
  fails("", "", {0}, "no housekeeping CPU is left");
  fails("0-3", "", {0, 1, 2, 3}, "no benchmark CPU is left");
  fails("x", "", {0, 1}, "housekeeping: bad CPU list");
}

TEST_CASE("the example profile in config/tuning.yml parses and spells out the defaults") {
  auto p = load_profile(std::string(BB_FIXTURES) + "/../../config/tuning.yml");
  INFO((p ? "" : p.error().message));
  REQUIRE(p.ok());
  Profile d = default_profile();
  for (const auto& name : item_names()) {
    INFO(name);
    CHECK(p->item(name).enabled == d.item(name).enabled);
    CHECK(p->item(name).value == d.item(name).value);
  }
  CHECK(p->restore_on_stop == d.restore_on_stop);
  CHECK(p->apply_on_start == d.apply_on_start);
}
