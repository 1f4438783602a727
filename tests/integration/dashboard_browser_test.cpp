// The dashboard reporterd writes, drawn by a real browser: jobs go through a
// real queue and reporterd, then headless Chromium (tests/browser/
// check_site.py, through chromedriver) opens the index, the repository, the
// trends, the runs and the pull request from file://, and fails on a blank
// chart, a console error or a dead link, or a page that does not say what it
// must. Screenshots are kept in meson-logs/dashboard-screenshots.
#include <catch2/catch.hpp>

#include <ctime>
#include <fstream>
#include <functional>

#include <unistd.h>

#include "bisect_answers.h"
#include "reporterd_fixture.h"
#include "skip.h"
#include "util/file.h"

using namespace bb;
using namespace bb::test;
using nlohmann::json;

namespace {

// A data file's JSON (docs/dashboard.md: one benchbox.receive call).
json data_file(const std::string& path) {
  const std::string text = slurp(path);
  const size_t start = text.find(", ");
  REQUIRE(start != std::string::npos);
  return json::parse(text.substr(start + 2, text.rfind(");") - start - 2));
}

// The page of `key`'s trend on main, from the repository's data file.
std::string main_trend(const std::string& site, const std::string& key) {
  const json repo = data_file(site + "/data/r/o/r/repo.js");
  std::string trend;
  for (const auto& b : repo["benchmarks"])
    if (b["key"] == key) trend = b["series"]["refs/heads/main"]["page"];
  REQUIRE_FALSE(trend.empty());
  return trend;
}

model::JobResult push_result(const std::string& commit, double seconds, int64_t position, const std::string& ref,
                             const std::string& kind = "push") {
  model::JobResult jr;
  jr.kind = kind;
  jr.head = result_set(commit, seconds, "", position);
  jr.head.ref = ref;
  model::Benchmark cpu = jr.head.benchmarks[0];
  cpu.key.metric = "cpu_time";
  jr.head.benchmarks.push_back(cpu);
  return jr;
}

// `count` pushes of main, push i at first-parent position `position(i)`,
// a 12 % step from push `step_at` on with a little noise beside it; each
// waited for until reported.
void push_main_with_step(ReporterFixture& s, int count, int step_at, const std::function<int64_t(int)>& position) {
  std::vector<int64_t> jobs;
  for (int i = 0; i < count; ++i) {
    const double level = (i < step_at ? 0.100 : 0.112) * (1 + 0.0005 * ((i * 7) % 5 - 2));
    jobs.push_back(
        s.run_job(push_spec(fake_sha(100 + i)), push_result(fake_sha(100 + i), level, position(i), "refs/heads/main")));
  }
  INFO(s.logs());
  for (int64_t id : jobs) REQUIRE(wait_until([&] { return s.reported(id); }, std::chrono::seconds(60)));
}

// check_site.py on `pages` of the site (with `more` options), its output.
std::string check_pages(const std::string& site, const std::vector<std::string>& pages, const std::string& more,
                        int* rc) {
  const std::string shots = build_path("meson-logs/dashboard-screenshots");
  std::string command = "python3 " + source_root() + "/tests/browser/check_site.py --base " + site +
                        " --screenshots " + shots + more;
  for (const auto& p : pages) command += " " + p;
  std::string out;
  *rc = run_shell(command + " 2>&1", &out);
  return out;
}

void need_browser() {
  for (const char* tool : {"/usr/bin/chromium", "/usr/bin/chromedriver"})
    if (::access(tool, X_OK) != 0)
      BB_SKIP("no " << tool << " (apt-get install chromium chromium-driver; scripts/install-deps.sh does)");
}

}  // namespace

