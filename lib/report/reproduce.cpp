#include "report/reproduce.h"

#include "config/suite.h"
#include "util/text.h"

namespace bb::report {

std::vector<std::string> reproduce_commands(const model::ResultSet& head, const std::string& clone_url,
                                            const std::string& base_commit, const std::set<std::string>& suites,
                                            const std::string& base_result, const std::string& head_result) {
  std::vector<std::string> out;
  auto cfg = config::parse_suite_config(head.config_text, ".benchbox.yml");
  out.push_back("git clone " + shell_quote(clone_url.empty() ? "https://github.com/" + head.repository + ".git" : clone_url) +
                " repo && cd repo");
  auto side = [&](const std::string& commit, const char* what) {
    out.push_back("# " + std::string(what) + ": " + commit);
    out.push_back("git checkout --quiet " + commit);
    if (!cfg) return;
    for (const auto& s : cfg->suites) {
      if (!suites.empty() && !suites.count(s.name)) continue;
      std::string env;
      for (const auto& [k, v] : s.env) env += k + "=" + shell_quote(v) + " ";
      // Where runnerd tells the harness to write (docs/benchbox-yml.md).
      if (!s.output.empty()) env += "BENCHBOX_OUTPUT=" + shell_quote(s.output) + " ";
      if (!s.build.empty()) out.push_back(env + s.build + "    # build, suite " + s.name);
      out.push_back(env + s.run + "    # run " + std::to_string(s.repetitions) + "x, suite " + s.name +
                    (s.format == config::kCommandFormat ? " (benchbox times the command)" : ", format " + s.format));
    }
  };
  if (!base_commit.empty()) side(base_commit, "base");
  side(head.commit, "head");
  if (!cfg) out.push_back("# (the recorded .benchbox.yml no longer parses: " + cfg.error().message + ")");
  if (!base_commit.empty()) {
    out.push_back("# the measurements benchbox compared, and its verdict:");
    if (!base_result.empty() && base_result == head_result) {
      // One job measured both (a pull request): its file holds base and head.
      out.push_back("curl -sSfo result.json " + shell_quote(head_result));
      out.push_back("benchboxctl compare result.json");
    } else if (!base_result.empty()) {
      out.push_back("curl -sSfo base.json " + shell_quote(base_result));
      out.push_back("curl -sSfo head.json " + shell_quote(head_result));
      out.push_back("benchboxctl compare base.json head.json");
    } else {
      out.push_back("benchboxctl compare " + std::to_string(head.job_id));
    }
  }
  return out;
}

std::string reproduce_markdown(const std::vector<std::string>& commands) {
  std::string out = "<details><summary>Reproduce locally</summary>\n\n```sh\n";
  for (const auto& c : commands) out += c + "\n";
  return out + "```\n\n</details>\n";
}

}  // namespace bb::report
