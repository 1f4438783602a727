// The dashboard's files on disk: what a job writes, what it leaves alone,
// and that every data file is the JSON docs/dashboard.md describes. (The
// pages themselves are drawn in a real browser: tests/browser.)
#include <catch2/catch.hpp>

#include <functional>

#include <map>
#include <optional>

#include <cstdlib>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

#include "store/test_location.h"
#include "report/flame.h"
#include "report/history.h"
#include "report/job_report.h"
#include "report/shard_merge.h"
#include "report/site.h"
#include "report/site_chunk.h"
#include "report/site_paths.h"
#include "report/test_chunk_columns.h"
#include "util/file.h"
#include "util/test_tempdir.h"

using namespace bb;
using namespace bb::model;
using bb::report::test::check_same;
namespace site = bb::report::site;

namespace {

using Dir = bb::test::TempDir;

ResultSet placed_run(int64_t job, int64_t position, double value, const std::string& ref = "refs/heads/main",
                     const std::string& env = "env1") {
  ResultSet rs;
  rs.repository = "octo/widgets";
  rs.ref = ref;
  rs.commit = std::string(40 - std::to_string(job).size(), 'a') + std::to_string(job);
  rs.job_id = job;
  rs.environment_key = env;
  rs.machine_fingerprint = "machine-" + env;
  rs.commit_info.first_parent_position = position;
  rs.commit_info.time = 1700000000 + position * 600;
  for (const char* metric : {"wall_time", "cpu_time"}) {
    Benchmark b;
    b.key = {"micro", "parse", {{"n", "10"}}, metric};
    for (int i = 0; i < 9; ++i) b.samples.push_back(value * (1 + 0.001 * (i % 3)));
    rs.benchmarks.push_back(b);
  }
  return rs;
}

Job job_of(const ResultSet& rs, JobKind kind) {
  Job j;
  j.id = rs.job_id;
  j.state = JobState::done;
  j.spec.kind = kind;
  j.spec.repository = rs.repository;
  j.spec.ref = rs.ref;
  j.spec.head_sha = rs.commit;
  j.spec.clone_url = "/srv/git/widgets.git";
  j.result_path = "/var/lib/benchbox/results/1/result.json";
  return j;
}

report::HistoryStore open_history(const std::string& path) {
  auto h = report::HistoryStore::open(store::testdb::location(path));
  REQUIRE(h.ok());
  return std::move(*h);
}

// Ingests a run the way reporterd does and tells the site.
struct Box {
  Dir dir;
  report::HistoryStore history = open_history(dir.path + "/history.db");
  report::ChangeCache changes;
  std::vector<std::string> globs = {"main"};
  std::optional<report::SiteWriter> writer{std::in_place, history, options(), changes};
  report::SiteWriter& site = *writer;
  // reporterd started again: what the writer kept in memory is gone.
  void restart() { writer.emplace(history, options(), changes); }

  report::SiteOptions options() {
    report::SiteOptions o;
    o.site_dir = dir.path + "/site";
    o.branch_globs = [this](const std::string&) { return globs; };
    return o;
  }

  void finish(const ResultSet& rs, const std::string& kind = "push", bool backfill = false,
              const std::function<void(report::JobReport&)>& edit = {}) {
    JobResult jr;
    jr.job_id = rs.job_id;
    jr.kind = kind;
    jr.head = rs;
    auto previous = history.previous_run(rs, kind);
    REQUIRE(previous.ok());
    REQUIRE(history.ingest(rs, kind).ok());
    const JobKind k = kind == "tag" ? JobKind::tag : JobKind::push;
    auto rep = report::build_report(job_of(rs, k), jr, *previous, {});
    if (edit) edit(rep);
    REQUIRE(history.record_job({rs.job_id, rs.repository, kind, rs.ref, 0, rs.commit, "", 1, 2, "done",
                                report::to_string(rep.overall), rep.summary, rs.commit_info.time, backfill})
                .ok());
    const nlohmann::json lent = rep.json;
    auto st = site.job_finished(rep, jr);
    INFO((st ? "" : st.error().message));
    REQUIRE(st.ok());
    CHECK(rep.json == lent);  // the page borrowed its members and gave them back
  }

  std::string file(const std::string& rel) {
    auto text = read_file(dir.path + "/site/" + rel);
    INFO(rel);
    REQUIRE(text.ok());
    return *text;
  }
  // A data file's JSON; a branch's series file completed as its page
  // completes it (trend.js, withRecent): its recent entry's points count,
  // change points and tail.
  nlohmann::json data(const std::string& rel, const std::string& name) {
    nlohmann::json j = raw_data(rel, name);
    if (name.rfind("series/", 0) != 0 || !j.contains("recent")) return j;
    CHECK(j["schema"] == "benchbox.site.series/3");
    CHECK_FALSE(j.contains("points"));
    CHECK_FALSE(j.contains("change_points"));
    nlohmann::json recent = raw_data(j["recent"]["src"], j["recent"]["name"]);
    REQUIRE(recent["schema"] == site::kRecentSchema);
    const std::string sid = j["id"];
    INFO(sid << " in " << j["recent"]["src"]);
    REQUIRE(recent["series"].contains(sid));
    const nlohmann::json& e = recent["series"][sid];
    j["points"] = e["points"];
    j["change_points"] = e["change_points"];
    if (!e["tail"].is_null()) j["chunks"].push_back(e["tail"]);
    return j;
  }
  // A data file's JSON, after checking the benchbox.receive wrapper and name.
  nlohmann::json raw_data(const std::string& rel, const std::string& name) {
    const std::string text = file(rel);
    const std::string prefix = "benchbox.receive(\"" + name + "\", ";
    INFO(rel << ": " << text.substr(0, 80));
    REQUIRE(text.rfind(prefix, 0) == 0);
    REQUIRE(text.size() > prefix.size() + 3);
    REQUIRE(text.substr(text.size() - 3) == ");\n");
    auto j = nlohmann::json::parse(text.substr(prefix.size(), text.size() - prefix.size() - 3), nullptr, false);
    REQUIRE_FALSE(j.is_discarded());
    return j;
  }
  // A trend chunk, decoded (site_chunk.h), whole as the page joins it: its
  // file, and its tail when it is a branch's newest chunk (a chunk of at
  // most kTailPoints points is all tail and has no file).
  site::ChunkColumns chunk(const std::string& sid, const std::string& k) {
    const std::string rel = "data/r/octo/widgets/s/" + sid + "." + k + ".js";
    site::ChunkColumns out;
    if (path_exists(dir.path + "/site/" + rel)) {
      auto c = site::decode_chunk(data(rel, "chunk/" + sid + "/" + k).dump());
      INFO((c ? "" : c.error().message));
      REQUIRE(c);
      out = std::move(*c);
    }
    const auto series = data(site::series_data("octo/widgets", sid), site::series_name(sid));
    for (const auto& e : series["chunks"])
      if (e["chunk"] == k && e.value("tail", false)) {
        auto t = site::decode_chunk(e["data"].dump());
        INFO((t ? "" : t.error().message) << " " << e["data"].dump());
        REQUIRE(t);
        out.append(std::move(*t));
      }
    REQUIRE(out.size() > 0);
    return out;
  }
  // The newest chunk's tail in the recent file, changed by `edit`: what a
  // push appends to when this writer kept none.
  void edit_tail(const std::string& sid, const std::function<void(site::ChunkColumns&)>& edit) {
    const std::string src = site::recent_data("octo/widgets", "refs/heads/main", site::recent_group(sid));
    const std::string name = site::recent_name("refs/heads/main", site::recent_group(sid));
    auto recent = raw_data(src, name);
    nlohmann::json& tail = recent["series"][sid]["tail"];
    REQUIRE(tail.is_object());
    auto cols = site::decode_chunk(tail["data"].dump());
    REQUIRE(cols);
    edit(*cols);
    tail["data"] = site::encode_chunk(*cols, tail["data"]["commits"]["src"], tail["data"]["commits"]["name"]);
    REQUIRE(write_file_atomic(dir.path + "/site/" + src, site::data_file(name, recent)));
  }
  // A branch chunk's tail (site_paths.h, kTailPoints), as its series file
  // holds it.
  site::ChunkColumns tail(const std::string& sid, int64_t k) {
    auto c = site::decode_series_tail(data(site::series_data("octo/widgets", sid), site::series_name(sid)).dump(),
                                      site::chunk_id(k));
    INFO((c ? "" : c.error().message));
    REQUIRE(c);
    return std::move(*c);
  }
  // A chunk of a ref's commits, by job.
  std::map<int64_t, std::string> commits(const std::string& ref, int64_t k) {
    auto j = data(site::commits_data("octo/widgets", ref, k), site::commits_name(ref, k));
    REQUIRE(j["schema"] == site::kCommitsSchema);
    REQUIRE(j["job"].size() == j["commit"].size());
    std::map<int64_t, std::string> out;
    int64_t job = 0;
    for (size_t i = 0; i < j["job"].size(); ++i) out[job += j["job"][i].get<int64_t>()] = j["commit"][i];
    return out;
  }
};

const std::string kKey = "micro/parse[n=10]:wall_time";

// A series file's chunk entry as the page completes it (trend.js): its
// file and data name, and its commits file's, from the series' patterns.
struct EntryFiles {
  std::string src, name, commits_src, commits_name;
};
EntryFiles entry_files(const nlohmann::json& series, const nlohmann::json& c) {
  const std::string k = c.at("chunk");
  const bool tail = c.value("tail", false);
  EntryFiles f;
  f.src = c.contains("src") ? c["src"].get<std::string>()
                            : series["chunk_files"]["src"].get<std::string>() + k + (tail ? ".t.js" : ".js");
  f.name = c.contains("name") ? c["name"].get<std::string>()
                              : series["chunk_files"]["name"].get<std::string>() + k + (tail ? "/tail" : "");
  if (c.value("commits", false)) {
    f.commits_src = series["commit_files"]["src"].get<std::string>() + k + ".js";
    f.commits_name = series["commit_files"]["name"].get<std::string>() + k;
  }
  return f;
}

}  // namespace

