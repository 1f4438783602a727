#include <catch2/catch.hpp>

#include "config/suite.h"

using namespace bb;
using namespace bb::config;

namespace {

// The error message for a broken file; fails the test if it parsed.
std::string error_of(const std::string& text) {
  auto r = parse_suite_config(text, ".benchbox.yml");
  if (r) FAIL("expected an error for:\n" << text);
  CHECK(r.error().code == Errc::invalid_argument);
  return r.error().message;
}

}  // namespace

TEST_CASE("a complete .benchbox.yml parses with every field") {
  const char* text = R"(version: 1
suites:
  - name: micro
    build: "make -j2"
    run: "./bench.sh"
    format: hyperfine
    output: out/results.json
    repetitions: 10
    warmup: 2
    timeout: 300
    allow_empty: true
    env: {KEY: value, N: 3}
    thresholds: {wall_time: 0.02}
    sequential:
      max_repetitions: 60
      max_seconds: 300
  - name: startup
    run: ./start
)";
  auto r = parse_suite_config(text, ".benchbox.yml");
  REQUIRE(r);
  REQUIRE(r->suites.size() == 2);
  const Suite& m = r->suites[0];
  CHECK(m.name == "micro");
  CHECK(m.build == "make -j2");
  CHECK(m.run == "./bench.sh");
  CHECK(m.format == "hyperfine");
  CHECK(m.format_location == ".benchbox.yml:6:13");
  CHECK(m.output == "out/results.json");
  CHECK(m.repetitions == 10);
  CHECK(m.warmup == 2);
  CHECK(m.timeout_seconds == 300);
  CHECK(m.allow_empty);
  CHECK(m.env == std::map<std::string, std::string>{{"KEY", "value"}, {"N", "3"}});
  CHECK(m.thresholds.at("wall_time") == Approx(0.02));
  REQUIRE(m.sequential);
  CHECK(m.sequential->max_repetitions == 60);
  CHECK(m.sequential->max_seconds == 300);

  const Suite& s = r->suites[1];
  CHECK(s.format == "command");
  CHECK(s.build.empty());
  CHECK(s.output.empty());
  CHECK(s.repetitions == 5);
  CHECK(s.warmup == 1);
  CHECK(s.timeout_seconds == 600);
  CHECK_FALSE(s.allow_empty);
  CHECK_FALSE(s.sequential);
  CHECK(r->find("startup") == &s);
  CHECK(r->find("nope") == nullptr);
}

TEST_CASE("YAML syntax errors name the line and column") {
  CHECK(error_of("version: 1\nsuites:\n  - name: a\n    run: [x\n") ==
        ".benchbox.yml:5:1: end of sequence flow not found");
  CHECK(error_of("version: 1\nsuites:\n  - name: a\n   run: x\n") ==
        ".benchbox.yml:4:4: end of sequence not found");
}

TEST_CASE("the top level: empty, not a mapping, unknown keys, version, suites") {
  CHECK(error_of("") == ".benchbox.yml: the file is empty (expected 'version: 1' and 'suites:')");
  CHECK(error_of("- a\n- b\n") == ".benchbox.yml:1:1: expected a mapping with version and suites");
  CHECK(error_of("version: 1\nsuite:\n  - {name: a, run: b}\n") ==
        ".benchbox.yml:2:1: unknown key 'suite' (known: version, suites)");
  CHECK(error_of("suites:\n  - {name: a, run: b}\n") ==
        ".benchbox.yml:1:1: missing key 'version' (use 'version: 1')");
  CHECK(error_of("version: 2\nsuites:\n  - {name: a, run: b}\n") ==
        ".benchbox.yml:1:10: version: unsupported version 2 (this benchbox reads version 1)");
  CHECK(error_of("version: one\nsuites: []\n") ==
        ".benchbox.yml:1:10: version: expected an integer, got 'one'");
  CHECK(error_of("version: 1\n") == ".benchbox.yml:1:1: missing key 'suites'");
  CHECK(error_of("version: 1\nsuites: {a: 1}\n") == ".benchbox.yml:2:9: suites: expected a list of suites");
  CHECK(error_of("version: 1\nsuites: []\n") == ".benchbox.yml:2:9: suites: no suites");
  CHECK(error_of("version: 1\nversion: 1\nsuites: []\n") == ".benchbox.yml:2:1: duplicate key 'version'");
}

