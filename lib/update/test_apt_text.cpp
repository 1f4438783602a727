// apt's and dpkg's output as apt 2.6 (Debian 12) prints it.
#include <catch2/catch.hpp>

#include "update/apt_text.h"

using namespace bb;
using namespace bb::update;

TEST_CASE("madison: the versions of one source") {
  const char* text =
      "  benchbox | 0.1.2 | file:/srv/archive stable/main amd64 Packages\n"
      "  benchbox | 0.1.1 | file:/srv/archive stable/main amd64 Packages\n"
      "  benchbox | 9.9.9 | http://deb.example.org/debian bookworm/main amd64 Packages\n";
  CHECK(madison_versions(text, "file:/srv/archive") == std::vector<std::string>{"0.1.2", "0.1.1"});
  CHECK(madison_versions(text, "file:/srv/archive/") == std::vector<std::string>{"0.1.2", "0.1.1"});
  CHECK(madison_versions(text, "http://other") .empty());
  CHECK(madison_versions("", "file:/srv/archive").empty());
}

TEST_CASE("the Date of a Release file") {
  auto d = release_date("Origin: benchbox\nLabel: benchbox\nSuite: stable\nCodename: stable\n"
                        "Date: Tue, 01 Dec 2026 12:00:00 UTC\nValid-Until: Tue, 15 Dec 2026 12:00:00 UTC\n");
  REQUIRE(d);
  CHECK(*d == 1796126400);
  CHECK_FALSE(release_date("Origin: x\n"));
  CHECK_FALSE(release_date("Date: yesterday\n"));
  CHECK_FALSE(release_date("Date: Tue, 01 Dec 2026 12:00:00 +0100\n"));
}

TEST_CASE("apt failures: trust problems are refusals, the rest failures, each one line") {
  auto no_key = apt_failure(
      "Get:1 file:/srv/archive stable InRelease [2,345 B]\n"
      "Err:1 file:/srv/archive stable InRelease\n"
      "  The following signatures couldn't be verified because the public key is not available: "
      "NO_PUBKEY 0123456789ABCDEF\n"
      "Reading package lists...\n"
      "W: GPG error: file:/srv/archive stable InRelease: The following signatures couldn't be verified because "
      "the public key is not available: NO_PUBKEY 0123456789ABCDEF\n"
      "E: The repository 'file:/srv/archive stable InRelease' is not signed.\n",
      "apt-get update failed");
  CHECK(no_key.code == Errc::invalid_argument);
  CHECK(no_key.message.find("NO_PUBKEY 0123456789ABCDEF") != std::string::npos);

  // apt 2.6 when the box had a good index before: exit 0, old lists kept.
  auto kept_old = apt_failure(
      "Get:1 file:/tmp/arch/public stable InRelease [2353 B]\n"
      "Err:1 file:/tmp/arch/public stable InRelease\n"
      "  The following signatures couldn't be verified because the public key is not available: "
      "NO_PUBKEY 93A8B8E8B0CE720D\n"
      "Reading package lists...\n"
      "W: An error occurred during the signature verification. The repository is not updated and the previous "
      "index files will be used. GPG error: file:/tmp/arch/public stable InRelease: The following signatures "
      "couldn't be verified because the public key is not available: NO_PUBKEY 93A8B8E8B0CE720D\n"
      "W: Failed to fetch file:/tmp/arch/public/dists/stable/InRelease  The following signatures couldn't be "
      "verified because the public key is not available: NO_PUBKEY 93A8B8E8B0CE720D\n"
      "W: Some index files failed to download. They have been ignored, or old ones used instead.\n",
      "apt-get update");
  CHECK(kept_old.code == Errc::invalid_argument);
  CHECK(kept_old.message.rfind("W: An error occurred during the signature verification", 0) == 0);

  auto hash = apt_failure(
      "Get:1 file:/srv/archive stable/main amd64 benchbox amd64 0.1.2 [1,350 kB]\n"
      "Err:1 file:/srv/archive stable/main amd64 benchbox amd64 0.1.2\n"
      "  Hash Sum mismatch\n"
      "E: Failed to fetch file:/srv/archive/pool/main/b/benchbox/benchbox_0.1.2_amd64.deb  Hash Sum mismatch\n"
      "   Hashes of expected file:\n",
      "apt-get install failed");
  CHECK(hash.code == Errc::invalid_argument);
  CHECK(hash.message.find("benchbox_0.1.2_amd64.deb") != std::string::npos);

  auto expired = apt_failure(
      "E: Release file for file:/srv/archive/dists/stable/InRelease is expired (invalid since 2d 1h 5min 3s). "
      "Updates for this repository will not be applied.\n",
      "apt-get update failed");
  CHECK(expired.code == Errc::invalid_argument);

  auto down = apt_failure("Err:1 http://127.0.0.1:9 stable InRelease\n  Could not connect to 127.0.0.1:9\n"
                          "E: Failed to fetch http://127.0.0.1:9/dists/stable/InRelease  Could not connect\n",
                          "apt-get update failed");
  CHECK(down.code == Errc::unavailable);
  CHECK(down.message.rfind("E: Failed to fetch", 0) == 0);

  auto silent = apt_failure("", "apt-get update exited 100");
  CHECK(silent.message == "apt-get update exited 100");
}

TEST_CASE("a deb822 source: its URI and suite") {
  auto s = parse_sources("# benchbox\nTypes: deb\nURIs: file:/srv/archive\nSuites: stable\nComponents: main\n"
                         "Signed-By: /usr/share/keyrings/benchbox-archive-keyring.gpg\n",
                         "benchbox.sources");
  REQUIRE(s);
  CHECK(s->uri == "file:/srv/archive");
  CHECK(s->suite == "stable");
  auto bad = parse_sources("deb file:/srv/archive stable main\n", "benchbox.list");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("deb822") != std::string::npos);
}