TEST_CASE("the dashboard draws in a real browser: charts drawn, no console error, every link resolves") {
  need_browser();
  ReporterFixture s("  regression_issues: true\n");
  std::vector<int64_t> jobs;
  // Main: 14 pushes with a 12 % step after the eighth, each a little noisy
  // (±0.1 %: a step of 0.4 % between two pushes, against another job's run,
  // would not be shown under the 1 % threshold and is held for confirmation).
  for (int i = 0; i < 14; ++i) {
    const double level = (i < 8 ? 0.100 : 0.112) * (1 + 0.0005 * ((i * 7) % 5 - 2));
    jobs.push_back(s.run_job(push_spec(fake_sha(100 + i)), push_result(fake_sha(100 + i), level, 50 + i, "refs/heads/main")));
  }
  // Two releases.
  for (int i = 0; i < 2; ++i) {
    json spec = push_spec(fake_sha(200 + i));
    spec["kind"] = "tag";
    spec["ref"] = "refs/tags/v1." + std::to_string(i);
    jobs.push_back(s.run_job(spec, push_result(fake_sha(200 + i), 0.1, 60 + i, spec["ref"], "tag")));
  }
  // A pull request that regressed, as webhookd recorded it: its page names
  // its title and author.
  REQUIRE_FALSE(s.queue->record_pull_request({{"repository", "o/r"}, {"number", 7}, {"head_sha", fake_sha(300)},
                                              {"head_ref", "tokenizer"}, {"base_ref", "refs/heads/main"},
                                              {"base_sha", fake_sha(100)}, {"state", "open"},
                                              {"title", "Rewrite the tokenizer"}, {"author", "mallory"}}));
  model::JobResult pr;
  pr.kind = "pull_request";
  pr.base = result_set(fake_sha(100), 0.100, "base");
  pr.head = result_set(fake_sha(300), 0.125, "head");
  pr.head.containment = "transient service as benchbox-job (owns nothing); network: loopback only";
  const int64_t pr_job = s.run_job(pr_spec(fake_sha(300), 7), pr);
  jobs.push_back(pr_job);
  // A regression check: two commits of main measured side by side. It is
  // listed apart from the branch's runs, never as a regression on main.
  json check = push_spec(fake_sha(108));
  check["kind"] = "compare";
  check["base_sha"] = fake_sha(107);
  check["threshold"] = 0.01;
  check["delivery_id"] = "check-" + fake_sha(108);
  model::JobResult compared;
  compared.kind = "compare";
  compared.base = result_set(fake_sha(107), 0.100, "base");
  compared.head = result_set(fake_sha(108), 0.112, "head");
  compared.head.containment = "runner's own user: runnerd is not root";
  const int64_t check_job = s.run_job(check, compared);
  jobs.push_back(check_job);
  // A backfill: an older commit of main measured today, in a job group of
  // its own. Listed as backfilled history, not as a push of main.
  int64_t group = 0;
  std::vector<int64_t> backfilled;
  json old_commit = push_spec(fake_sha(90));
  old_commit.erase("delivery_id");  // an operator's, as benchboxctl backfill queues it
  const auto grouped = s.queue->enqueue_group({{"kind", "backfill"}, {"repository", "o/r"},
                                               {"description", "main's history"}, {"requested_by", "test"}},
                                              {old_commit}, &group, &backfilled);
  INFO(grouped.message);
  REQUIRE_FALSE(grouped);
  REQUIRE(backfilled.size() == 1);
  s.claim(backfilled[0]);
  s.complete(backfilled[0], push_result(fake_sha(90), 0.100, 40, "refs/heads/main"));
  jobs.push_back(backfilled[0]);
  // A failed job.
  const int64_t failed = s.enqueue(push_spec(fake_sha(400)));
  s.claim(failed);
  REQUIRE_FALSE(s.queue->fail(failed, "test-runner", "build of suite 'micro' failed at 000000000400: exit 2"));
  jobs.push_back(failed);
  INFO(s.logs());
  for (int64_t id : jobs) REQUIRE(wait_until([&] { return s.reported(id); }, std::chrono::seconds(60)));

  const std::string site = s.dir / "state/site";
  const json repo = data_file(site + "/data/r/o/r/repo.js");
  std::vector<std::string> pages = {"index.html", "r/o/r/index.html", "r/o/r/pulls/7.html"};
  for (const auto& b : repo["benchmarks"])
    for (const auto& [ref, series] : b["series"].items()) pages.push_back(series["page"]);
  for (int64_t id : {jobs.front(), jobs[12], pr_job, check_job, failed})
    pages.push_back("r/o/r/runs/" + std::to_string(id) + ".html");
  REQUIRE(pages.size() == 3 + 4 + 5);  // two metrics on main and in the release series

  // What the pages must say, and must not.
  std::string says;
  for (const std::string page : {"index.html", "r/o/r/index.html"}) {
    says += " --expect '" + page + "=Regression checks'";
    says += " --expect '" + page + "=head slower'";
    says += " --reject '" + page + "=compare main'";  // a compare job as a run of main
    says += " --expect '" + page + "=Backfilled history'";
    // Commits of 2023 measured today: each run is dated by its commit too.
    says += " --expect '" + page + "=committed 2023-11-14'";
  }
  // Whose rights each run's code had: said, flagged when the runner's own.
  const std::string runs = "r/o/r/runs/";
  says += " --expect '" + runs + std::to_string(pr_job) + ".html=transient service as benchbox-job (owns nothing)'";
  says += " --expect '" + runs + std::to_string(check_job) + ".html=not contained'";
  says += " --expect '" + runs + std::to_string(jobs.front()) + ".html=not recorded'";
  // The trends' readout, from the compact chunks (site_chunk.h): the latest
  // point's position or tag, its commit (from the newest chunk's commits
  // file) and its median (float32), 0.112 x 0.9995 x 1.004 s on main.
  for (const auto& b : repo["benchmarks"]) {
    if (b["key"] != "micro/loop:wall_time") continue;
    const std::string main_page = b["series"]["refs/heads/main"]["page"], tags = b["series"]["tags"]["page"];
    says += " --expect '" + main_page + "=latest: position 63'";
    says += " --expect '" + main_page + "=commit " + fake_sha(113).substr(0, 12) + "'";
    says += " --expect '" + main_page + "=median 112.4 ms'";
    says += " --expect '" + tags + "=latest: v1.1'";
    says += " --expect '" + tags + "=commit " + fake_sha(201).substr(0, 12) + "'";
    says += " --expect '" + tags + "=median 100.4 ms'";
  }
  says += " --expect 'r/o/r/pulls/7.html=#7 Rewrite the tokenizer'";
  says += " --expect 'r/o/r/pulls/7.html=by mallory · from tokenizer'";
  int rc = 0;
  const std::string out = check_pages(site, pages, says, &rc);
  INFO(out);
  CHECK(rc == 0);
  CHECK(out.find("check_site: " + std::to_string(pages.size()) + " passed, 0 failed") != std::string::npos);
}

