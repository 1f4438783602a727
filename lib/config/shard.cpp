#include "config/shard.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "util/text.h"

namespace bb::config {

namespace {

std::string escape_regex(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (std::string_view("\\.^$|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// pytest names a test "path/test_x.py::Class::test_y"; -k matches the
// last part (and, case-insensitively, any part it contains).
std::string pytest_function(const std::string& name) {
  auto colons = name.rfind("::");
  std::string last = colons == std::string::npos ? name : name.substr(colons + 2);
  return last.substr(0, last.find('['));
}

// go test -bench splits its pattern at '/' into one per level of
// sub-benchmarks: a top-level name selects all of its sub-benchmarks.
std::vector<std::string> go_top_levels(const std::vector<std::string>& names) {
  std::vector<std::string> top;
  std::set<std::string> seen;
  for (const auto& n : names) {
    std::string t = n.substr(0, n.find('/'));
    if (seen.insert(t).second) top.push_back(t);
  }
  return top;
}

}  // namespace

uint32_t hashed_shard(const std::string& name, uint64_t shards) {
  return shards <= 1 ? 0 : static_cast<uint32_t>(fnv1a64(name) % shards);
}

std::vector<std::vector<std::string>> assign_shards(const Suite& suite, const std::vector<std::string>& names) {
  const uint64_t n = std::max<uint64_t>(suite.shards, 1);
  std::vector<std::vector<std::string>> out(n);
  std::set<std::string> seen;
  for (const auto& name : names) {
    if (!seen.insert(name).second) continue;
    uint32_t shard = hashed_shard(name, n);
    for (size_t i = 0; i < suite.shard_by.size() && i < n; ++i) {
      const auto& patterns = suite.shard_by[i];
      if (std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return glob_match(p, name); })) {
        shard = static_cast<uint32_t>(i);
        break;
      }
    }
    out[shard].push_back(name);
  }
  return out;
}

std::string names_regex(const std::vector<std::string>& names) {
  std::string alt;
  for (const auto& n : names) alt += (alt.empty() ? "" : "|") + escape_regex(n);
  return "^(" + alt + ")$";
}

std::string harness_filter(const std::string& format, const std::vector<std::string>& names) {
  if (names.empty()) return "";
  if (format == "google-benchmark") return shell_quote("--benchmark_filter=" + names_regex(names));
  if (format == "asv") return "-b " + shell_quote(names_regex(names));
  if (format == "go-test") return "-bench " + shell_quote(names_regex(go_top_levels(names)));
  if (format == "pytest-benchmark") {
    std::vector<std::string> functions;
    std::set<std::string> seen;
    for (const auto& n : names) {
      std::string f = pytest_function(n);
      if (!is_identifier(f)) return "";
      if (seen.insert(f).second) functions.push_back(f);
    }
    std::string expr;
    for (const auto& f : functions) expr += (expr.empty() ? "" : " or ") + f;
    return "-k " + shell_quote(expr);
  }
  return "";
}

std::string shard_run_command(const Suite& suite, const std::vector<std::string>& names) {
  const std::string args = harness_filter(suite.format, names);
  if (args.empty() || suite.run.find(kShardVariablePrefix) != std::string::npos) return suite.run;
  // `run: |` ends in a newline: the words go on the command's last line.
  std::string run = suite.run;
  while (!run.empty() && std::isspace(static_cast<unsigned char>(run.back()))) run.pop_back();
  return run + " " + args;
}

}  // namespace bb::config