TEST_CASE("suite entries: required keys, names, unknown and duplicate keys") {
  const std::string head = "version: 1\nsuites:\n";
  CHECK(error_of(head + "  - just a string\n") ==
        ".benchbox.yml:3:5: suites[0]: expected a mapping with name and run");
  CHECK(error_of(head + "  - run: x\n") == ".benchbox.yml:3:5: suites[0]: missing key 'name'");
  CHECK(error_of(head + "  - name: a\n") == ".benchbox.yml:3:5: suites[0]: missing key 'run'");
  CHECK(error_of(head + "  - name: a\n    run: \"\"\n") == ".benchbox.yml:4:10: suites[0].run: must not be empty");
  CHECK(error_of(head + "  - name: a b\n    run: x\n") ==
        ".benchbox.yml:3:11: suites[0].name: 'a b' is not a valid suite name (letters, digits, '.', '_', '-')");
  CHECK(error_of(head + "  - name: a\n    run: x\n    repetiton: 3\n") ==
        ".benchbox.yml:5:5: suites[0]: unknown key 'repetiton' (known: name, build, run, format, output, "
        "repetitions, warmup, timeout, allow_empty, env, thresholds, sequential, list, benchmarks, metrics, toolchain, lock_files, counters, measure, paths, shards, shard_by, push_baseline)");
  CHECK(error_of(head + "  - name: a\n    run: x\n    run: y\n") ==
        ".benchbox.yml:5:5: suites[0]: duplicate key 'run'");
  CHECK(error_of(head + "  - {name: a, run: x}\n  - {name: a, run: y}\n") ==
        ".benchbox.yml:4:12: suites[1].name: suite 'a' is defined twice");
  CHECK(error_of(head + "  - name: [a]\n    run: x\n") == ".benchbox.yml:3:11: suites[0].name: expected a string");
}

TEST_CASE("select_suites: all, or the names in the order given; a missing name lists what the file has") {
  auto cfg = parse_suite_config("version: 1\nsuites:\n  - {name: a, run: x}\n  - {name: b, run: y}\n"
                                "  - {name: c, run: z}\n", ".benchbox.yml");
  REQUIRE(cfg);
  auto names = [](const Result<std::vector<Suite>>& r) {
    std::vector<std::string> out;
    for (const auto& s : *r) out.push_back(s.name);
    return out;
  };
  auto all = select_suites(*cfg, {});
  REQUIRE(all);
  CHECK(names(all) == std::vector<std::string>{"a", "b", "c"});
  auto two = select_suites(*cfg, {"c", "a"});
  REQUIRE(two);
  CHECK(names(two) == std::vector<std::string>{"c", "a"});
  CHECK((*two)[0].run == "z");
  auto missing = select_suites(*cfg, {"a", "nope"});
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == Errc::not_found);
  CHECK(missing.error().message == "no suite 'nope' in .benchbox.yml (it has: a, b, c)");
}

TEST_CASE("numbers and booleans are checked with their position") {
  const std::string head = "version: 1\nsuites:\n  - name: a\n    run: x\n";
  CHECK(error_of(head + "    repetitions: ten\n") ==
        ".benchbox.yml:5:18: suites[0].repetitions: expected a non-negative integer, got 'ten'");
  CHECK(error_of(head + "    repetitions: 0\n") == ".benchbox.yml:5:18: suites[0].repetitions: must be at least 1");
  CHECK(error_of(head + "    warmup: -1\n") ==
        ".benchbox.yml:5:13: suites[0].warmup: expected a non-negative integer");
  CHECK(error_of(head + "    timeout: 0\n") ==
        ".benchbox.yml:5:14: suites[0].timeout: must be at least 1 (seconds)");
  CHECK(error_of(head + "    allow_empty: maybe\n") ==
        ".benchbox.yml:5:18: suites[0].allow_empty: expected true or false, got 'maybe'");
}

TEST_CASE("format and output") {
  const std::string head = "version: 1\nsuites:\n  - name: a\n    run: x\n";
  CHECK(error_of(head + "    output: r.json\n") ==
        ".benchbox.yml:5:13: suites[0].output: only a harness format writes an output file (format is 'command')");
  CHECK(error_of(head + "    format: hyperfine\n    output: /tmp/r.json\n") ==
        ".benchbox.yml:6:13: suites[0].output: expected a path relative to the work tree");
  CHECK(error_of(head + "    format: hyperfine\n    output: a/../../r.json\n") ==
        ".benchbox.yml:6:13: suites[0].output: must stay inside the work tree (no '..')");
  CHECK(error_of(head + "    format: \"hyper fine\"\n") ==
        ".benchbox.yml:5:13: suites[0].format: 'hyper fine' is not a format name");
}