TEST_CASE("a trend past its first 64 points: the page joins the newest chunk's tail to the rest") {
  need_browser();
  ReporterFixture s("");
  // 70 pushes of main at positions 0..69 with a 12 % step at 20: the chunk's
  // first file holds positions 0..63, its tail 64..69 (site_paths.h).
  push_main_with_step(s, 70, 20, [](int i) { return int64_t(i); });
  INFO(s.logs());

  const std::string site = s.dir / "state/site";
  const std::string trend = main_trend(site, "micro/loop:wall_time");
  const std::string sid = trend.substr(trend.rfind('/') + 1, 16);
  const std::string series_file = site + "/data/r/o/r/s/" + sid + ".js";
  const std::string tail_file = site + "/data/r/o/r/s/" + sid + ".0.t.js";
  const json series = data_file(series_file);
  CHECK(series["schema"] == "benchbox.site.series/3");
  REQUIRE(series["chunks"].size() == 1);
  CHECK(series["chunks"][0]["points"] == 64);
  CHECK(series["chunk_files"]["name"] == "chunk/" + sid + "/");
  CHECK_FALSE(series.contains("points"));
  // The tail, the points count and the change points are in the recent
  // file of the series' group (docs/dashboard.md, "recent").
  const json recent = data_file(site + "/" + series["recent"]["src"].get<std::string>());
  CHECK(recent["schema"] == "benchbox.site.recent/1");
  const json entry = recent["series"][sid];
  CHECK(entry["points"] == 70);
  CHECK(entry["change_points"].size() == 1);
  CHECK(entry["tail"]["chunk"] == "0");
  CHECK(entry["tail"]["tail"] == true);
  CHECK(entry["tail"]["points"] == 6);
  CHECK(entry["tail"]["data"]["points"] == 6);
  CHECK(::access(tail_file.c_str(), F_OK) != 0);

  // The readout's latest point comes from the tail, with its commit; the
  // change point's position is found among the first file's points (a
  // point the page did not join would show "–").
  std::string says;
  says += " --expect '" + trend + "=latest: position 69'";
  says += " --expect '" + trend + "=commit " + fake_sha(169).substr(0, 12) + "'";
  says += " --expect '" + trend + "=p environment 20 '";
  // The environments table counts the points itself: a branch's series
  // file does not (trend.js, pointsByEnv).
  REQUIRE(series["environments"].size() == 1);
  CHECK_FALSE(series["environments"][0].contains("points"));
  says += " --expect '" + trend + "=env 0 " + series["environments"][0]["key"].get<std::string>() + " " +
          series["environments"][0]["machine"].get<std::string>() + " 70'";
  auto check = [&] {
    int rc = 0;
    const std::string out = check_pages(site, {trend}, says, &rc);
    INFO(out);
    CHECK(rc == 0);
    CHECK(out.find("check_site: 1 passed, 0 failed") != std::string::npos);
  };
  check();

  // A site from before recent files kept them in the series file.
  json inline_tail = series;
  inline_tail["schema"] = "benchbox.site.series/2";
  inline_tail.erase("recent");
  inline_tail["points"] = entry["points"];
  inline_tail["change_points"] = entry["change_points"];
  inline_tail["chunks"].push_back(entry["tail"]);
  const std::string receive = "benchbox.receive(";
  REQUIRE(write_file_atomic(series_file, receive + json("series/" + sid).dump() + ", " + inline_tail.dump() + ");\n"));
  check();

  // One from before that kept the tail in a file of its own, which the
  // series file's entry names by the series' pattern: the page reads it.
  json old = inline_tail;
  const json tail = old["chunks"][1]["data"];
  old["chunks"][1].erase("data");
  REQUIRE(write_file_atomic(tail_file, receive + json("chunk/" + sid + "/0/tail").dump() + ", " + tail.dump() + ");\n"));
  REQUIRE(write_file_atomic(series_file, receive + json("series/" + sid).dump() + ", " + old.dump() + ");\n"));
  REQUIRE_FALSE(data_file(series_file)["chunks"][1].contains("data"));
  check();
}

