// Where each page and data file of the dashboard lives (docs/dashboard.md,
// "Layout"), relative to the site root, and how a data file is written. One
// place, so the reporter, the pages and the links in GitHub posts agree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace bb::report::site {

// Points per chunk of a branch's trend: a new point rewrites one chunk.
inline constexpr int64_t kChunkPoints = 1024;
// A branch's newest chunk keeps its newest points apart, its tail, in the
// series' recent entry (site_recent.h): a push rewrites the recent file,
// and the chunk's file once per kTailPoints points (site_series.cpp,
// tail_split); a newest chunk of at most kTailPoints points is all tail.
inline constexpr int64_t kTailPoints = 64;
// A branch's chunks [g x kPackChunks, (g + 1) x kPackChunks), once its
// newest chunk is past them, are also written together in one file, pack
// g, which the page loads instead of their files: Chromium's cost per file
// was most of what a 10,000-point trend cost over a one-point one.
inline constexpr int64_t kPackChunks = 8;

// "owner/name" -> "r/owner/name"; characters outside [A-Za-z0-9._-] become
// '_', and a component that would be "." or ".." gets a leading '_'.
std::string repository_dir(const std::string& repository);
// The series id of a benchmark key on a ref (or kReleaseSeries): 16 hex
// digits of SHA-256 of "<ref>\n<key>".
std::string series_id(const std::string& ref, const std::string& key);

std::string index_page();
std::string index_data();
// The box health page (box_page.h).
std::string box_page();
std::string box_data();
std::string repository_page(const std::string& repository);
std::string repository_data(const std::string& repository);
std::string trend_page(const std::string& repository, const std::string& sid);
std::string series_data(const std::string& repository, const std::string& sid);
std::string chunk_data(const std::string& repository, const std::string& sid, int64_t chunk);
// Pack `group` of a series' chunks (kPackChunks): their files' scripts, one
// after another, each handing over its chunk's data name as before.
std::string pack_data(const std::string& repository, const std::string& sid, int64_t group);
// Where a site from before kept a tail, in a file of its own: read until
// its series is written again, and removed then.
std::string tail_data(const std::string& repository, const std::string& sid, int64_t chunk);
// The commit ids of a chunk of a ref's runs, by job, which every series of
// the ref shares (site_chunk.h).
std::string commits_data(const std::string& repository, const std::string& ref, int64_t chunk);
// What a branch's trends change with every push (site_recent.h), for the
// series of one group of its ref: series `sid` is in group
// recent_group(sid), one of kRecentGroups.
inline constexpr int kRecentGroups = 64;
int recent_group(const std::string& sid);
std::string recent_data(const std::string& repository, const std::string& ref, int group);
// What a series file's chunk list names its files by (docs/dashboard.md,
// "series"): a chunk's file is src + chunk_id + ".js" and its data name
// name + chunk_id; a tail of a site from before added ".t" to the file and
// "/tail" to the name. The same for a ref chunk's commits. chunk_data,
// tail_data, commits_data and their names are built from the same
// prefixes, and the page's rule is tested against them.
struct FilePattern {
  std::string src, name;
};
FilePattern chunk_pattern(const std::string& repository, const std::string& sid);
FilePattern commits_pattern(const std::string& repository, const std::string& ref);
// A chunk's part of its file and data names: its number, "u" for the
// unplaced points.
std::string chunk_id(int64_t chunk);
// Where a series kept its own chunk's commit ids before they were the
// ref's: removed when the series is written whole.
std::string series_commits_data(const std::string& repository, const std::string& sid, int64_t chunk);
std::string run_page(const std::string& repository, int64_t job_id);
std::string run_data(const std::string& repository, int64_t job_id);
std::string run_result_download(const std::string& repository, int64_t job_id);
std::string run_report_download(const std::string& repository, int64_t job_id);
// The same for a run named otherwise: a sharded suite's job group shows
// its merged report as run "group-<G>" (group_run_id).
std::string group_run_id(int64_t group_id);
std::string run_page(const std::string& repository, const std::string& run_id);
std::string run_data(const std::string& repository, const std::string& run_id);
std::string run_result_download(const std::string& repository, const std::string& run_id);
std::string run_report_download(const std::string& repository, const std::string& run_id);
// A callgrind profile of a run (role "base", "head", or "run"), copied in.
std::string run_profile(const std::string& repository, const std::string& run_id, const std::string& role,
                        const std::string& file);
// The differential flame graph of a run's regression `index` (its place in
// the report's profile_diffs): the tree as a data file, each side's folded
// stacks to download, and the anchor of its section on the run page.
std::string run_flame_data(const std::string& repository, const std::string& run_id, size_t index);
std::string run_flame_folded(const std::string& repository, const std::string& run_id, size_t index,
                             const std::string& role);
std::string flame_anchor(size_t index);
std::string pull_page(const std::string& repository, int64_t number);
std::string pull_data(const std::string& repository, int64_t number);

// The names data files pass to benchbox.receive.
std::string series_name(const std::string& sid);
std::string chunk_name(const std::string& sid, int64_t chunk);
std::string tail_name(const std::string& sid, int64_t chunk);
std::string commits_name(const std::string& ref, int64_t chunk);
std::string recent_name(const std::string& ref, int group);
std::string run_name(int64_t job_id);
std::string run_name(const std::string& run_id);
std::string run_flame_name(const std::string& run_id, size_t index);
inline const char* box_name() { return "box"; }
std::string pull_name(int64_t number);

// A data file's text: `benchbox.receive("name", <json>);`.
std::string data_file(const std::string& name, const nlohmann::json& value);
// The JSON text of a data file's call again; "" when `text` is not one.
std::string data_file_json(const std::string& text);
// The JSON text of the data file at `path` on disk (at most 64 MiB); ""
// when it cannot be read or is not one.
std::string read_data_file(const std::string& path);

// The HTML shell of a page: `page` (index, repository, trend, run, pull)
// draws the data file `src` (relative to the root) named `name`. `path` is
// the page's own path, from which the way back to the root is derived.
std::string shell(const std::string& path, const std::string& page, const std::string& title,
                  const std::string& src, const std::string& name, const std::vector<std::string>& preload = {});

// "a/b/c.html" -> "../.." (the root as seen from the page); "index.html" -> ".".
std::string root_from(const std::string& path);

// A ref as people name it: "refs/heads/main" -> "main", the release series
// -> "releases (tags)".
std::string ref_name(const std::string& ref);

}  // namespace bb::report::site
