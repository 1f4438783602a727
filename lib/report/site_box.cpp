// The dashboard's box health page (box.html, data/box.js; box_page.h):
// written when the canary's history changes, when a job finishes, and
// when the site is rendered again. The data file is the page's memory of
// what jobs and the canary told it: each write reads it back and changes
// only its own part, so a reporterd restart loses nothing of it.
#include "report/box_page.h"
#include "report/site.h"
#include "report/site_paths.h"
#include "util/file.h"
#include "util/version.h"

namespace bb::report {

Status SiteWriter::write_box(const std::function<void(nlohmann::json&)>& change) {
  nlohmann::json data = nlohmann::json::object();
  auto j = nlohmann::json::parse(site::read_data_file(path_join(options_.site_dir, site::box_data())), nullptr, false);
  if (j.is_object()) data = std::move(j);
  if (change) change(data);
  // Held: the open regressions a push found while the canary said the box
  // had shifted (reporterd's hold.cpp), of every repository.
  auto repos = history_.repositories();
  if (!repos) return repos.error();
  nlohmann::json held = nlohmann::json::array();
  for (const auto& repository : *repos) {
    auto open = open_regressions(repository);
    if (!open) return open.error();
    for (auto& r : *open)
      if (r.value("confirmation", "") == "held") {
        r["repository"] = repository;
        r["repository_page"] = site::repository_page(repository);
        held.push_back(std::move(r));
      }
  }
  data["schema"] = "benchbox.site.box/1";
  data["generated"] = options_.clock ? options_.clock->now_unix() : int64_t(0);
  data["version"] = bb::version();
  data["held"] = held;
  for (const char* part : {"health", "canary", "tuning"})
    if (!data.contains(part)) data[part] = nullptr;
  if (!data.contains("suites")) data["suites"] = nlohmann::json::array();
  if (auto st = write(site::box_data(), site::data_file(site::box_name(), data)); !st) return st;
  return write_shell(site::box_page(), "box", "box health · benchbox", site::box_data(), site::box_name());
}

Status SiteWriter::box_canary(const canary::Health& health, const std::vector<canary::Run>& runs,
                              const std::string& environment_key) {
  if (auto st = write_assets(); !st) return st;
  const nlohmann::json part = box_canary_json(health, runs, environment_key);
  return write_box([&](nlohmann::json& data) {
    for (const auto& [k, v] : part.items()) data[k] = v;
  });
}

}  // namespace bb::report