TEST_CASE("a trend past its first chunks: the page takes the older ones from their pack") {
  need_browser();
  ReporterFixture s("");
  // Four pushes in each of nine chunks, a 12 % step where the fifth begins
  // (position 4 x 1024): the newest chunk is past the first group, which is
  // packed (site_paths.h, kPackChunks).
  push_main_with_step(s, 36, 16, [](int i) { return int64_t(i / 4) * 1024 + i % 4; });
  INFO(s.logs());

  const std::string site = s.dir / "state/site";
  const std::string trend = main_trend(site, "micro/loop:wall_time");
  const std::string sid = trend.substr(trend.rfind('/') + 1, 16);
  const json series = data_file(site + "/data/r/o/r/s/" + sid + ".js");
  INFO(series["chunks"].dump());
  // The newest chunk, of four points, is all tail: in the recent file.
  REQUIRE(series["chunks"].size() == 8);
  for (int c = 0; c < 8; ++c) CHECK(series["chunks"][size_t(c)]["src"] == "data/r/o/r/s/" + sid + ".p0.js");
  const json recent = data_file(site + "/" + series["recent"]["src"].get<std::string>());
  CHECK(recent["series"][sid]["tail"]["chunk"] == "8");
  CHECK(recent["series"][sid]["tail"]["points"] == 4);
  CHECK(::access((site + "/data/r/o/r/s/" + sid + ".p0.js").c_str(), F_OK) == 0);
  // The page reads the packed chunks from the pack alone.
  for (int c = 0; c < 8; ++c)
    REQUIRE(::unlink((site + "/data/r/o/r/s/" + sid + "." + std::to_string(c) + ".js").c_str()) == 0);

  // The change point is found among the pack's points, and the latest
  // point with its commit among the newest chunk's.
  std::string says;
  says += " --expect '" + trend + "=latest: position 8195'";
  says += " --expect '" + trend + "=commit " + fake_sha(135).substr(0, 12) + "'";
  says += " --expect '" + trend + "=p environment 4096 '";
  int rc = 0;
  const std::string out = check_pages(site, {trend}, says, &rc);
  INFO(out);
  CHECK(rc == 0);
  CHECK(out.find("check_site: 1 passed, 0 failed") != std::string::npos);
}

