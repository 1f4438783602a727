// benchbox canonical JSON: to_json(model::ResultSet), schema
// "benchbox.resultset/1" (docs/resultset.schema.json). The model's strict
// readers do the checking; benchmarks are streamed so large sets stay small.
#include "formats/json_support.h"
#include "formats/parsers.h"

namespace bb::formats::detail {

Result<ParsedList> parse_benchbox(const Input& in) {
  ParsedList out;
  auto streamed = stream_children(
      in.json(), in.source, "benchmarks", [&](const std::string&, json&& j, const Loc& at) -> Status {
        auto b = model::benchmark_from_json(j, at.ptr);
        if (!b) return make_error(Errc::parse, in.source + ":" + b.error().message);
        out.push_back(Parsed{std::move(*b), at.ptr});
        return {};
      });
  if (!streamed) return streamed.error();
  if (auto st = expect_streamed(*streamed, in.source, "benchmarks", Kind::array,
                                "a benchbox result set object");
      !st)
    return st.error();
  json& rest = streamed->rest;
  // The rest of the set (schema, commit, ...) is checked by the model too.
  rest["benchmarks"] = json::array();
  auto set = model::result_set_from_json(rest);
  if (!set) {
    const std::string& m = set.error().message;
    return make_error(Errc::parse, in.source + ":" + m);
  }
  return out;
}

}  // namespace bb::formats::detail
