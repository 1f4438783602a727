#include "model/job_group.h"

#include "util/json_read.h"

namespace bb::model {

const char* to_string(GroupKind k) {
  switch (k) {
    case GroupKind::backfill: return "backfill";
    case GroupKind::bisect: return "bisect";
    case GroupKind::shards: return "shards";
  }
  return "backfill";
}

std::optional<GroupKind> group_kind_from_string(const std::string& s) {
  if (s == "backfill") return GroupKind::backfill;
  if (s == "bisect") return GroupKind::bisect;
  if (s == "shards") return GroupKind::shards;
  return std::nullopt;
}

nlohmann::json to_json(const GroupSpec& s) {
  return {{"kind", to_string(s.kind)},
          {"repository", s.repository},
          {"description", s.description},
          {"requested_by", s.requested_by},
          {"skip_measured", s.skip_measured}};
}

nlohmann::json to_json(const JobGroup& g) {
  nlohmann::json j = to_json(g.spec);
  j["id"] = g.id;
  j["created"] = g.created;
  j["step"] = g.step;
  j["queued"] = g.queued;
  j["running"] = g.running;
  j["done"] = g.done;
  j["failed"] = g.failed;
  j["cancelled"] = g.cancelled;
  return j;
}

namespace {

template <class T>
Status take_group(const nlohmann::json& j, const char* key, T& out) {
  return take_member(j, key, out, "group field");
}

}  // namespace

Result<GroupSpec> group_spec_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return make_error(Errc::invalid_argument, "group spec is not a JSON object");
  GroupSpec s;
  std::string kind = to_string(s.kind);
  for (auto st : {take_group(j, "kind", kind), take_group(j, "repository", s.repository),
                  take_group(j, "description", s.description), take_group(j, "requested_by", s.requested_by),
                  take_group(j, "skip_measured", s.skip_measured)})
    if (!st) return st.error();
  auto k = group_kind_from_string(kind);
  if (!k) return make_error(Errc::invalid_argument, "unknown group kind '" + kind + "' (backfill, bisect or shards)");
  s.kind = *k;
  return s;
}

Result<JobGroup> job_group_from_json(const nlohmann::json& j) {
  auto spec = group_spec_from_json(j);
  if (!spec) return spec.error();
  JobGroup g;
  g.spec = std::move(*spec);
  for (auto st : {take_group(j, "id", g.id), take_group(j, "created", g.created), take_group(j, "step", g.step),
                  take_group(j, "queued", g.queued), take_group(j, "running", g.running), take_group(j, "done", g.done),
                  take_group(j, "failed", g.failed), take_group(j, "cancelled", g.cancelled)})
    if (!st) return st.error();
  return g;
}

Status validate(const GroupSpec& s) {
  if (s.repository.empty()) return make_error(Errc::invalid_argument, "a job group needs a repository");
  if (s.description.size() > 200)
    return make_error(Errc::invalid_argument, "a job group's description is at most 200 bytes");
  return {};
}

}  // namespace bb::model