TEST_CASE("the culprit a bisection named, and the confirmation, show beside the open regression") {
  need_browser();
  ReporterFixture s("  regression_issues: true\n");
  const History h{6, 4};  // commit 14 made it 10 % slower
  s.run_job(push_spec(fake_sha(10)), push_result(fake_sha(10), 0.100, 10, "refs/heads/main"));
  const int64_t bad = s.run_job(push_spec(fake_sha(16)), push_result(fake_sha(16), 0.110, 16, "refs/heads/main"));
  INFO(s.logs());
  REQUIRE(wait_until([&] { return s.reported(bad); }));
  const std::string site = s.dir / "state/site";
  answer_until(
      s, [&] { return slurp(site + "/data/index.js").find("Unroll the loop") != std::string::npos; },
      [&](const json& job) { answer(s, job, h); });

  // The trend of the benchmark it followed marks the culprit at its
  // first-parent position, between the two pushes measured.
  const std::string trend = main_trend(site, "micro/loop:wall_time");
  const std::string series = site + "/data/r/o/r/s/" + trend.substr(trend.rfind('/') + 1, 16) + ".js";
  REQUIRE(wait_until([&] { return slurp(series).find("Unroll the loop") != std::string::npos; }));

  std::string says;
  for (const std::string page : {"index.html", "r/o/r/index.html"}) {
    says += " --expect '" + page + "=culprit " + fake_sha(14).substr(0, 12) + " Unroll the loop (#42) — Dev 4 · PR #42'";
    says += " --expect '" + page + "=confirmed: '";
  }
  says += " --expect '" + trend + "=culprit #14 " + fake_sha(14).substr(0, 12) + " Unroll the loop (#42)'";
  // The push that found it says what came of it.
  const std::string run = "r/o/r/runs/" + std::to_string(bad) + ".html";
  says += " --expect '" + run + "=Regression found by this run'";
  says += " --expect '" + run + "=culprit " + fake_sha(14).substr(0, 12) + " Unroll the loop (#42)'";
  int rc = 0;
  const std::string out = check_pages(site, {"index.html", "r/o/r/index.html", trend, run}, says, &rc);
  INFO(out);
  CHECK(rc == 0);
  CHECK(out.find("check_site: 4 passed, 0 failed") != std::string::npos);
}

