// The dashboard's state in history.db: one summary per series it drew.
#include "report/history.h"

#include <algorithm>

namespace bb::report {

namespace {

nlohmann::json to_json(const SeriesSummary& s) {
  nlohmann::json environments = nlohmann::json::array(), chunks = nlohmann::json::array();
  for (const auto& e : s.environments)
    environments.push_back({{"key", e.key}, {"machine", e.machine}, {"first_job", e.first_job},
                            {"first_position", e.first_position}, {"first_commit", e.first_commit}});
  // A chunk as one flat array, [chunk, points, tail, environment, points,
  // environment, points, ...]: saved on every push for every series, and a
  // branch of 10,000 points has ten chunks. Each array or object is one
  // more node nlohmann builds, writes and frees (freeing a node moves its
  // children through a stack of their own), so objects of named members,
  // and then nested pairs, cost several times as much.
  auto& list = chunks.get_ref<nlohmann::json::array_t&>();
  list.reserve(s.chunks.size());
  for (const auto& [chunk, c] : s.chunks) {
    nlohmann::json entry = nlohmann::json::array();
    auto& e = entry.get_ref<nlohmann::json::array_t&>();
    e.reserve(3 + 2 * c.per_environment.size());
    e.emplace_back(chunk);
    e.emplace_back(c.points);
    e.emplace_back(c.tail);
    for (const auto& [env, n] : c.per_environment) {
      e.emplace_back(env);
      e.emplace_back(n);
    }
    list.push_back(std::move(entry));
  }
  // Member by member: an initializer list would copy both lists whole.
  nlohmann::json out = nlohmann::json::object();
  out["id"] = s.id;
  out["unit"] = s.unit;
  out["direction"] = model::to_string(s.direction);
  out["points"] = s.points;
  out["latest_value"] = s.latest_value;
  out["latest_measured"] = s.latest_measured;
  out["latest_commit"] = s.latest_commit;
  out["latest_status"] = s.latest_status;
  out["latest_job"] = s.latest_job;
  out["has_change"] = s.has_change;
  out["change_ratio"] = s.change_ratio;
  out["change_worse"] = s.change_worse;
  out["environments"] = std::move(environments);
  out["chunks"] = std::move(chunks);
  return out;
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
      int64_t number = 0;
      if (x.is_array() && x.size() >= 3 && x.size() % 2 == 1 &&
          std::all_of(x.begin(), x.end(), [](const nlohmann::json& v) { return v.is_number_integer(); })) {
        number = x[0].get<int64_t>();
        chunk.points = x[1].get<int64_t>();
        chunk.tail = x[2].get<int64_t>();
        for (size_t i = 3; i + 1 < x.size(); i += 2)
          if (x[i].is_number_unsigned()) chunk.per_environment[x[i].get<size_t>()] = x[i + 1].get<int64_t>();
      } else if (x.is_object()) {  // as summaries were saved before
        number = x.value("chunk", int64_t{0});
        chunk.points = x.value("points", int64_t{0});
        chunk.tail = x.value("tail", int64_t{0});
        if (auto per = x.find("per_environment"); per != x.end() && per->is_array())
          for (const auto& pair : *per)
            if (pair.is_array() && pair.size() == 2 && pair[0].is_number_unsigned() && pair[1].is_number_integer())
              chunk.per_environment[pair[0].get<size_t>()] = pair[1].get<int64_t>();
      } else {
        continue;
      }
      s.chunks[number] = std::move(chunk);
    }
  return s;
}

}  // namespace

Status HistoryStore::save_series_summary(const SeriesSummary& s) {
  static const std::string sql =
      store::upsert_sql("site_series", "repository, ref, benchmark_key, summary", "repository, ref, benchmark_key");
  auto q = db_.prepare(sql);
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