TEST_CASE("a branch's older chunks are packed, several to a file, which the page and its shell load instead") {
  Box box;
  const int64_t P = site::kChunkPoints, G = site::kPackChunks;
  const std::string sid = site::series_id("refs/heads/main", kKey);
  const std::string pack = site::pack_data("octo/widgets", sid, 0);
  auto series = [&] { return box.data(site::series_data("octo/widgets", sid), site::series_name(sid)); };
  // What pack 0 must hold: its chunks' files, one after another.
  auto chunk_files = [&] {
    std::string text;
    for (int64_t c = 0; c < G; ++c) text += box.file(site::chunk_data("octo/widgets", sid, c));
    return text;
  };
  // A point in each chunk of the first group: the newest is among them.
  for (int64_t c = 0; c < G; ++c) box.finish(placed_run(c + 1, c * P + 5, 0.100 + 0.001 * double(c)));
  CHECK_FALSE(path_exists(box.dir.path + "/site/" + pack));
  const nlohmann::json unpacked = series();
  for (const auto& e : unpacked["chunks"]) CHECK_FALSE(e.contains("src"));

  // The next group begins: the first is packed.
  box.finish(placed_run(G + 1, G * P + 5, 0.200));
  CHECK(box.file(pack) == chunk_files());
  nlohmann::json s = series();
  REQUIRE(s["chunks"].size() == size_t(G + 1));
  for (int64_t c = 0; c < G; ++c) {
    const EntryFiles f = entry_files(s, s["chunks"][size_t(c)]);
    CHECK(f.src == pack);
    CHECK(f.name == site::chunk_name(sid, c));
  }
  // The newest chunk, of one point, is all tail: in the recent file.
  CHECK(s["chunks"][size_t(G)]["tail"] == true);
  CHECK(s["chunks"][size_t(G)]["chunk"] == site::chunk_id(G));
  CHECK_FALSE(path_exists(box.dir.path + "/site/" + site::chunk_data("octo/widgets", sid, G)));
  const std::string shell = box.file(site::trend_page("octo/widgets", sid));
  CHECK(shell.find(pack) != std::string::npos);
  CHECK(shell.find(site::chunk_data("octo/widgets", sid, 0)) == std::string::npos);
  CHECK(shell.find(site::recent_data("octo/widgets", "refs/heads/main", site::recent_group(sid))) != std::string::npos);

  // A backfill into a packed chunk: the pack takes the chunk as written again.
  box.finish(placed_run(G + 2, 3 * P + 7, 0.300), "push", true);
  CHECK(box.chunk(sid, "3").size() == 2);
  CHECK(box.file(pack) == chunk_files());

  // A pack gone from the disk is made again by the next write of its
  // series, by a writer that knows nothing of the one before.
  REQUIRE(::unlink((box.dir.path + "/site/" + pack).c_str()) == 0);
  box.restart();
  box.finish(placed_run(G + 3, G * P + 6, 0.200));
  CHECK(box.file(pack) == chunk_files());

  // History without the second group's points (removed by hand), the site
  // rendered whole: the first group holds the newest chunk again, and its
  // pack goes.
  const std::string past = std::to_string(G * P);
  REQUIRE(box.history.database().exec("DELETE FROM points WHERE position >= " + past).ok());
  REQUIRE(box.history.database().exec("DELETE FROM runs WHERE position >= " + past).ok());
  REQUIRE(box.site.render_all().ok());
  CHECK_FALSE(path_exists(box.dir.path + "/site/" + pack));
  const nlohmann::json rendered = series();
  CHECK(rendered["chunks"].size() == size_t(G));
  for (const auto& e : rendered["chunks"]) CHECK_FALSE(e.contains("src"));
}

TEST_CASE("a backfilled run is marked, for the pages to list it apart from the branch's pushes") {
  Box box;
  box.finish(placed_run(1, 100, 0.100));
  box.finish(placed_run(2, 99, 0.100), "push", true);  // an older commit, measured later
  const auto repo = box.data("data/r/octo/widgets/repo.js", "repo");
  std::map<int64_t, bool> backfill;
  for (const auto& run : repo["runs"]) backfill[run["job_id"].get<int64_t>()] = run["backfill"].get<bool>();
  CHECK(backfill == std::map<int64_t, bool>{{1, false}, {2, true}});
}

