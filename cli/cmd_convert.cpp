// benchboxctl convert --format NAME|auto [--suite S] [--allow-empty] PATH...
// Reads harness output the way runnerd will and prints the canonical JSON
// (a benchbox result set), so a maintainer can check a suite's setup before
// pushing. Errors name the file, the place and what was expected.
#include <iostream>
#include <map>

#include "commands.h"
#include "formats/formats.h"
#include "model/result_set.h"

namespace bb::cli {

namespace {

constexpr const char* kConvertUsage =
    "usage: benchboxctl convert --format NAME|auto [--suite S] [--allow-empty] PATH...";

std::string joined_formats() {
  std::string out;
  for (const auto& f : formats::format_names()) out += (out.empty() ? "" : ", ") + f;
  return out;
}

}  // namespace

int cmd_convert(const Args& args) {
  std::string format;
  formats::ParseOptions options;
  std::vector<std::string> paths;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if ((a == "--format" || a == "--suite") && i + 1 < args.size()) {
      (a == "--format" ? format : options.suite) = args[++i];
    } else if (a.rfind("--format=", 0) == 0) {
      format = a.substr(9);
    } else if (a.rfind("--suite=", 0) == 0) {
      options.suite = a.substr(8);
    } else if (a == "--allow-empty") {
      options.allow_empty = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << kConvertUsage << "\nformats: auto, " << joined_formats() << "\n";
      return 0;
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      return fail("convert: unknown option '" + a + "'\n" + kConvertUsage);
    } else {
      paths.push_back(a);
    }
  }
  if (format.empty()) return fail(std::string("convert: --format is required (auto, ") + joined_formats() + ")\n" + kConvertUsage);
  if (paths.empty()) return fail(std::string("convert: no PATH given\n") + kConvertUsage);

  model::ResultSet set;
  set.created = 0;
  for (const auto& path : paths) {
    std::string chosen = format;
    if (format == "auto") {
      auto detected = formats::detect_format(path);
      if (!detected) return fail(detected.error().message);
      chosen = *detected;
      std::cerr << "benchboxctl: " << path << ": recognised as " << chosen << "\n";
    }
    auto benches = formats::parse_path(chosen, path, options);
    if (!benches) return fail(benches.error().message);
    for (auto& b : *benches) set.benchmarks.push_back(std::move(b));
  }
  // Two inputs can still name the same benchmark: that is as wrong as within one.
  std::map<model::BenchmarkKey, size_t> seen;
  for (size_t i = 0; i < set.benchmarks.size(); ++i)
    if (!seen.emplace(set.benchmarks[i].key, i).second)
      return fail("benchmark '" + set.benchmarks[i].key.to_string() +
                  "' appears in more than one input; give each a different --suite");
  std::cout << model::to_json(set).dump(2) << "\n";
  return 0;
}

}  // namespace bb::cli