TEST_CASE("list and benchmarks: what a suite declares") {
  const std::string head = "version: 1\nsuites:\n  - name: a\n    run: x\n";
  auto listed = config::parse_suite_config(head + "    list: ./bench --benchmark_list_tests\n", ".benchbox.yml");
  REQUIRE(listed.ok());
  CHECK(listed->suites[0].list == "./bench --benchmark_list_tests");
  auto written = config::parse_suite_config(head + "    benchmarks: [sort, grep]\n", ".benchbox.yml");
  REQUIRE(written.ok());
  CHECK(written->suites[0].benchmarks == std::vector<std::string>{"sort", "grep"});
  CHECK(error_of(head + "    list: ''\n") == ".benchbox.yml:5:11: suites[0].list: must not be empty");
  CHECK(error_of(head + "    benchmarks: []\n") == ".benchbox.yml:5:17: suites[0].benchmarks: expected at least one name");
  CHECK(error_of(head + "    list: ./l\n    benchmarks: [a]\n") ==
        ".benchbox.yml:6:17: suites[0].benchmarks: give either 'list' (the harness lists its benchmarks) or "
        "'benchmarks', not both");
}

TEST_CASE("metrics: which the reports judge, with a default per kind of suite") {
  const std::string head = "version: 1\nsuites:\n  - name: a\n    run: x\n";
  auto plain = config::parse_suite_config(head, ".benchbox.yml");
  REQUIRE(plain.ok());
  CHECK(config::shown_metrics(plain->suites[0]) == std::vector<std::string>{"wall_time", "cpu_time"});
  auto harness = config::parse_suite_config(head + "    format: hyperfine\n", ".benchbox.yml");
  REQUIRE(harness.ok());
  CHECK(config::shown_metrics(harness->suites[0]).empty());  // every metric the harness reports
  auto chosen = config::parse_suite_config(head + "    metrics: [wall_time, peak_memory]\n", ".benchbox.yml");
  REQUIRE(chosen.ok());
  CHECK(config::shown_metrics(chosen->suites[0]) == std::vector<std::string>{"wall_time", "peak_memory"});
  CHECK(error_of(head + "    metrics: []\n") ==
        ".benchbox.yml:5:14: suites[0].metrics: expected at least one metric (e.g. [wall_time, peak_memory])");
}

TEST_CASE("toolchain and lock_files: what else the environment key covers") {
  const std::string head = "version: 1\nsuites:\n  - name: a\n    run: x\n";
  auto ok = config::parse_suite_config(head + "    toolchain: [cc --version, python3 -VV]\n"
                                              "    lock_files: [poetry.lock, sub/Cargo.lock]\n",
                                       ".benchbox.yml");
  REQUIRE(ok.ok());
  CHECK(ok->suites[0].toolchain == std::vector<std::string>{"cc --version", "python3 -VV"});
  CHECK(ok->suites[0].lock_files == std::vector<std::string>{"poetry.lock", "sub/Cargo.lock"});
  CHECK(error_of(head + "    lock_files: [/etc/passwd]\n") ==
        ".benchbox.yml:5:18: suites[0].lock_files[0]: expected a path relative to the work tree");
  CHECK(error_of(head + "    lock_files: [../x.lock]\n") ==
        ".benchbox.yml:5:18: suites[0].lock_files[0]: must stay inside the work tree (no '..')");
  CHECK(error_of(head + "    toolchain: ['']\n") == ".benchbox.yml:5:17: suites[0].toolchain[0]: must not be empty");
}

TEST_CASE("counters: only for a command, judged by default") {
  const std::string head = "version: 1\nsuites:\n  - name: a\n    run: x\n";
  auto ok = config::parse_suite_config(head + "    counters: [instructions, branch-misses]\n", ".benchbox.yml");
  REQUIRE(ok.ok());
  CHECK(config::shown_metrics(ok->suites[0]) ==
        std::vector<std::string>{"wall_time", "cpu_time", "instructions", "branch_misses"});
  CHECK(error_of(head + "    format: hyperfine\n    counters: [cycles]\n") ==
        ".benchbox.yml:6:15: suites[0].counters: counters are read over one benchmark process: only with format "
        "'command' (this suite's harness runs many benchmarks in one process)");
}