TEST_CASE("a push writes its run, its trends, its repository and the index, with relative links only") {
  Box box;
  box.finish(placed_run(1, 100, 0.100));
  box.finish(placed_run(2, 101, 0.100));
  const std::string sid = site::series_id("refs/heads/main", kKey);
  CHECK(sid.size() == 16);

  auto index = box.data("data/index.js", "index");
  CHECK(index["schema"] == "benchbox.site.index/1");
  REQUIRE(index["repositories"].size() == 1);
  CHECK(index["repositories"][0]["page"] == "r/octo/widgets/index.html");
  CHECK(index["repositories"][0]["latest_runs"][0]["job_id"] == 2);
  CHECK(index["repositories"][0]["latest_runs"][0].contains("commit_time"));
  CHECK(index["repositories"][0]["latest_runs"][0]["backfill"] == false);

  auto repo = box.data("data/r/octo/widgets/repo.js", "repo");
  REQUIRE(repo["refs"].size() == 1);
  CHECK(repo["refs"][0]["name"] == "main");
  REQUIRE(repo["benchmarks"].size() == 2);
  const auto& wall = repo["benchmarks"][1];
  CHECK(wall["key"] == kKey);
  CHECK(wall["suite"] == "micro");
  CHECK(wall["metric"] == "wall_time");
  CHECK(wall["series"]["refs/heads/main"]["page"] == "r/octo/widgets/t/" + sid + ".html");
  CHECK(wall["series"]["refs/heads/main"]["points"] == 2);

  auto series = box.data("data/r/octo/widgets/s/" + sid + ".js", "series/" + sid);
  CHECK(series["x"] == "first_parent");
  CHECK(series["points"] == 2);
  CHECK(series["params"]["n"] == "10");
  CHECK(series["schema"] == "benchbox.site.series/3");
  // Two points: the chunk is all tail, in the recent file (no file of its own).
  REQUIRE(series["chunks"].size() == 1);
  CHECK(series["chunks"][0]["chunk"] == "0");
  CHECK(series["chunks"][0]["tail"] == true);
  CHECK(series["chunks"][0]["data"]["points"] == 2);
  CHECK_FALSE(path_exists(box.dir.path + "/site/" + site::chunk_data("octo/widgets", sid, 0)));
  const EntryFiles first = entry_files(series, series["chunks"][0]);
  REQUIRE(series["siblings"]["metrics"].size() == 2);  // wall_time and cpu_time: the metric selector
  // The commits are the ref's: one file per chunk of main, for all its series.
  CHECK(first.commits_src == site::commits_data("octo/widgets", "refs/heads/main", 0));
  CHECK(first.commits_name == site::commits_name("refs/heads/main", 0));
  // The patterns name every kind of file as the writer does: a tail, and
  // the chunk of unplaced points ("u").
  const EntryFiles u = entry_files(series, {{"chunk", site::chunk_id(-1)}, {"tail", true}, {"commits", true}});
  CHECK(u.src == site::tail_data("octo/widgets", sid, -1));
  CHECK(u.name == site::tail_name(sid, -1));
  CHECK(u.commits_src == site::commits_data("octo/widgets", "refs/heads/main", -1));
  CHECK(u.commits_name == site::commits_name("refs/heads/main", -1));
  CHECK(site::commits_data("octo/widgets", "refs/heads/main", 0).rfind("data/r/octo/widgets/c/", 0) == 0);
  CHECK(box.commits("refs/heads/main", 0) == std::map<int64_t, std::string>{{1, placed_run(1, 100, 0.1).commit},
                                                                           {2, placed_run(2, 101, 0.1).commit}});
  auto chunk = box.chunk(sid, "0");
  CHECK(chunk.x == std::vector<int64_t>{100, 101});
  CHECK(chunk.median[1] == Approx(0.100 * 1.001).epsilon(1e-7));
  CHECK(chunk.q1[1] <= chunk.median[1]);
  CHECK(chunk.time[0] == 1700000000 + 100 * 600);
  CHECK(chunk.job == std::vector<int64_t>{1, 2});
  CHECK(chunk.status == std::vector<std::string>{"ok", "ok"});

  auto run = box.data("data/r/octo/widgets/runs/2.js", "run/2");
  CHECK(run["overall"] == "unchanged");
  CHECK(run["trend_pages"][kKey] == "r/octo/widgets/t/" + sid + ".html");
  CHECK(run["downloads"]["result"] == "r/octo/widgets/runs/2.result.json");
  CHECK_FALSE(run["job"].contains("result_path"));  // where the box keeps files is not published
  CHECK(nlohmann::json::parse(box.file("r/octo/widgets/runs/2.result.json"))["head"]["commit"] ==
        placed_run(2, 101, 0).commit);
  const auto report_download = nlohmann::json::parse(box.file("r/octo/widgets/runs/2.report.json"));
  CHECK(report_download["overall"] == "unchanged");
  CHECK(report_download["job"]["id"] == 2);
  CHECK_FALSE(report_download["job"].contains("result_path"));
  CHECK(report_download["comparison"] == run["comparison"]);

  // Shells: one per page, each pointing at its data with relative paths.
  const std::string trend = box.file("r/octo/widgets/t/" + sid + ".html");
  CHECK(trend.find("data-root=\"../../../../\"") != std::string::npos);
  CHECK(trend.find("src=\"../../../../assets/benchbox.js\"") != std::string::npos);
  CHECK(trend.find("data-src=\"data/r/octo/widgets/s/" + sid + ".js\"") != std::string::npos);
  CHECK(box.file("index.html").find("data-root=\"./\"") != std::string::npos);
  CHECK(box.file("assets/uplot/LICENSE").find("MIT") != std::string::npos);
  // Two assets: uPlot's script and stylesheet open ours (a page's requests
  // share six connections with its data preloads).
  const std::string js = box.file("assets/benchbox.js"), css = box.file("assets/benchbox.css");
  CHECK(js.rfind("/*! https://github.com/leeoniya/uPlot", 0) == 0);
  CHECK(js.find("var uPlot=") < js.find("window.benchbox = window.benchbox || {}"));
  CHECK(css.rfind(".uplot", 0) == 0);
  size_t scripts = 0, sheets = 0;
  for (size_t at = 0; (at = trend.find("<script src=", at)) != std::string::npos; ++at) ++scripts;
  for (size_t at = 0; (at = trend.find("rel=\"stylesheet\"", at)) != std::string::npos; ++at) ++sheets;
  CHECK(scripts == 1);
  CHECK(sheets == 1);
  box.site.settle();  // the files it replaced are gone, not listed
  for (const auto& entry : std::filesystem::recursive_directory_iterator(box.dir.path + "/site")) {
    if (!entry.is_regular_file() || entry.path().string().find("/assets/") != std::string::npos) continue;
    const std::string text = *read_file(entry.path().string());
    INFO(entry.path());
    CHECK(text.find("file://") == std::string::npos);
    CHECK(text.find("href=\"/") == std::string::npos);
    CHECK(text.find("src=\"/") == std::string::npos);
  }
}

TEST_CASE("a sharded suite's report has a run page of its own, saying where its shards stand") {
  Box box;
  const ResultSet rs = placed_run(5, 100, 0.100);
  JobResult jr;
  jr.job_id = 5;
  jr.kind = "push";
  jr.head = rs;
  REQUIRE(box.history.ingest(rs, "push").ok());
  auto rep = report::build_report(job_of(rs, JobKind::push), jr, std::nullopt, {});
  report::ShardProgress progress;
  progress.group_id = 3;
  progress.suite = "micro";
  progress.shards = 4;
  progress.done = 1;
  progress.pending = {"shard 2 (job 6, queued)"};
  rep.json["shards"] = progress.to_json();
  REQUIRE(box.site.shards_changed(rep, jr, 3).ok());
  auto run = box.data("data/r/octo/widgets/runs/group-3.js", "run/group-3");
  CHECK(run["shards"]["done"] == 1);
  CHECK(run["shards"]["pending"][0] == "shard 2 (job 6, queued)");
  CHECK(run["downloads"]["report"] == "r/octo/widgets/runs/group-3.report.json");
  CHECK(nlohmann::json::parse(box.file("r/octo/widgets/runs/group-3.report.json"))["shards"]["shards"] == 4);
  const std::string page = box.file("r/octo/widgets/runs/group-3.html");
  CHECK(page.find("data-src=\"data/r/octo/widgets/runs/group-3.js\"") != std::string::npos);
  CHECK(page.find("group-3 · octo/widgets") != std::string::npos);
}

