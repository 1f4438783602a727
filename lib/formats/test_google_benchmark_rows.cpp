// Google Benchmark's fast reader (google_benchmark_rows.h): which files it
// takes, and that what it takes reads as the DOM reader reads it.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "formats/formats.h"
#include "formats/google_benchmark_rows.h"
#include "formats/json_support.h"
#include "model/result_set.h"
#include "util/file.h"
#include "test_formats_support.h"

using namespace bb;
using namespace bb::formats;

using bb::formats::testing::fixture_text;
using bb::formats::testing::same_both_ways;

namespace {

size_t plain_rows(const std::string& text) {
  size_t n = 0;
  return detail::for_each_plain_row(text, [&](const detail::GbRow&, size_t) { return ++n, true; }) ? n : 0;
}

const char* kRow = R"({"name": "BM_a/8", "run_name": "BM_a/8", "run_type": "iteration", "repetitions": 2,
  "repetition_index": 0, "threads": 1, "iterations": 100, "real_time": 5.5, "cpu_time": 5.0, "time_unit": "ns",
  "items_per_second": 2.0e8, "note": "a string member a newer version added"})";

}  // namespace

TEST_CASE("the fast reader takes the library's own files and reads them as the DOM reader does") {
  for (const char* name : {"google-benchmark-real-basic.json", "google-benchmark-real-repetitions.json",
                           "google-benchmark-real-aggregates-only.json"}) {
    INFO(name);
    const std::string text = fixture_text(name);
    CHECK(plain_rows(text) > 0);
    same_both_ways("google-benchmark", text);
  }
  // Interleaved repetitions (--benchmark_enable_random_interleaving), threads and a label.
  const std::string text = std::string(R"({"context": {"caches": [{"size": 32768}]}, "benchmarks": [)") + kRow + "," +
                           R"({"name": "BM_b", "iterations": 7, "real_time": 1, "cpu_time": 1, "time_unit": "ms",
                               "threads": 4, "label": "x"},)" +
                           kRow + "]}";
  CHECK(plain_rows(text) == 3);
  same_both_ways("google-benchmark", text);
  // A run that failed (SkipWithError) or was skipped, with or without its reason.
  const std::string head = R"({"benchmarks": [)";
  for (const std::string& failed : std::vector<std::string>{
           head + R"({"name": "BM_e", "run_name": "BM_e", "run_type": "iteration", "error_occurred": true,
                      "error_message": "boom", "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "ns"}]})",
           head + R"({"name": "BM_e", "error_occurred": true}, {"name": "BM_e", "error_occurred": true}]})",
           head + R"({"name": "BM_s", "skipped": 1, "skip_message": "no"}]})",
           head + R"({"name": "BM_s", "skipped": true, "error_message": "why"}]})",
           head + R"({"name": "BM_s", "skipped": "no"}]})",
       }) {
    INFO(failed);
    CHECK(plain_rows(failed) > 0);
    same_both_ways("google-benchmark", failed);
  }
}

TEST_CASE("what the fast reader refuses goes to the DOM reader, with the same result or error") {
  const std::string head = R"({"benchmarks": [)";
  for (const std::string& text : std::vector<std::string>{
           // A complexity fit: the DOM reader's case.
           fixture_text("google-benchmark-real-complexity.json"),
           // Broken where the fast reader does not read: the DOM reader words it.
           R"({"context": {"host_name": "h" x}, "benchmarks": []})",
           head + R"({"name": "BM_a", "family_index": 0x, "iterations": 1, "real_time": 1, "cpu_time": 1,
                      "time_unit": "ns"}]})",
           head + R"({"name": "BM_a", "iterations": 1, "real_time": 1, "cpu_time": 1, "time_unit": "ns",
                      "label": [1, 2}]})",
           // Wrong types, a repeated member.
           head + R"({"name": 3, "iterations": 1, "real_time": 1, "cpu_time": 1, "time_unit": "ns"}]})",
           head + R"({"name": "a", "name": "b", "iterations": 1, "real_time": 1, "cpu_time": 1, "time_unit": "ns"}]})",
       }) {
    INFO(text);
    CHECK(plain_rows(text) == 0);
    same_both_ways("google-benchmark", text);
  }
  // A long mantissa (which simdjson's get_number misreads) is read right.
  const std::string long_number = head + R"({"name": "a", "iterations": 1, "real_time": 1.2345678901234567891,
                                             "cpu_time": 12345678901234567890123, "time_unit": "ns"}]})";
  CHECK(plain_rows(long_number) == 1);
  same_both_ways("google-benchmark", long_number);
  // A unit it does not know: the rows are plain, the reader refuses them.
  const std::string fortnights =
      head + R"({"name": "a", "iterations": 1, "real_time": 1, "cpu_time": 1, "time_unit": "fortnights"}]})";
  CHECK(plain_rows(fortnights) == 1);
  same_both_ways("google-benchmark", fortnights);
}