TEST_CASE("measure: time or callgrind, callgrind only for a command") {
  const std::string head = "version: 1\nsuites:\n  - name: a\n    run: x\n";
  auto cg = config::parse_suite_config(head + "    measure: callgrind\n", ".benchbox.yml");
  REQUIRE(cg.ok());
  CHECK(cg->suites[0].callgrind);
  CHECK(config::shown_metrics(cg->suites[0]) == std::vector<std::string>{"instructions"});
  CHECK(error_of(head + "    measure: perf\n") == ".benchbox.yml:5:14: suites[0].measure: expected time or callgrind, got 'perf'");
  CHECK(error_of(head + "    format: hyperfine\n    measure: callgrind\n") ==
        ".benchbox.yml:6:14: suites[0].measure: callgrind measures one command: only with format 'command'");
}

TEST_CASE("push_baseline: a push measured against its branch's previous head, or its previous run") {
  const std::string head = "version: 1\nsuites:\n  - name: a\n    run: x\n";
  auto plain = config::parse_suite_config(head, ".benchbox.yml");
  REQUIRE(plain.ok());
  CHECK(plain->suites[0].push_baseline == config::Suite::PushBaseline::interleaved);
  auto prev = config::parse_suite_config(head + "    push_baseline: previous-run\n", ".benchbox.yml");
  REQUIRE(prev.ok());
  CHECK(prev->suites[0].push_baseline == config::Suite::PushBaseline::previous_run);
  auto inter = config::parse_suite_config(head + "    push_baseline: interleaved\n", ".benchbox.yml");
  REQUIRE(inter.ok());
  CHECK(inter->suites[0].push_baseline == config::Suite::PushBaseline::interleaved);
  CHECK(error_of(head + "    push_baseline: previous\n") ==
        ".benchbox.yml:5:20: suites[0].push_baseline: expected interleaved or previous-run, got 'previous'");
}

TEST_CASE("env and thresholds") {
  const std::string head = "version: 1\nsuites:\n  - name: a\n    run: x\n";
  CHECK(error_of(head + "    env: [A]\n") == ".benchbox.yml:5:10: suites[0].env: expected a mapping of NAME: value");
  CHECK(error_of(head + "    env: {1A: x}\n") ==
        ".benchbox.yml:5:11: suites[0].env: '1A' is not a valid environment variable name");
  CHECK(error_of(head + "    env: {BENCHBOX_OUTPUT: x}\n") ==
        ".benchbox.yml:5:11: suites[0].env: 'BENCHBOX_OUTPUT': the BENCHBOX_ prefix is reserved for benchbox");
  CHECK(error_of(head + "    env:\n      A: [1, 2]\n") == ".benchbox.yml:6:10: suites[0].env.A: expected a string");
  CHECK(error_of(head + "    thresholds: {wall_time: fast}\n") ==
        ".benchbox.yml:5:29: suites[0].thresholds.wall_time: expected a number, got 'fast'");
  CHECK(error_of(head + "    thresholds: {wall_time: -0.1}\n") ==
        ".benchbox.yml:5:29: suites[0].thresholds.wall_time: expected a fraction between 0 and 1 (0.02 = 2%)");
  CHECK(error_of(head + "    thresholds: {wall_time: 2}\n") ==
        ".benchbox.yml:5:29: suites[0].thresholds.wall_time: expected a fraction between 0 and 1 (0.02 = 2%)");
}

