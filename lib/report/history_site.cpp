// The dashboard's state in history.db: one summary per series it drew.
#include "report/history.h"

namespace bb::report {

namespace {

nlohmann::json to_json(const SeriesSummary& s) {
  return {{"id", s.id},
          {"unit", s.unit},
          {"direction", model::to_string(s.direction)},
          {"points", s.points},
          {"latest_value", s.latest_value},
          {"latest_measured", s.latest_measured},
          {"latest_commit", s.latest_commit},
          {"latest_status", s.latest_status},
          {"latest_job", s.latest_job},
          {"has_change", s.has_change},
          {"change_ratio", s.change_ratio},
          {"change_worse", s.change_worse}};
}

SeriesSummary summary_of(const store::Statement& q) {
  SeriesSummary s;
  s.repository = q.column_text(0);
  s.ref = q.column_text(1);
  s.key = q.column_text(2);
  const auto j = nlohmann::json::parse(q.column_text(3), nullptr, false);
  if (!j.is_object()) return s;
  s.id = j.value("id", "");
  s.unit = j.value("unit", "");
  s.direction = j.value("direction", "") == "higher_is_better" ? model::Direction::higher_is_better
                                                               : model::Direction::lower_is_better;
  s.points = j.value("points", int64_t{0});
  s.latest_value = j.value("latest_value", 0.0);
  s.latest_measured = j.value("latest_measured", false);
  s.latest_commit = j.value("latest_commit", "");
  s.latest_status = j.value("latest_status", "");
  s.latest_job = j.value("latest_job", int64_t{0});
  s.has_change = j.value("has_change", false);
  s.change_ratio = j.value("change_ratio", 1.0);
  s.change_worse = j.value("change_worse", false);
  return s;
}

}  // namespace

Status HistoryStore::save_series_summary(const SeriesSummary& s) {
  auto q = db_.prepare(
      "INSERT OR REPLACE INTO site_series (repository, ref, benchmark_key, summary) VALUES (?,?,?,?)");
  if (!q) return q.error();
  q->bind(1, s.repository).bind(2, s.ref).bind(3, s.key).bind(4, to_json(s).dump());
  return q->run();
}

Result<std::vector<SeriesSummary>> HistoryStore::series_summaries(const std::string& repository,
                                                                  const std::string& ref) {
  auto q = db_.prepare(std::string("SELECT repository, ref, benchmark_key, summary FROM site_series"
                                   " WHERE repository = ?") +
                       (ref.empty() ? "" : " AND ref = ?") + " ORDER BY benchmark_key, ref");
  if (!q) return q.error();
  q->bind(1, repository);
  if (!ref.empty()) q->bind(2, ref);
  std::vector<SeriesSummary> out;
  for (;;) {
    auto row = q->step();
    if (!row) return row.error();
    if (!*row) return out;
    out.push_back(summary_of(*q));
  }
}

Status HistoryStore::clear_series_summaries(const std::string& repository) {
  auto q = db_.prepare("DELETE FROM site_series WHERE repository = ?");
  if (!q) return q.error();
  q->bind(1, repository);
  return q->run();
}

}  // namespace bb::report