TEST_CASE("a new result rewrites only the chunk it lands in; render_all rewrites everything") {
  Box box;
  box.finish(placed_run(1, 10, 0.100));                          // chunk 0
  box.finish(placed_run(2, site::kChunkPoints + 5, 0.100));     // chunk 1
  const std::string sid = site::series_id("refs/heads/main", kKey);
  const std::string chunk0 = box.dir.path + "/site/data/r/octo/widgets/s/" + sid + ".0.js";
  // The trend's shell preloads what its page loads at once: the series
  // file, both chunks and the newest chunk's commits.
  const std::string shell = box.file("r/octo/widgets/t/" + sid + ".html");
  for (const std::string f : {".js", ".0.js"})
    CHECK(shell.find("<link rel=\"preload\" as=\"script\" href=\"../../../../data/r/octo/widgets/s/" + sid + f + "\">") !=
          std::string::npos);
  const std::string main_commits = site::commits_data("octo/widgets", "refs/heads/main", 1);
  CHECK(shell.find("href=\"../../../../" + main_commits + "\"") != std::string::npos);
  CHECK(shell.find(site::commits_data("octo/widgets", "refs/heads/main", 0)) == std::string::npos);
  const std::string commits0 = box.dir.path + "/site/" + site::commits_data("octo/widgets", "refs/heads/main", 0);
  REQUIRE(write_file_atomic(chunk0, "untouched"));
  REQUIRE(write_file_atomic(commits0, "untouched"));
  const size_t before = box.site.stats().files_written;
  box.finish(placed_run(3, site::kChunkPoints + 6, 0.100));     // chunk 1 again
  CHECK(*read_file(chunk0) == "untouched");
  CHECK(*read_file(commits0) == "untouched");
  // Chunk 1, all tail, and the series' counts are in the recent file of
  // each metric's group, and the series files say what they said: those
  // files, chunk 1's commits once for both, then the run's data, two
  // downloads, the repository's data, the index and its shell, and the box
  // page's data (its shell is unchanged).
  const std::string cpu_sid = site::series_id("refs/heads/main", "micro/parse[n=10]:cpu_time");
  const size_t groups = site::recent_group(sid) == site::recent_group(cpu_sid) ? 1 : 2;
  CHECK(box.site.stats().files_written - before == groups + 1 + 3 + 1 + 2 + 1 + 1);
  auto series = box.data("data/r/octo/widgets/s/" + sid + ".js", "series/" + sid);
  REQUIRE(series["chunks"].size() == 2);
  CHECK(series["chunks"][1]["points"] == 2);

  CHECK(box.site.stale());
  // A series' own commits file, as sites kept them before they were the
  // ref's, goes when the series is written whole.
  const std::string legacy = box.dir.path + "/site/" + site::series_commits_data("octo/widgets", sid, 0);
  REQUIRE(write_file_atomic(legacy, "[]"));
  REQUIRE(box.site.render_all().ok());
  CHECK_FALSE(box.site.stale());
  CHECK(box.chunk(sid, "0").x == std::vector<int64_t>{10});
  CHECK(::access(legacy.c_str(), F_OK) != 0);
  CHECK(box.commits("refs/heads/main", 0).size() == 1);
  CHECK(box.commits("refs/heads/main", 1).size() == 2);
}

TEST_CASE("render_all removes what a writer killed mid-job left beside the files it replaced") {
  Box box;
  box.finish(placed_run(1, 10, 0.100));
  box.site.settle();
  const std::string sid = site::series_id("refs/heads/main", kKey);
  const std::string series = box.dir.path + "/site/data/r/octo/widgets/s/" + sid + ".js";
  // Another process's leftovers, of either naming; a profile a harness
  // named so; and names that only look alike.
  const std::vector<std::string> leftovers = {series + ".tmp.4194304.17", series + ".tmp.4194304",
                                              box.dir.path + "/site/index.html.tmp.1.0"};
  const std::string profile = box.dir.path + "/site/r/octo/widgets/runs/1.profiles/head/out.tmp.4194304";
  const std::vector<std::string> kept = {profile, series + ".tmp.x1", series + ".tmp.12.a", box.dir.path + "/site/.tmp.5",
                                         series + ".tmp." + std::to_string(::getpid()) + ".3"};
  REQUIRE(make_dirs(box.dir.path + "/site/r/octo/widgets/runs/1.profiles/head").ok());
  for (const auto& f : leftovers) REQUIRE(write_file_atomic(f, "old"));
  for (const auto& f : kept) REQUIRE(write_file_atomic(f, "keep"));
  REQUIRE(box.site.render_all().ok());
  box.site.settle();
  for (const auto& f : leftovers) {
    INFO(f);
    CHECK(::access(f.c_str(), F_OK) != 0);
  }
  for (const auto& f : kept) {
    INFO(f);
    auto text = read_file(f);
    CHECK((text && *text == "keep"));
  }
  CHECK(box.data("data/r/octo/widgets/s/" + sid + ".js", "series/" + sid)["points"] == 1);
}

TEST_CASE("the release series, configured branches, and environment breaks") {
  Box box;
  box.finish(placed_run(1, 1, 0.1));
  box.finish(placed_run(2, 2, 0.1, "refs/heads/scratch"));  // not a watched branch
  box.finish(placed_run(3, 3, 0.1, "refs/tags/v1.0"), "tag");
  box.finish(placed_run(4, 4, 0.1, "refs/heads/main", "env2"));  // a new toolchain
  auto repo = box.data("data/r/octo/widgets/repo.js", "repo");
  REQUIRE(repo["refs"].size() == 2);
  CHECK(repo["refs"][0]["ref"] == "refs/heads/main");
  CHECK(repo["refs"][1]["ref"] == "tags");
  CHECK(repo["refs"][1]["release_series"] == true);
  CHECK_FALSE(path_exists(box.dir.path + "/site/r/octo/widgets/t/" + site::series_id("refs/heads/scratch", kKey) + ".html"));

  const std::string rel = site::series_id(report::kReleaseSeries, kKey);
  auto release = box.data("data/r/octo/widgets/s/" + rel + ".js", "series/" + rel);
  CHECK(release["x"] == "release");
  CHECK(box.chunk(rel, "0").label == std::vector<std::string>{"v1.0"});
  REQUIRE(release["chunks"].size() == 1);  // every chunk's commits load at once
  CHECK(entry_files(release, release["chunks"][0]).commits_src ==
        site::commits_data("octo/widgets", report::kReleaseSeries, 0));
  // The branch selector of main's trend offers the release series.
  const std::string sid = site::series_id("refs/heads/main", kKey);
  auto main = box.data("data/r/octo/widgets/s/" + sid + ".js", "series/" + sid);
  CHECK(main["siblings"]["refs"].size() == 2);
  REQUIRE(main["environments"].size() == 2);
  REQUIRE(main["env_breaks"].size() == 1);
  CHECK(main["env_breaks"][0]["x"] == 4);
  CHECK(main["env_breaks"][0]["to"] == 1);

  // Watching every branch shows the other one too.
  box.globs.clear();
  box.finish(placed_run(5, 5, 0.1));
  CHECK(box.data("data/r/octo/widgets/repo.js", "repo")["refs"].size() == 3);
}

TEST_CASE("a step on the branch is a change point in its series file") {
  Box box;
  // Runs vary by +-0.4 % around their level, as real ones do.
  // Ten runs either side: at 199 permutations a shorter series can miss a
  // clear step by the luck of its seed.
  for (int i = 0; i < 20; ++i)
    box.finish(placed_run(i + 1, 100 + i, (i < 10 ? 0.100 : 0.112) * (1 + 0.002 * ((i * 7) % 5 - 2))));
  const std::string sid = site::series_id("refs/heads/main", kKey);
  auto series = box.data("data/r/octo/widgets/s/" + sid + ".js", "series/" + sid);
  INFO(series.dump());
  REQUIRE(series["change_points"].size() == 1);
  CHECK(series["change_points"][0]["x"] == 110);
  CHECK(series["change_points"][0]["worse"] == true);
  CHECK(series["change_points"][0]["ratio"].get<double>() == Approx(1.12).epsilon(0.01));
  auto repo = box.data("data/r/octo/widgets/repo.js", "repo");
  // Ten runs ago: the repository page flags only steps within the last 8.
  CHECK(repo["benchmarks"][1]["series"]["refs/heads/main"]["change"].is_null());
}

TEST_CASE("the change points of a window kept between pushes are those history gives") {
  Box box;
  // Pushes on every other position, a 12 % step halfway.
  for (int i = 0; i < 20; ++i)
    box.finish(placed_run(i + 1, 100 + 2 * i, (i < 10 ? 0.100 : 0.112) * (1 + 0.002 * ((i * 7) % 5 - 2))));
  const std::string sid = site::series_id("refs/heads/main", kKey);
  auto changes = [&] { return box.data("data/r/octo/widgets/s/" + sid + ".js", "series/" + sid)["change_points"]; };
  const auto pushed = changes();
  REQUIRE(pushed.size() == 1);
  REQUIRE(box.site.render_all().ok());  // every window read from history
  CHECK(changes() == pushed);
  // Backfills at the old level inside the window, then a push: the window
  // is read again, not appended to, so what it finds is history's.
  for (int i = 0; i < 4; ++i) box.finish(placed_run(30 + i, 125 + 2 * i, 0.100), "push", true);
  box.finish(placed_run(40, 140, 0.112));
  const auto after = changes();
  CHECK(after != pushed);
  REQUIRE(box.site.render_all().ok());
  CHECK(changes() == after);
}

