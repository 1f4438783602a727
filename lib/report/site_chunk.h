// A trend chunk's data as the dashboard loads it (docs/dashboard.md,
// "chunk"): columnar and typed, so a trend of 10,000 points is about the
// size of its numbers, not of their JSON. Integer columns are
// delta-encoded (a branch's x, its jobs and dates mostly step by a small
// amount); median and quartiles are little-endian float32 in base64 (7
// significant digits, what the chunk kept before), float64 where a value
// does not fit a float32; a status is an index into the chunk's few
// distinct ones; labels (tags) are listed where there are any. Commit ids,
// 20 incompressible bytes a point, are the same for every series of a
// ref: they go in one file per chunk of the ref, by job, loaded when the
// page needs them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/result.h"

namespace bb::report::site {

inline constexpr const char* kChunkSchema = "benchbox.site.chunk/2";
inline constexpr const char* kCommitsSchema = "benchbox.site.commits/1";

// One chunk's points, a column each, one entry per point.
struct ChunkColumns {
  std::vector<int64_t> x, time, job, n, env;
  std::vector<double> median, q1, q3;  // NaN: not measured (failed, skipped)
  std::vector<std::string> status, label;  // label "": none

  size_t size() const { return x.size(); }
  // Appends `tail`'s points after these.
  void append(ChunkColumns&& tail);
  // Removes the points from `at` on and returns them.
  ChunkColumns split_off(size_t at);
};

// Encodes one chunk after another into the same two trees, their arrays'
// elements and strings reused: a job rewrites a chunk of every series it
// touched, and building and freeing arrays of 1,024 values (nlohmann moves
// each element when it frees an array) was a third of what a chunk cost. The
// trees are valid until the next call.
class ChunkEncoder {
 public:
  const nlohmann::json& chunk(const ChunkColumns& c, const std::string& commits_src, const std::string& commits_name);
  const nlohmann::json& commits(const std::vector<std::pair<int64_t, std::string>>& commits);

 private:
  nlohmann::json chunk_, commits_;
};

// The chunk's data file; `commits_src`/`commits_name` say where its
// ref's commits are (site_paths.h).
nlohmann::json encode_chunk(const ChunkColumns& c, const std::string& commits_src, const std::string& commits_name);
// The same into `j`, its arrays' elements and strings reused where it
// holds a chunk already (ChunkEncoder's trees; a series' recent entry,
// whose tail a push encodes again).
void encode_chunk_into(nlohmann::json& j, const ChunkColumns& c, const std::string& commits_src,
                       const std::string& commits_name);
// A ref chunk's commits file: each run's (job, commit), in drawing order
// (HistoryStore::chunk_commits).
nlohmann::json encode_commits(const std::vector<std::pair<int64_t, std::string>>& commits);
// The chunk again as columns, from its JSON (site::data_file's argument);
// an error says what is malformed.
Result<ChunkColumns> decode_chunk(std::string_view chunk_json);
// The tail of chunk `chunk` (chunk_id) that a series file holds inline,
// in its chunk list's tail entry (docs/dashboard.md, "series"), from the
// series file's JSON; an error when it lists none or it is malformed.
Result<ChunkColumns> decode_series_tail(std::string_view series_json, const std::string& chunk);

}  // namespace bb::report::site
