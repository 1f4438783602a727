#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "daemon/args.h"

using namespace bb;

namespace {

// argv as the daemon would see it; the strings live as long as the struct.
struct Argv {
  std::vector<std::string> words;
  std::vector<char*> ptrs;
  explicit Argv(std::vector<std::string> w) : words(std::move(w)) {
    for (auto& s : words) ptrs.push_back(s.data());
  }
  int argc() { return int(ptrs.size()); }
  char** argv() { return ptrs.data(); }
};

const std::vector<daemon::ExtraOption> kListen = {{"listen", "ADDR:PORT", "serve here (development)"}};

std::optional<daemon::Args> parse(std::vector<std::string> words, int* code) {
  Argv a(std::move(words));
  return daemon::parse_args(a.argc(), a.argv(), "benchbox-test", kListen, code);
}

}  // namespace

TEST_CASE("no arguments: the default config path, not named") {
  int code = -1;
  auto args = parse({"benchbox-test"}, &code);
  REQUIRE(args);
  CHECK(args->config.path == config::kDefaultConfigPath);
  CHECK_FALSE(args->config.given);
  CHECK(args->option("listen").empty());
}

TEST_CASE("--config and extra options, as two words or with '='") {
  int code = -1;
  auto a = parse({"x", "--config", "/tmp/b.yml", "--listen=127.0.0.1:80"}, &code);
  REQUIRE(a);
  CHECK(a->config.path == "/tmp/b.yml");
  CHECK(a->config.given);
  CHECK(a->option("listen") == "127.0.0.1:80");
  auto b = parse({"x", "--config=/etc/x.yml", "--listen", ":8080"}, &code);
  REQUIRE(b);
  CHECK(b->config.path == "/etc/x.yml");
  CHECK(b->option("listen") == ":8080");
}

TEST_CASE("bad command lines exit 2; --help and --version exit 0") {
  for (auto words : std::vector<std::vector<std::string>>{{"x", "--nope"},
                                                          {"x", "stray"},
                                                          {"x", "--config"},
                                                          {"x", "--config="},
                                                          {"x", "--listen"}}) {
    int code = -1;
    CHECK_FALSE(parse(words, &code));
    CHECK(code == 2);
  }
  for (auto flag : {"--help", "-h", "--version"}) {
    int code = -1;
    CHECK_FALSE(parse({"x", flag}, &code));
    CHECK(code == 0);
  }
}

TEST_CASE("usage names every option") {
  auto text = daemon::usage("benchbox-webhookd", kListen);
  CHECK(text.find("usage: benchbox-webhookd [--config PATH] [--listen ADDR:PORT]") == 0);
  CHECK(text.find("--listen ADDR:PORT serve here") != std::string::npos);
  CHECK(text.find("--version") != std::string::npos);
}