TEST_CASE("a run's callgrind profiles are copied into the site") {
  Box box;
  const std::string profile = box.dir.path + "/callgrind.out.42";
  REQUIRE(write_file_atomic(profile, "events: Ir\n"));
  ResultSet rs = placed_run(1, 1, 0.1);
  rs.benchmarks[0].extra["profiles"] = {profile, box.dir.path + "/gone.out"};
  box.finish(rs);
  auto run = box.data("data/r/octo/widgets/runs/1.js", "run/1");
  REQUIRE(run["profiles"].size() == 1);
  CHECK(run["profiles"][0]["files"] == nlohmann::json({"r/octo/widgets/runs/1.profiles/run/callgrind.out.42"}));
  CHECK(box.file("r/octo/widgets/runs/1.profiles/run/callgrind.out.42") == "events: Ir\n");
}

TEST_CASE("a run's differential flame graphs: each tree as a data file, both sides' folded stacks") {
  Box box;
  const report::Folded base = {{{"main"}, 10}, {{"main", "hot"}, 900}};
  const report::Folded head = {{{"main"}, 10}, {{"main", "hot"}, 990}, {{"main", "new"}, 5}};
  box.finish(placed_run(1, 1, 0.1), "push", false, [&](report::JobReport& rep) {
    rep.json["profile_diffs"] = {{{"benchmark", "s/a:instructions"}},  // its profiles were gone: no graph
                                 {{"benchmark", "s/b:instructions"},
                                  {"flame", report::flame_json(report::merge_folded(base, head))}}};
  });
  auto run = box.data("data/r/octo/widgets/runs/1.js", "run/1");
  REQUIRE(run["flames"].size() == 1);
  const auto& f = run["flames"][0];
  CHECK(f["benchmark"] == "s/b:instructions");
  CHECK(f["anchor"] == "flame-1");  // its place in the report's profile_diffs
  auto tree = box.data(f["data"].get<std::string>(), f["name"].get<std::string>());
  CHECK(tree["benchmark"] == "s/b:instructions");
  CHECK(tree["flame"]["c"][0]["c"][0] == nlohmann::json{{"n", "hot"}, {"b", 900}, {"h", 990}, {"bs", 900}, {"hs", 990}});
  CHECK(f["folded"]["base"] == "r/octo/widgets/runs/1.profiles/flame-1.base.folded");
  CHECK(box.file(f["folded"]["base"].get<std::string>()) == "main 10\nmain;hot 900\n");
  CHECK(box.file(f["folded"]["head"].get<std::string>()) == "main 10\nmain;hot 990\nmain;new 5\n");
}

TEST_CASE("the box health page: the canary, the tuning and what each suite resolves, kept across writes") {
  Box box;
  canary::Health shifted;
  shifted.level = canary::Level::shifted;
  shifted.runs = 12;
  shifted.band = 0.05;
  shifted.ratio = 1.3;
  shifted.workload = "canary/cpu";
  shifted.since = 1700000100;
  const std::vector<canary::Run> runs = {{1700000000, {{"canary/cpu", 0.060}}, {{"canary/cpu", 0.02}}},
                                         {1700000100, {{"canary/cpu", 0.078}}, {}}};
  REQUIRE(box.site.box_canary(shifted, runs, "canary-env").ok());
  auto d = box.data("data/box.js", "box");
  CHECK(d["health"]["level"] == "shifted");
  CHECK(d["health"]["band"] == 0.05);
  CHECK(d["health"]["describe"] == shifted.describe());
  CHECK(d["canary"]["environment_key"] == "canary-env");
  REQUIRE(d["canary"]["runs"].size() == 2);
  CHECK(d["canary"]["runs"][0]["cv"]["canary/cpu"] == 0.02);
  CHECK(d["canary"]["runs"][1]["medians"]["canary/cpu"] == 0.078);
  CHECK(d["suites"].empty());
  CHECK(d["held"].empty());
  CHECK(d["tuning"].is_null());
  CHECK(box.file("box.html").find("data-page=\"box\"") != std::string::npos);

  // The change points of the canary's series: where each level began.
  std::vector<canary::Run> series;
  for (int i = 0; i < 5; ++i) series.push_back({1700000000 + i * 60, {{"canary/cpu", 0.069}}, {}});
  series.push_back({1700000300, {{"canary/cpu", 0.069 * 1.25}}, {}});
  series.push_back({1700000330, {{"canary/cpu", 0.069 * 1.25}}, {}});  // shifted from the first
  REQUIRE(box.site.box_canary(canary::judge(series), series, "canary-env").ok());
  const auto changes = box.data("data/box.js", "box")["canary"]["changes"];
  REQUIRE(changes.size() == 3);
  CHECK(changes[0]["level"] == "learning");
  CHECK(changes[1]["level"] == "steady");
  CHECK(changes[2]["level"] == "shifted");
  CHECK(changes[2]["time"] == 1700000300);
  REQUIRE(box.site.box_canary(shifted, runs, "canary-env").ok());

  // Two pushes: the second is compared with the first; what its suite
  // resolves and the tuning it ran under join the page, the canary stays.
  ResultSet first = placed_run(1, 1, 0.1), second = placed_run(2, 2, 0.1);
  second.tuning = "tuned";
  box.finish(first);
  box.finish(second);
  d = box.data("data/box.js", "box");
  CHECK(d["health"]["level"] == "shifted");
  CHECK(d["canary"]["runs"].size() == 2);
  REQUIRE(d["suites"].size() == 1);
  CHECK(d["suites"][0]["repository"] == "octo/widgets");
  CHECK(d["suites"][0]["suite"] == "micro");
  CHECK(d["suites"][0]["job"] == 2);
  CHECK(d["suites"][0]["run_page"] == site::run_page("octo/widgets", 2));
  CHECK(d["suites"][0]["min_detectable"].get<double>() > 0);
  CHECK(d["tuning"]["state"] == "tuned");
  CHECK(d["tuning"]["job"] == 2);
  // A render of the whole site keeps what the page learned.
  REQUIRE(box.site.render_all().ok());
  CHECK(box.data("data/box.js", "box")["suites"] == d["suites"]);
  CHECK(box.data("data/box.js", "box")["health"] == d["health"]);
}

TEST_CASE("site paths: odd repository names stay inside the site") {
  CHECK(site::repository_dir("octo/widgets") == "r/octo/widgets");
  CHECK(site::repository_dir("a b/c?d") == "r/a_b/c_d");
  CHECK(site::repository_dir("../..") == "r/_../_..");
  CHECK(site::root_from("index.html") == ".");
  CHECK(site::root_from("r/o/n/t/x.html") == "../../../..");
  CHECK(site::data_file("x", {{"s", "</script>"}}) == "benchbox.receive(\"x\", {\"s\":\"<\\/script>\"});\n");
  CHECK(site::ref_name("refs/heads/release/1.x") == "release/1.x");
}

TEST_CASE("a stale site is rendered a few steps at a time, as render_all would") {
  Box box;
  box.finish(placed_run(1, 10, 0.100));
  box.finish(placed_run(2, 11, 0.100));
  box.finish(placed_run(3, 12, 0.100, "refs/tags/v1"), "tag");
  const std::string sid = site::series_id("refs/heads/main", kKey);
  std::system(("rm -rf " + box.dir.path + "/site").c_str());
  CHECK(box.site.stale());
  box.site.begin_render_all();
  int turns = 0;
  bool series_seen = false;
  for (;;) {
    auto done = box.site.render_some(1);
    REQUIRE(done.ok());
    ++turns;
    // A series file written is read whole from the turn on: its recent
    // entry is there too (box.data requires it).
    if (path_exists(box.dir.path + "/site/" + site::series_data("octo/widgets", sid))) {
      series_seen = true;
      CHECK(box.data(site::series_data("octo/widgets", sid), site::series_name(sid))["points"] == 2);
    }
    if (*done) break;
  }
  CHECK(series_seen);
  CHECK(turns > 5);  // start, repository, four series, three runs, lists, finish
  CHECK_FALSE(box.site.rendering());
  CHECK_FALSE(box.site.stale());
  CHECK(box.chunk(sid, "0").x == std::vector<int64_t>{10, 11});
  CHECK(box.data("data/r/octo/widgets/runs/3.js", "run/3")["job"]["id"] == 3);
  CHECK(box.data("data/index.js", "index")["repositories"].size() == 1);
}