TEST_CASE("a callgrind regression's differential flame graph: head's tree, coloured by the change against base") {
  need_browser();
  ReporterFixture s("");
  // main -> parse -> hot and main -> other; head plants a 10 % change in
  // hot's own code, nothing else.
  auto profile = [&](const std::string& name, int hot) {
    const std::string path = s.dir / name;
    REQUIRE(write_file_atomic(path, "positions: line\nevents: Ir\n"
                "fn=(1) main\n1 10\ncfn=(2) parse\ncalls=1 5\n2 " + std::to_string(100 + hot) + "\n"
                "cfn=(3) other\ncalls=1 5\n3 500\n"
                "fn=(2)\n5 100\ncfn=(4) hot\ncalls=1 6\n6 " + std::to_string(hot) + "\n"
                "fn=(3)\n7 500\n"
                "fn=(4)\n8 " + std::to_string(hot) + "\n"));
    return path;
  };
  auto side = [&](const std::string& commit, const std::string& role, int hot) {
    model::ResultSet rs = result_set(commit, 0.1, role);
    rs.benchmarks.clear();
    model::Benchmark b;
    b.key = {"cg", "parse_file", {}, "instructions"};
    b.unit = "count";
    const double ir = 10 + 100 + hot + 500;
    b.samples = {ir, ir};
    b.rounds = {0, 1};
    b.extra["profiles"] = {profile(role + ".callgrind.out", hot)};
    rs.benchmarks.push_back(b);
    return rs;
  };
  model::JobResult pr;
  pr.kind = "pull_request";
  pr.base = side(fake_sha(100), "base", 1000);
  pr.head = side(fake_sha(300), "head", 1100);
  const int64_t job = s.run_job(pr_spec(fake_sha(300), 7), pr);
  INFO(s.logs());
  REQUIRE(wait_until([&] { return s.reported(job); }, std::chrono::seconds(60)));

  const std::string site = s.dir / "state/site";
  const std::string run = "r/o/r/runs/" + std::to_string(job) + ".html";
  const json data = data_file(site + "/data/" + run.substr(0, run.size() - 5) + ".js");
  REQUIRE(data["flames"].size() == 1);
  CHECK(slurp(site + "/" + data["flames"][0]["folded"]["head"].get<std::string>()) ==
        "main 10\nmain;other 500\nmain;parse 100\nmain;parse;hot 1100\n");
  std::string says = " --expect '" + run + "=Differential flame graphs'";
  says += " --flame '" + run + "=hot:slower'";       // the planted change, red
  says += " --flame '" + run + "=parse:unchanged'";  // its caller's own code did not change
  says += " --flame '" + run + "=other:unchanged'";
  says += " --flame '" + run + "=main:unchanged'";
  int rc = 0;
  const std::string out = check_pages(site, {run}, says, &rc);
  INFO(out);
  CHECK(rc == 0);
  CHECK(out.find("check_site: 1 passed, 0 failed") != std::string::npos);
}

TEST_CASE("the box health page: the canary's level and runs, what each suite resolves, the regressions held") {
  need_browser();
  ReporterFixture s("  regression_issues: true\n");
  INFO(s.logs());
  // The box slowed down after five steady canary runs.
  const int64_t t0 = std::time(nullptr) - 3600;
  s.write_shifted_canary(t0, 1.25, 1.1);
  // A push under it looks slower: held, not filed.
  s.run_job(push_spec(fake_sha(10)), push_result(fake_sha(10), 0.100, 10, "refs/heads/main"));
  const int64_t bad = s.run_job(push_spec(fake_sha(13)), push_result(fake_sha(13), 0.110, 13, "refs/heads/main"));
  REQUIRE(wait_until([&] { return s.reported(bad); }));
  REQUIRE(wait_until([&] { return s.reporterd->log().find("held: the box is shifted") != std::string::npos; }));

  const std::string site = s.dir / "state/site";
  REQUIRE(wait_until([&] { return slurp(site + "/data/box.js").find("\"held\":[{") != std::string::npos; }));
  const json box = data_file(site + "/data/box.js");
  CHECK(box["health"]["level"] == "shifted");
  CHECK(box["canary"]["runs"].size() == 7);
  CHECK(box["suites"].size() == 1);
  std::string says;
  says += " --expect 'box.html=shifted'";
  says += " --expect 'box.html=7 runs since'";
  says += " --expect 'box.html=Held regressions'";
  says += " --expect 'box.html=micro/loop:wall_time'";  // the held regression's benchmark
  says += " --expect 'box.html=What this box resolves'";
  says += " --expect 'box.html=Level changes'";  // the canary series' change points
  says += " --reject 'box.html=None held'";
  says += " --expect 'index.html=box health'";
  int rc = 0;
  const std::string out = check_pages(site, {"index.html", "box.html"}, says, &rc);
  INFO(out);
  CHECK(rc == 0);
  CHECK(out.find("ok box.html: 1 canvases drawn") != std::string::npos);
  CHECK(out.find("check_site: 2 passed, 0 failed") != std::string::npos);
}
