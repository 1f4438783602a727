#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <algorithm>
#include <filesystem>
#include <optional>
#include <thread>
#include <vector>

#include "util/cpu_list.h"
#include "util/file.h"
#include "util/remover.h"
#include "util/text.h"

#include <nlohmann/json.hpp>

using namespace bb;

TEST_CASE("cpu lists round-trip through the kernel syntax") {
  auto r = parse_cpu_list("3,0-1, 8-9");
  REQUIRE(r.ok());
  CHECK(*r == std::vector<int>{0, 1, 3, 8, 9});
  CHECK(format_cpu_list(*r) == "0-1,3,8-9");
  CHECK(parse_cpu_list("").value().empty());
}

TEST_CASE("bad cpu lists name the bad piece") {
  for (const char* bad : {"a", "3-1", "1,,2", "-1", "1-"}) {
    auto r = parse_cpu_list(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == Errc::invalid_argument);
  }
}

TEST_CASE("atomic writes land and read back; directories are refused") {
  char tmpl[] = "/tmp/bb-util-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  std::string path = path_join(dir, "a/b/file");
  REQUIRE(make_dirs(path_join(dir, "a/b")).ok());
  REQUIRE(write_file_atomic(path, "hello").ok());
  CHECK(read_file(path).value() == "hello");
  // Allocated once, with room after the text for a reader that reads past
  // its end (simdjson), at every size: 300,000 bytes is read in 5 reads.
  for (size_t n : {size_t(0), size_t(5), size_t(65536), size_t(300000)}) {
    REQUIRE(write_file_atomic(path, std::string(n, 'x')).ok());
    auto text = read_file(path);
    REQUIRE(text);
    CHECK(text->size() == n);
    if (n > 0) CHECK(text->capacity() >= n + kReadSlack);
  }
  auto too_big = read_file(path, 2);
  REQUIRE_FALSE(too_big.ok());
  CHECK(too_big.error().message.find("limit") != std::string::npos);
  auto is_dir = read_file(path_join(dir, "a"));
  REQUIRE_FALSE(is_dir.ok());
  CHECK(is_dir.error().message.find("not a regular file") != std::string::npos);
  CHECK(read_file(path_join(dir, "missing")).error().code == Errc::not_found);
  std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("write_file_replace: a reader finds the old file or the new one, never none, never half") {
  // The old files removed at once, or on a remover's thread.
  const bool background = GENERATE(false, true);
  INFO((background ? "old files removed in the background" : "old files removed at once"));
  std::optional<BackgroundRemover> remover;
  if (background) remover.emplace();
  BackgroundRemover* old_files = background ? &*remover : nullptr;
  char tmpl[] = "/tmp/bb-util-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  const std::string path = path_join(dir, "page.json");
  const std::string a(4096, 'a'), b(8192, 'b');
  REQUIRE(write_file_replace(path, a, 0644, old_files).ok());
  // A reader on the other core while the file is replaced 2,000 times.
  std::atomic<bool> done{false};
  std::atomic<int> missing{0}, torn{0}, reads{0};
  std::thread reader([&] {
    while (!done) {
      auto text = read_file(path);
      ++reads;
      if (!text) ++missing;
      else if (*text != a && *text != b) ++torn;
    }
  });
  for (int i = 0; i < 2000; ++i) REQUIRE(write_file_replace(path, i % 2 ? a : b, 0644, old_files).ok());
  done = true;
  reader.join();
  INFO(reads.load() << " reads");
  CHECK(missing == 0);
  CHECK(torn == 0);
  CHECK(read_file(path).value() == a);
  // Nothing is left beside it (once the remover is through), and a
  // directory in the way is refused, kept.
  if (remover) remover->wait();
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(dir)) left.push_back(e.path().filename());
  CHECK(left == std::vector<std::string>{"page.json"});
  REQUIRE(make_dirs(path_join(dir, "sub")).ok());
  REQUIRE(write_file_replace(path_join(dir, "sub/x"), a).ok());
  CHECK_FALSE(write_file_replace(path_join(dir, "sub"), a, 0644, old_files).ok());
  if (remover) remover->wait();
  struct stat st {};
  CHECK((::stat(path_join(dir, "sub").c_str(), &st) == 0 && S_ISDIR(st.st_mode)));
  CHECK(read_file(path_join(dir, "sub/x")).value() == a);
  left.clear();
  for (const auto& e : std::filesystem::directory_iterator(dir)) left.push_back(e.path().filename());
  std::sort(left.begin(), left.end());
  CHECK(left == std::vector<std::string>{"page.json", "sub"});
  std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("BackgroundRemover: removes what it is handed, off the caller's thread, all of it before it goes") {
  char tmpl[] = "/tmp/bb-util-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  auto count = [&] {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
    return n;
  };
  {
    BackgroundRemover remover;
    remover.wait();  // nothing handed yet: no thread, no wait
    for (int i = 0; i < 300; ++i) {
      const std::string p = path_join(dir, "f" + std::to_string(i));
      REQUIRE(write_file_replace(p, "x").ok());
      remover.remove(p);
    }
    remover.remove(path_join(dir, "never-there"));  // gone already: left as it is
    remover.wait();
    CHECK(count() == 0);
    for (int i = 0; i < 300; ++i) {
      const std::string p = path_join(dir, "g" + std::to_string(i));
      REQUIRE(write_file_replace(p, "x").ok());
      remover.remove(p);
    }
  }  // gone without a wait: it removes what it still holds first
  CHECK(count() == 0);
  std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("strings") {
  CHECK(split("a,b,,c", ',') == std::vector<std::string>{"a", "b", "", "c"});
  CHECK(trim("  x y \n") == "x y");
  CHECK(glob_match("v*", "v1.2"));
  CHECK_FALSE(glob_match("v*", "1.2"));
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("shell_quote: one word that /bin/sh reads back exactly") {
  CHECK(bb::shell_quote("plain") == "'plain'");
  CHECK(bb::shell_quote("it's $HOME `x`") == "'it'\\''s $HOME `x`'");
  FILE* p = ::popen(("printf %s " + bb::shell_quote("a'b \"c\" $d\\e")).c_str(), "r");
  REQUIRE(p);
  char buf[64] = {};
  size_t n = std::fread(buf, 1, sizeof buf - 1, p);
  ::pclose(p);
  CHECK(std::string(buf, n) == "a'b \"c\" $d\\e");
}

TEST_CASE("utf8_cut cuts on a character boundary, with its note within the limit") {
  const std::string text = "ab\xC2\xB5" "cd\xF0\x9F\x94\xA5" "e";  // "abµcd🔥e": 2-byte µ, 4-byte emoji
  CHECK(utf8_prefix(text, 100) == text);
  CHECK(utf8_prefix(text, 3) == "ab");           // inside µ: µ goes
  CHECK(utf8_prefix(text, 4) == "ab\xC2\xB5");   // right after µ
  for (size_t n = 6; n < 10; ++n) CHECK(utf8_prefix(text, n) == "ab\xC2\xB5" "cd");  // inside the emoji
  CHECK(utf8_prefix(text, 10) == "ab\xC2\xB5" "cd\xF0\x9F\x94\xA5");
  CHECK(utf8_cut(text, 100, "…") == text);
  for (size_t n = 0; n <= text.size(); ++n) {
    const std::string cut = utf8_cut(text, n, " (cut)");
    INFO(n);
    CHECK(cut.size() <= n);
    // Every cut is valid UTF-8: nlohmann::json dumps it without throwing.
    CHECK_NOTHROW(nlohmann::json(cut).dump());
  }
  CHECK(utf8_cut(text, 9, "~") == "ab\xC2\xB5" "cd~");
}

TEST_CASE("base64 round-trips every length; bad text is refused") {
  // RFC 4648's test vectors.
  CHECK(base64("") == "");
  CHECK(base64("f") == "Zg==");
  CHECK(base64("fo") == "Zm8=");
  CHECK(base64("foobar") == "Zm9vYmFy");
  std::string bytes;
  for (int i = 0; i < 40; ++i) {
    CHECK(from_base64(base64(bytes)) == bytes);
    bytes += static_cast<char>(i * 37 + 200);
  }
  CHECK_FALSE(from_base64("Zg="));
  CHECK_FALSE(from_base64("Z!=="));
}