TEST_CASE("a push appends its point to the chunk the site holds; anything else reads history") {
  Box box;
  const std::string sid = site::series_id("refs/heads/main", kKey);
  for (int64_t i = 0; i < 6; ++i) box.finish(placed_run(1 + i, 10 + i, 0.100 + 0.001 * double(i)));
  auto pushed = box.chunk(sid, "0");
  CHECK(pushed.x == std::vector<int64_t>{10, 11, 12, 13, 14, 15});
  CHECK(pushed.job == std::vector<int64_t>{1, 2, 3, 4, 5, 6});
  CHECK(box.commits("refs/heads/main", 0).at(6) == placed_run(6, 15, 0.1).commit);
  REQUIRE(box.site.render_all().ok());
  check_same(box.chunk(sid, "0"), pushed);  // what history holds, read whole

  // The site's own chunk (all tail: in the recent file) is what a push
  // builds on when the writer kept none: an edit to it survives the next
  // push (proof that history's chunk was not read again), and render_all
  // puts history's back.
  const std::string recent0 = site::recent_data("octo/widgets", "refs/heads/main", site::recent_group(sid));
  box.edit_tail(sid, [](site::ChunkColumns& c) { c.median[0] = 7.0; });
  box.restart();
  box.finish(placed_run(7, 16, 0.1));
  auto appended = box.chunk(sid, "0");
  CHECK(appended.median[0] == 7.0);
  CHECK(appended.x.back() == 16);
  CHECK(box.commits("refs/heads/main", 0).size() == 7);
  REQUIRE(box.site.render_all().ok());
  CHECK(box.chunk(sid, "0").median[0] == Approx(0.100 * 1.001).epsilon(1e-6));

  SECTION("a backfill into the chunk: history holds one point the files do not, so the chunk is read again") {
    box.finish(placed_run(8, 3, 0.2), "push", true);
    box.finish(placed_run(9, 17, 0.1));
    auto c = box.chunk(sid, "0");
    CHECK(c.x == std::vector<int64_t>{3, 10, 11, 12, 13, 14, 15, 16, 17});
    CHECK(c.job.front() == 8);
  }
  SECTION("a later commit's point already in history: the push of the one before reads the chunk whole") {
    REQUIRE(box.history.ingest(placed_run(9, 18, 0.3), "push").ok());  // its site write not yet done
    box.finish(placed_run(8, 17, 0.1));
    auto c = box.chunk(sid, "0");
    CHECK(c.x == std::vector<int64_t>{10, 11, 12, 13, 14, 15, 16, 17, 18});
    CHECK(c.job.back() == 9);
  }
  SECTION("two runs of the pushed commit: both are appended, in job order") {
    box.edit_tail(sid, [](site::ChunkColumns& c) { c.median[0] = 7.0; });
    box.restart();
    REQUIRE(box.history.ingest(placed_run(8, 17, 0.3), "push").ok());
    box.finish(placed_run(9, 17, 0.1));
    auto c = box.chunk(sid, "0");
    CHECK(c.x == std::vector<int64_t>{10, 11, 12, 13, 14, 15, 16, 17, 17});
    CHECK(c.job == std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9});
    CHECK(c.median[7] == Approx(0.3).epsilon(0.01));
    CHECK(c.median[0] == 7.0);  // appended to the site's own chunk, not read from history
  }
  SECTION("a recent file that is not one: read again from history") {
    REQUIRE(write_file_atomic(box.dir.path + "/site/" + recent0, "garbage"));
    box.restart();
    box.finish(placed_run(8, 17, 0.1));
    CHECK(box.chunk(sid, "0").x == std::vector<int64_t>{10, 11, 12, 13, 14, 15, 16, 17});
  }
  SECTION("a commits file that is not one: the next push writes history's") {
    const std::string commits0 = site::commits_data("octo/widgets", "refs/heads/main", 0);
    REQUIRE(write_file_atomic(box.dir.path + "/site/" + commits0, "garbage"));
    box.finish(placed_run(8, 17, 0.1));
    auto c = box.commits("refs/heads/main", 0);
    CHECK(c.size() == 8);
    CHECK(c.at(1) == placed_run(1, 10, 0.1).commit);
  }
}

TEST_CASE("a push's report takes its change points from the windows its trends were drawn with") {
  Box box;
  // 24 pushes at one level, then 4 at 20 % more: the last push's report
  // names the step, as it would from history's newest points.
  auto job = [&](int64_t i) {
    const ResultSet rs = placed_run(i + 1, 10 + i, i < 24 ? 0.100 : 0.120);
    JobResult jr;
    jr.job_id = rs.job_id;
    jr.kind = "push";
    jr.head = rs;
    return jr;
  };
  for (int64_t i = 0; i < 27; ++i) box.finish(job(i).head);
  const JobResult last = job(27);
  auto previous = box.history.previous_run(last.head, "push");
  REQUIRE(previous.ok());
  REQUIRE(box.history.ingest(last.head, "push").ok());
  auto report = report::build_report(job_of(last.head, JobKind::push), last, *previous, {});
  auto expected = report;
  // As reporterd read them before: each benchmark's newest points from history.
  std::vector<report::Series> from_history;
  for (const auto& b : last.head.benchmarks)
    from_history.push_back(*box.history.recent("octo/widgets", "refs/heads/main", b.key.to_string(), "env1",
                                               report::ChangeOptions{}.max_points));
  report::ChangeCache fresh;
  report::add_change_points(expected, from_history, fresh);
  REQUIRE(expected.json["change_points"].size() == 2);  // both metrics
  CHECK(expected.json["change_points"][0]["job_after"] == 25);

  const size_t series_before = box.site.stats().series_written;
  REQUIRE(box.site.write_job_series("octo/widgets", last).ok());
  CHECK(box.site.stats().series_written == series_before + 2);
  REQUIRE(box.site.add_change_points(report, last).ok());
  CHECK(report.json["change_points"] == expected.json["change_points"]);
  CHECK(report.markdown == expected.markdown);
  // job_finished leaves the trends it was given drawn as they are.
  REQUIRE(box.site.job_finished(report, last).ok());
  CHECK(box.site.stats().series_written == series_before + 2);

  SECTION("a window this job did not draw is read from history") {
    // The branch is off the dashboard now: the windows kept end at the
    // push before, and this one's point is only in history.
    box.globs = {"release/*"};
    const JobResult next = job(28);
    auto prev = box.history.previous_run(next.head, "push");
    REQUIRE(box.history.ingest(next.head, "push").ok());
    auto r = report::build_report(job_of(next.head, JobKind::push), next, *prev, {});
    REQUIRE(box.site.write_job_series("octo/widgets", next).ok());
    REQUIRE(box.site.add_change_points(r, next).ok());
    REQUIRE(r.json["change_points"].size() == 2);
    CHECK(r.json["change_points"][0]["job_after"] == 25);
  }
}

