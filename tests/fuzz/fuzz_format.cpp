// libFuzzer target for one result format, chosen at compile time
// (-DBB_FUZZ_FORMAT="hyperfine"). Whatever the bytes, a parser must return a
// value or an error: never crash, hang, or read out of bounds. Errors must
// name the input, so every error message is checked for the source name.
// And the simdjson fast path must agree with the SAX path on every input:
// the same benchmarks, or the same error.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "formats/formats.h"
#include "formats/json_support.h"
#include "formats/parsers.h"
#include "model/result_set.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bb::formats::ParseOptions options;
  options.suite = "fuzz";
  options.allow_empty = size % 2 == 0;  // exercise both answers to "empty"
  const std::string source = "fuzz-input";
  std::string format = BB_FUZZ_FORMAT;
  if (format == "criterion") {
    // One input carries the three files, separated by a line "----".
    bb::formats::detail::CriterionFiles files;
    files.benchmark_source = "benchmark.json";
    files.sample_source = "sample.json";
    files.estimates_source = "estimates.json";
    std::string* parts[] = {&files.benchmark_json, &files.sample_json, &files.estimates_json};
    size_t start = 0;
    for (int i = 0; i < 3; ++i) {
      size_t sep = text.find("\n----\n", start);
      *parts[i] = std::string(text.substr(start, sep == text.npos ? text.npos : sep - start));
      if (sep == text.npos) break;
      start = sep + 6;
    }
    auto r = bb::formats::detail::parse_criterion_files(files);
    if (!r && r.error().message.find(".json") == std::string::npos) std::abort();
    return 0;
  }
  auto r = bb::formats::parse_text(format, text, source, options);
  if (!r && r.error().message.rfind(source, 0) != 0) std::abort();
  if (r && r->empty() && !options.allow_empty) std::abort();

  bb::formats::detail::use_simdjson(false);
  auto sax = bb::formats::parse_text(format, text, source, options);
  bb::formats::detail::use_simdjson(true);
  if (r.ok() != sax.ok()) std::abort();
  if (!r) {
    if (r.error().message != sax.error().message) std::abort();
    return 0;
  }
  if (r->size() != sax->size()) std::abort();
  for (size_t i = 0; i < r->size(); ++i)
    if (bb::model::to_json((*r)[i]).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) !=
        bb::model::to_json((*sax)[i]).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) std::abort();
  return 0;
}