TEST_CASE("sequential: the budget of rounds and seconds") {
  const std::string head = "version: 1\nsuites:\n  - name: a\n    run: x\n    repetitions: 6\n";
  SECTION("max_repetitions alone; max_seconds is optional") {
    auto r = parse_suite_config(head + "    sequential: {max_repetitions: 40}\n", ".benchbox.yml");
    REQUIRE(r);
    REQUIRE(r->suites[0].sequential);
    CHECK(r->suites[0].sequential->max_repetitions == 40);
    CHECK(r->suites[0].sequential->max_seconds == 0);
  }
  SECTION("max_repetitions equal to repetitions is allowed (the first look is the last)") {
    auto r = parse_suite_config(head + "    sequential:\n      max_repetitions: 6\n", ".benchbox.yml");
    REQUIRE(r);
    CHECK(r->suites[0].sequential->max_repetitions == 6);
  }
  SECTION("the order of repetitions and sequential in the file does not matter") {
    auto r = parse_suite_config(
        "version: 1\nsuites:\n  - name: a\n    sequential: {max_repetitions: 20}\n    run: x\n    repetitions: 12\n",
        ".benchbox.yml");
    REQUIRE(r);
    CHECK(r->suites[0].repetitions == 12);
    CHECK(r->suites[0].sequential->max_repetitions == 20);
  }
  SECTION("a null sequential means none") {
    auto r = parse_suite_config(head + "    sequential:\n", ".benchbox.yml");
    REQUIRE(r);
    CHECK_FALSE(r->suites[0].sequential);
  }
  SECTION("errors name the line, column and key") {
    CHECK(error_of(head + "    sequential: true\n") ==
          ".benchbox.yml:6:17: suites[0].sequential: expected a mapping with max_repetitions (and max_seconds)");
    CHECK(error_of(head + "    sequential: {max_seconds: 10}\n") ==
          ".benchbox.yml:6:17: suites[0].sequential: missing key 'max_repetitions' (the budget of rounds)");
    CHECK(error_of(head + "    sequential: {max_repetitions: 5}\n") ==
          ".benchbox.yml:6:35: suites[0].sequential.max_repetitions: must be at least repetitions (6), which is "
          "the minimum number of rounds");
    CHECK(error_of(head + "    sequential: {max_repetitions: 10001}\n") ==
          ".benchbox.yml:6:35: suites[0].sequential.max_repetitions: must be at most 10000");
    CHECK(error_of(head + "    sequential: {max_repetitions: lots}\n") ==
          ".benchbox.yml:6:35: suites[0].sequential.max_repetitions: expected a non-negative integer, got 'lots'");
    CHECK(error_of(head + "    sequential: {max_repetitions: 10, max_seconds: 0}\n") ==
          ".benchbox.yml:6:52: suites[0].sequential.max_seconds: must be at least 1 (seconds)");
    CHECK(error_of(head + "    sequential:\n      max_repetitions: 10\n      max_rounds: 20\n") ==
          ".benchbox.yml:8:7: suites[0].sequential: unknown key 'max_rounds' (known: max_repetitions, max_seconds)");
    CHECK(error_of(head + "    sequential:\n      max_repetitions: 10\n      max_repetitions: 20\n") ==
          ".benchbox.yml:8:7: suites[0].sequential: duplicate key 'max_repetitions'");
  }
}

TEST_CASE("paths: what a suite measures, and whether a change concerns it") {
  auto c = parse_suite_config(
      "version: 1\nsuites:\n  - name: parser\n    run: ./bench\n    paths: [src/parser/, \"include/*.h\", Cargo.lock]\n"
      "  - name: all\n    run: ./bench\n",
      "t.yml");
  REQUIRE(c.ok());
  const Suite& parser = c->suites[0];
  CHECK(parser.paths == std::vector<std::string>{"src/parser/", "include/*.h", "Cargo.lock"});
  CHECK(suite_affected(parser, {"README.md", "src/parser/lexer.c"}));
  CHECK(suite_affected(parser, {"include/parser.h"}));
  CHECK(suite_affected(parser, {"include/deep/x.h"}));  // `*` crosses '/'
  CHECK(suite_affected(parser, {"Cargo.lock"}));
  CHECK_FALSE(suite_affected(parser, {"README.md", "src/parserx.c", "docs/src/parser/a.md"}));
  CHECK_FALSE(suite_affected(parser, {}));
  CHECK(suite_affected(c->suites[1], {}));  // no paths: every change
  CHECK(suite_affected(c->suites[1], {"README.md"}));

  auto empty = parse_suite_config("version: 1\nsuites:\n  - name: s\n    run: x\n    paths: []\n", "t.yml");
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().message.find("suites[0].paths: lists no path") != std::string::npos);
  auto absolute = parse_suite_config("version: 1\nsuites:\n  - name: s\n    run: x\n    paths: [/etc]\n", "t.yml");
  REQUIRE_FALSE(absolute.ok());
  CHECK(absolute.error().message.find("suites[0].paths[0]: expected a path or pattern relative") != std::string::npos);
}
