// The dashboard's state in history.db: one summary per series it drew.
#include "report/history.h"

namespace bb::report {

namespace {

nlohmann::json to_json(const SeriesSummary& s) {
  nlohmann::json environments = nlohmann::json::array(), chunks = nlohmann::json::array();
  for (const auto& e : s.environments)
    environments.push_back({{"key", e.key}, {"machine", e.machine}, {"first_job", e.first_job},
                            {"first_position", e.first_position}, {"first_commit", e.first_commit}});
  for (const auto& [chunk, c] : s.chunks) {
    nlohmann::json per = nlohmann::json::array();
    for (const auto& [env, n] : c.per_environment) per.push_back({env, n});
    chunks.push_back({{"chunk", chunk}, {"points", c.points}, {"tail", c.tail}, {"per_environment", per}});
  }
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
          {"change_worse", s.change_worse},
          {"environments", environments},
          {"chunks", chunks}};
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
  if (auto e = j.find("environments"); e != j.end() && e->is_array())
    for (const auto& x : *e)
      s.environments.push_back({x.value("key", ""), x.value("machine", ""), x.value("first_job", int64_t{0}),
                                x.value("first_position", int64_t{-1}), x.value("first_commit", "")});
  if (auto c = j.find("chunks"); c != j.end() && c->is_array())
    for (const auto& x : *c) {
      SeriesChunk chunk;
      chunk.points = x.value("points", int64_t{0});
      chunk.tail = x.value("tail", int64_t{0});
      if (auto per = x.find("per_environment"); per != x.end() && per->is_array())
        for (const auto& pair : *per)
          if (pair.is_array() && pair.size() == 2 && pair[0].is_number_unsigned() && pair[1].is_number_integer())
            chunk.per_environment[pair[0].get<size_t>()] = pair[1].get<int64_t>();
      s.chunks[x.value("chunk", int64_t{0})] = std::move(chunk);
    }
  return s;
}

}  // namespace

Status HistoryStore::save_series_summary(const SeriesSummary& s) {
  auto q = db_.prepare(
      store::upsert_sql("site_series", "repository, ref, benchmark_key, summary", "repository, ref, benchmark_key"));
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