TEST_CASE("a push rewrites its recent file with the newest chunk's tail; the series file and the chunk once per kTailPoints points") {
  Box box;
  const std::string sid = site::series_id("refs/heads/main", kKey);
  const std::string series_src = "data/r/octo/widgets/s/" + sid + ".js";
  const std::string recent_src = site::recent_data("octo/widgets", "refs/heads/main", site::recent_group(sid));
  const std::string recent_file = box.dir.path + "/site/" + recent_src;
  const std::string series_path = box.dir.path + "/site/" + series_src;
  const std::string first = box.dir.path + "/site/" + site::chunk_data("octo/widgets", sid, 0);
  const std::string tail = box.dir.path + "/site/" + site::tail_data("octo/widgets", sid, 0);
  auto inode = [](const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? st.st_ino : ino_t(0);
  };
  // What the page joins: every entry of the series' chunk list, in order.
  auto joined = [&] {
    const auto series = box.data(series_src, "series/" + sid);
    site::ChunkColumns all;
    std::vector<int64_t> sizes;
    for (const auto& c : series["chunks"]) {
      // A tail's data is in the entry; no entry names a file that is not there.
      CHECK(c.contains("data") == c.value("tail", false));
      const EntryFiles f = entry_files(series, c);
      auto cols = site::decode_chunk(c.contains("data") ? c["data"].dump() : box.data(f.src, f.name).dump());
      REQUIRE(cols);
      CHECK(c["points"] == int64_t(cols->size()));
      sizes.push_back(int64_t(cols->size()));
      all.append(std::move(*cols));
    }
    return std::pair{std::move(all), sizes};
  };
  const int64_t T = site::kTailPoints;
  int64_t job = 0;
  auto push = [&](int64_t position) {
    ++job;
    box.finish(placed_run(job, position, 0.1 + 0.0001 * double(job)));
  };

  for (int64_t i = 0; i < T; ++i) push(10 + i);
  CHECK(joined().second == std::vector<int64_t>{T});  // one file while it is small
  CHECK(inode(tail) == 0);
  push(10 + T);
  CHECK(joined().second == std::vector<int64_t>{T, 1});
  CHECK(box.tail(sid, 0).x == std::vector<int64_t>{10 + T});
  CHECK(inode(tail) == 0);  // in the recent file, not a file of its own

  // Up to 2T points a push writes the tail only, in the recent file: the
  // first file and the series file stay the same files.
  const ino_t first_inode = inode(first), series_inode = inode(series_path);
  ino_t recent_inode = inode(recent_file);
  for (int64_t i = 1; i < T; ++i) {
    push(10 + T + i);
    CHECK(inode(recent_file) != recent_inode);
    recent_inode = inode(recent_file);
  }
  CHECK(inode(first) == first_inode);
  CHECK(inode(series_path) == series_inode);
  CHECK(joined().second == std::vector<int64_t>{T, T});
  push(10 + 2 * T);  // the tail is full: the first file takes it, and the series file says so
  CHECK(inode(first) != first_inode);
  CHECK(inode(series_path) != series_inode);
  CHECK(joined().second == std::vector<int64_t>{2 * T, 1});
  auto pushed = joined().first;
  CHECK(pushed.size() == size_t(2 * T + 1));
  CHECK(pushed.x.front() == 10);
  CHECK(pushed.x.back() == 10 + 2 * T);
  CHECK(pushed.job.back() == job);

  // A whole rendering splits the chunk where the pushes did, the same points.
  REQUIRE(box.site.render_all().ok());
  auto [rendered, sizes] = joined();
  CHECK(sizes == std::vector<int64_t>{2 * T, 1});
  check_same(rendered, pushed);

  SECTION("a series file, trend page or recent file removed from the site is there again after the next push") {
    const std::string page = box.dir.path + "/site/" + site::trend_page("octo/widgets", sid);
    REQUIRE(inode(page) != 0);
    // A push that changes only the tail: the series file and the page are
    // the same files, and written again only because they went.
    push(11 + 2 * T);
    CHECK(inode(series_path) != 0);
    REQUIRE(::unlink(series_path.c_str()) == 0);
    REQUIRE(::unlink(page.c_str()) == 0);
    REQUIRE(::unlink(recent_file.c_str()) == 0);
    push(12 + 2 * T);
    CHECK(inode(series_path) != 0);
    CHECK(inode(page) != 0);
    CHECK(inode(recent_file) != 0);
    CHECK(joined().second == std::vector<int64_t>{2 * T, 3});
    // And when they are there, the next push leaves the series file be.
    const ino_t again = inode(series_path);
    push(13 + 2 * T);
    CHECK(inode(series_path) == again);
  }
  SECTION("the writer appends to the tail it kept; started again, it reads the recent file, or history") {
    const std::string recent_name = site::recent_name("refs/heads/main", site::recent_group(sid));
    // The recent file's tail, its first median set to 7, by hand.
    auto edit_tail = [&] {
      auto edited = box.raw_data(recent_src, recent_name);
      auto cols = box.tail(sid, 0);
      cols.median[0] = 7.0;
      REQUIRE(edited["series"][sid]["tail"]["tail"] == true);
      edited["series"][sid]["tail"]["data"]["median"] = site::encode_chunk(cols, "", "")["median"];
      REQUIRE(write_file_atomic(recent_file, site::data_file(recent_name, edited)));
    };
    // An edit to the recent file does not survive the next push: the writer
    // appends to the tail it wrote, not to the file.
    edit_tail();
    push(11 + 2 * T);
    CHECK(box.tail(sid, 0).median[0] == Approx(pushed.median.back()).epsilon(1e-6));
    // Started again, it appends to the recent file's: the edit survives.
    edit_tail();
    box.restart();
    push(12 + 2 * T);
    CHECK(box.tail(sid, 0).median[0] == 7.0);
    // A recent file that is not one: the chunk is read again from history.
    REQUIRE(write_file_atomic(recent_file, "garbage"));
    box.restart();
    push(13 + 2 * T);
    CHECK(joined().second == std::vector<int64_t>{2 * T, 4});
    CHECK(box.tail(sid, 0).x == std::vector<int64_t>{10 + 2 * T, 11 + 2 * T, 12 + 2 * T, 13 + 2 * T});
    CHECK(box.tail(sid, 0).median[0] == Approx(pushed.median.back()).epsilon(1e-6));
  }
  SECTION("a new metric beside it: its series file written again keeps its tail, kept or from history") {
    // A job with only a new metric of the benchmark writes the new series
    // and, for its selectors, its relatives' series files again.
    auto new_metric = [&](int64_t id, const std::string& metric) {
      auto rs = placed_run(id, 11 + 2 * T, 0.2);
      rs.benchmarks.resize(1);
      rs.benchmarks[0].key.metric = metric;
      box.finish(rs);
      const auto series = box.data(series_src, site::series_name(sid));
      REQUIRE(series["siblings"]["metrics"].size() >= 3);
    };
    const site::ChunkColumns before = box.tail(sid, 0);
    REQUIRE(before.size() == 1);
    new_metric(1000, "memory");  // the tail the writer kept
    check_same(box.tail(sid, 0), before);
    CHECK(joined().second == std::vector<int64_t>{2 * T, 1});
    box.restart();
    new_metric(1001, "instructions");  // none kept: from history
    check_same(box.tail(sid, 0), before);
    CHECK(joined().second == std::vector<int64_t>{2 * T, 1});
    check_same(joined().first, pushed);
  }
  SECTION("a site from before recent files, its tail in its series file: appended to, then in the recent file") {
    auto series = box.data(series_src, site::series_name(sid));
    auto cols = box.tail(sid, 0);
    cols.median[0] = 7.0;
    series["chunks"].back()["data"]["median"] = site::encode_chunk(cols, "", "")["median"];
    series["schema"] = "benchbox.site.series/2";
    series.erase("recent");
    REQUIRE(::unlink(recent_file.c_str()) == 0);
    REQUIRE(write_file_atomic(series_path, site::data_file(site::series_name(sid), series)));
    box.restart();
    push(11 + 2 * T);
    CHECK(box.tail(sid, 0).median[0] == 7.0);
    CHECK(joined().second == std::vector<int64_t>{2 * T, 2});
    CHECK(box.raw_data(series_src, site::series_name(sid))["schema"] == "benchbox.site.series/3");
  }
  SECTION("a site from before, its tail in a file of its own: read once, then removed") {
    // The tail moved out of the series file into the file a site from
    // before kept it in, and the shell preloading it, as that site's did.
    auto series = box.data(series_src, site::series_name(sid));
    nlohmann::json old_tail = series["chunks"].back()["data"];
    old_tail["median"] = site::encode_chunk([&] {
      auto cols = box.tail(sid, 0);
      cols.median[0] = 7.0;
      return cols;
    }(), "", "")["median"];
    series["chunks"].back().erase("data");
    // That site had no recent files, and its series files said it all.
    series["schema"] = "benchbox.site.series/2";
    series.erase("recent");
    REQUIRE(::unlink(recent_file.c_str()) == 0);
    REQUIRE(write_file_atomic(tail, site::data_file(site::tail_name(sid, 0), old_tail)));
    REQUIRE(write_file_atomic(box.dir.path + "/site/" + series_src, site::data_file(site::series_name(sid), series)));
    const std::string shell_file = box.dir.path + "/site/" + site::trend_page("octo/widgets", sid);
    std::string shell = box.file(site::trend_page("octo/widgets", sid));
    const std::string chunk_file = site::chunk_data("octo/widgets", sid, 0);
    const size_t at = shell.find(chunk_file);
    REQUIRE(at != std::string::npos);
    const size_t line = shell.rfind('\n', at) + 1;
    std::string preload = shell.substr(line, shell.find('\n', at) + 1 - line);
    preload.replace(preload.find(chunk_file), chunk_file.size(), site::tail_data("octo/widgets", sid, 0));
    shell.insert(line, preload);
    REQUIRE(write_file_atomic(shell_file, shell));
    REQUIRE(box.file(site::trend_page("octo/widgets", sid)).find(".t.js") != std::string::npos);

    box.restart();
    push(11 + 2 * T);
    CHECK(inode(tail) == 0);
    CHECK(box.tail(sid, 0).median[0] == 7.0);  // appended to the old file's tail
    CHECK(joined().second == std::vector<int64_t>{2 * T, 2});
    CHECK(box.file(site::trend_page("octo/widgets", sid)).find(".t.js") == std::string::npos);
  }
  SECTION("a point history gained before the tail, the site not told: in the files when the tail is full") {
    // A backfill whose dashboard update failed: history has it, the site does not.
    REQUIRE(box.history.ingest(placed_run(1000, 5, 0.3), "push").ok());
    push(11 + 2 * T);  // the tail alone is checked and rewritten
    CHECK(joined().first.x.front() == 10);
    for (int64_t i = 1; i < T - 1; ++i) push(11 + 2 * T + i);
    CHECK(joined().second == std::vector<int64_t>{2 * T, T});
    CHECK(joined().first.x.front() == 10);
    push(10 + 3 * T);  // the tail is full: the whole chunk is counted, and read again
    auto [all, parts] = joined();
    CHECK(all.x.front() == 5);
    CHECK(all.size() == size_t(3 * T + 2));
    CHECK(parts == std::vector<int64_t>{3 * T, 2});
  }
  SECTION("a point in the next chunk: the chunk before is one file again") {
    push(site::kChunkPoints + 5);
    const auto series = box.data(series_src, "series/" + sid);
    REQUIRE(series["chunks"].size() == 2);
    CHECK(series["chunks"][0]["points"] == 2 * T + 1);
    CHECK(series["chunks"][1]["tail"] == true);  // one point: all tail
    // Only the newest chunk's entry names its commits: the page loads them at once.
    CHECK_FALSE(series["chunks"][0].contains("commits"));
    CHECK(entry_files(series, series["chunks"][1]).commits_src ==
          site::commits_data("octo/widgets", "refs/heads/main", 1));
    CHECK(inode(tail) == 0);
    CHECK(box.chunk(sid, "0").x.back() == 10 + 2 * T);
    CHECK(joined().first.size() == size_t(2 * T + 2));
    // The trend page preloads what its series lists, and no tail file.
    const std::string shell = box.file(site::trend_page("octo/widgets", sid));
    CHECK(shell.find(".t.js") == std::string::npos);
    CHECK(shell.find(site::chunk_data("octo/widgets", sid, 1)) == std::string::npos);
  }
}

TEST_CASE("a trend's metric selector lists its benchmark's metrics, not a benchmark whose name begins the same") {
  Box box;
  auto rs = placed_run(1, 10, 0.1);
  rs.benchmarks.clear();
  // pytest's names hold "::": "t.py::a::x" is its own benchmark, not a metric of "t.py::a".
  for (const auto& [name, metric] : std::vector<std::pair<std::string, std::string>>{
           {"t.py::a", "wall_time"}, {"t.py::a", "cpu_time"}, {"t.py::a2", "wall_time"},
           {"t.py::a::x", "wall_time"}, {"t.py::a::x", "memory"}}) {
    Benchmark b;
    b.key = {"py", name, {}, metric};
    for (int i = 0; i < 5; ++i) b.samples.push_back(0.1);
    rs.benchmarks.push_back(b);
  }
  box.finish(rs);
  auto metrics_of = [&](const std::string& key) {
    const std::string sid = site::series_id("refs/heads/main", key);
    const auto series = box.data("data/r/octo/widgets/s/" + sid + ".js", "series/" + sid);
    std::vector<std::string> out;
    for (const auto& m : series["siblings"]["metrics"]) out.push_back(m["metric"]);
    return out;
  };
  CHECK(metrics_of("py/t.py::a:wall_time") == std::vector<std::string>{"cpu_time", "wall_time"});
  CHECK(metrics_of("py/t.py::a::x:wall_time") == std::vector<std::string>{"memory", "wall_time"});
  CHECK(metrics_of("py/t.py::a2:wall_time") == std::vector<std::string>{"wall_time"});
}

TEST_CASE("a series summary keeps its chunks, and one saved in the older form still reads") {
  Dir dir;
  auto history = open_history(dir.path + "/history.db");
  report::SeriesSummary s;
  s.repository = "octo/widgets";
  s.ref = "refs/heads/main";
  s.key = kKey;
  s.id = "0123456789abcdef";
  s.points = 1030;
  s.chunks[0].points = 1024;
  s.chunks[0].per_environment = {{0, 1000}, {1, 24}};
  s.chunks[1].points = 6;
  s.chunks[1].tail = 2;
  s.chunks[-1].points = 3;
  s.chunks[-1].per_environment = {{0, 3}};
  REQUIRE(history.save_series_summary(s).ok());
  auto read = history.series_summaries("octo/widgets");
  REQUIRE(read);
  REQUIRE(read->size() == 1);
  const auto& c = read->front().chunks;
  REQUIRE(c.size() == 3);
  CHECK(c.at(-1).points == 3);
  CHECK(c.at(0).per_environment == std::map<size_t, int64_t>{{0, 1000}, {1, 24}});
  CHECK(c.at(1).points == 6);
  CHECK(c.at(1).tail == 2);
  CHECK(read->front().points == 1030);
  // Each chunk one flat array: chunk, points, tail, then environment and points.
  auto saved = history.database().prepare("SELECT summary FROM site_series");
  REQUIRE(saved);
  auto row = saved->step();
  REQUIRE(row);
  REQUIRE(*row);
  CHECK(saved->column_text(0).find(R"("chunks":[[-1,3,0,0,3],[0,1024,0,0,1000,1,24],[1,6,2]])") != std::string::npos);

  // Written by the version before: each chunk an object of named members.
  auto q = history.database().prepare("UPDATE site_series SET summary = ?");
  REQUIRE(q);
  q->bind(1, R"({"id": "0123456789abcdef", "points": 1100, "chunks": [
      {"chunk": 0, "points": 1024, "per_environment": [[0, 1024]]},
      {"chunk": 1, "points": 76, "tail": 12, "per_environment": [[0, 76]]}]})");
  REQUIRE(q->run().ok());
  read = history.series_summaries("octo/widgets");
  REQUIRE(read);
  const auto& old = read->front().chunks;
  REQUIRE(old.size() == 2);
  CHECK(old.at(0).points == 1024);
  CHECK(old.at(0).tail == 0);
  CHECK(old.at(1).tail == 12);
  CHECK(old.at(1).per_environment == std::map<size_t, int64_t>{{0, 76}});
}
