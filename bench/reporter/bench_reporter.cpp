// bench/reporter: what the reporter costs on a big history. Builds history.db
// with C commits × B benchmarks on a main branch (default 10,000 × 1,000:
// ten million points), then measures, in one run:
//   - a full regeneration of the dashboard (every series, chunk and page);
//   - one more result set: compared with the run before it, ingested, and
//     only what it changed regenerated; as a ratio against the full one.
//     Each comes after a sync, as a push minutes after the last finds the
//     files it replaces written back (`push` below);
//   - the bytes a trend page of C points loads (shell, assets, data) on disk;
//   - headless Chromium loading and drawing that trend page, against a
//     trend page of one point in the same site (tests/browser/check_site.py),
//     over HTTP from nginx with the documented server block
//     (config/nginx-benchbox.conf) where nginx is installed, else from
//     file://; over HTTP the bytes are what the browser received (gzip).
// Commit ids are 40 random-looking hex digits, as real ones are: they are
// most of what a trend's data holds, and all zeros would compress away.
// Run: build/bench/bench-reporter [--commits C] [--benchmarks B] [--dir DIR]
//      [--no-browser] [--pushes N]
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "report/history.h"
#include "report/job_report.h"
#include "report/site.h"
#include "report/site_paths.h"
#include "util/file.h"

using namespace bb;
namespace fs = std::filesystem;
using Steady = std::chrono::steady_clock;

namespace {

// The pushes measured after the full regeneration.
constexpr int kPushes = 9;

constexpr int64_t kTime0 = 1700000000;

double seconds_since(Steady::time_point t) { return std::chrono::duration<double>(Steady::now() - t).count(); }

// This process's CPU time (user and system), printed beside each step's
// wall time: where the two part, the step waited on the disk.
double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::string commit_of(int64_t i) {
  uint64_t s = static_cast<uint64_t>(i);
  char buf[64];
  const uint64_t a = splitmix(s), b = splitmix(s), c = splitmix(s);
  std::snprintf(buf, sizeof buf, "%016llx%016llx%08llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b), static_cast<unsigned long long>(c >> 32));
  return buf;
}

std::string key_of(int b) { return "suite" + std::to_string(b % 10) + "/bench" + std::to_string(b) + ":wall_time"; }

// Benchmark b's level at commit i: a 5 % step at 70 % of history for every
// tenth benchmark, and +-0.5 % noise.
double level(int b, int64_t i, int64_t commits) {
  const double base = 1e-3 * (1 + b % 37);
  const double step = (b % 10 == 0 && i >= commits * 7 / 10) ? 1.05 : 1.0;
  const double noise = 1 + 0.005 * std::sin(double(i * 7919 + b * 104729));
  return base * step * noise;
}

model::ResultSet result_set(int64_t job, int64_t i, int benchmarks, int64_t commits, bool extra_benchmark) {
  model::ResultSet rs;
  rs.repository = "bench/big";
  rs.ref = "refs/heads/main";
  rs.commit = commit_of(i);
  rs.job_id = job;
  rs.environment_key = "env-bench";
  rs.machine_fingerprint = "machine-bench";
  rs.created = kTime0 + i * 600;
  rs.commit_info = {kTime0 + i * 600, "bench <b@example.org>", "commit " + std::to_string(i), i};
  for (int b = 0; b < benchmarks + (extra_benchmark ? 1 : 0); ++b) {
    model::Benchmark bench;
    bench.key = {"suite" + std::to_string(b % 10), b < benchmarks ? "bench" + std::to_string(b) : "fresh", {}, "wall_time"};
    for (int s = 0; s < 5; ++s) bench.samples.push_back(level(b, i, commits) * (1 + 0.001 * s));
    rs.benchmarks.push_back(std::move(bench));
  }
  return rs;
}

// Commits 0 .. commits-2 straight into the tables (the bench's shortcut: a
// per-job ingest of ten million points would take longer than the rest);
// their result sets are kept as summaries, as after retention.
void bulk_load(report::HistoryStore& h, int64_t commits, int benchmarks) {
  store::Database& db = h.database();
  if (auto st = db.exec("PRAGMA synchronous=OFF"); !st) std::exit((std::fprintf(stderr, "%s\n", st.error().message.c_str()), 1));
  auto tx = store::Transaction::begin(db);
  auto run = db.prepare(
      "INSERT INTO runs (job_id, role, kind, repository, ref, commit_sha, environment_key, machine_fingerprint,"
      " created, result_set, position, commit_time, label, samples_pruned)"
      " VALUES (?, '', 'push', 'bench/big', 'refs/heads/main', ?, 'env-bench', 'machine-bench', ?, ?, ?, ?, '', 1)");
  auto point = db.prepare(
      "INSERT INTO points (job_id, role, repository, ref, benchmark_key, environment_key, unit, status, median,"
      " samples, direction, profiles, position, commit_time, kind, label, machine, q1, q3)"
      " VALUES (?, '', 'bench/big', 'refs/heads/main', ?, 'env-bench', 's', 'ok', ?, 5, 'lower_is_better', '',"
      " ?, ?, 'push', '', 'machine-bench', ?, ?)");
  if (!tx || !run || !point) std::exit((std::fprintf(stderr, "cannot prepare the bulk load\n"), 1));
  std::vector<std::string> keys;
  for (int b = 0; b < benchmarks; ++b) keys.push_back(key_of(b));
  for (int64_t i = 0; i + 1 < commits; ++i) {
    model::ResultSet summary = result_set(i + 1, i, 0, commits, false);
    run->reset();
    run->bind(1, i + 1).bind(2, summary.commit).bind(3, summary.created).bind(4, model::to_json(summary).dump());
    run->bind(5, i).bind(6, summary.commit_info.time);
    if (!run->run()) std::exit(1);
    for (int b = 0; b < benchmarks; ++b) {
      const double m = level(b, i, commits);
      char median[32], q1[32], q3[32];
      std::snprintf(median, sizeof median, "%.17g", m * 1.002);
      std::snprintf(q1, sizeof q1, "%.17g", m * 1.001);
      std::snprintf(q3, sizeof q3, "%.17g", m * 1.003);
      point->reset();
      point->bind(1, i + 1).bind(2, keys[b]).bind(3, std::string(median)).bind(4, i).bind(5, kTime0 + i * 600);
      point->bind(6, std::string(q1)).bind(7, std::string(q3));
      if (auto st = point->run(); !st) std::exit((std::fprintf(stderr, "%s\n", st.error().message.c_str()), 1));
    }
    if (i % 1000 == 999) std::fprintf(stderr, "  %lld commits loaded\n", static_cast<long long>(i + 1));
  }
  if (!tx->commit()) std::exit(1);
  (void)db.exec("PRAGMA synchronous=FULL");
}

// One job as reporterd handles it: compared with the run before it,
// ingested, its trends drawn, the change points of its report taken from
// the windows they were drawn with, and the rest of what it changed drawn.
double one_job(report::HistoryStore& h, report::SiteWriter& site, const model::ResultSet& rs) {
  const auto t = Steady::now();
  model::JobResult jr;
  jr.job_id = rs.job_id;
  jr.kind = "push";
  jr.head = rs;
  auto previous = h.previous_run(rs, "push");
  if (!previous) std::exit((std::fprintf(stderr, "%s\n", previous.error().message.c_str()), 1));
  model::Job job;
  job.id = rs.job_id;
  job.state = model::JobState::done;
  job.spec.kind = model::JobKind::push;
  job.spec.repository = rs.repository;
  job.spec.ref = rs.ref;
  job.spec.head_sha = rs.commit;
  report::JobReport rep = report::build_report(job, jr, *previous, {});
  if (!h.ingest(rs, "push")) std::exit(1);
  if (!h.record_job({job.id, rs.repository, "push", rs.ref, 0, rs.commit, "", rs.created, rs.created, "done",
                     report::to_string(rep.overall), rep.summary, rs.commit_info.time}))
    std::exit(1);
  if (auto st = site.write_job_series(rs.repository, jr); !st)
    std::exit((std::fprintf(stderr, "%s\n", st.error().message.c_str()), 1));
  if (auto st = site.add_change_points(rep, jr); !st)
    std::exit((std::fprintf(stderr, "%s\n", st.error().message.c_str()), 1));
  if (auto st = site.job_finished(rep, jr); !st) std::exit((std::fprintf(stderr, "%s\n", st.error().message.c_str()), 1));
  return seconds_since(t);
}

// One push as the box meets it: minutes after the one before, whose files
// the kernel has written back by then (a sync, not timed, stands in for the
// minutes). `wall` ends when the site is current; the files the push
// replaced are removed on the writer's thread after that (`removal`, the
// time from there until they are gone), and `cpu` counts that thread too.
struct Push {
  double wall = 0, cpu = 0, removal = 0;
  size_t files = 0;
};

Push push(report::HistoryStore& h, report::SiteWriter& site, const model::ResultSet& rs) {
  ::sync();
  Push p;
  const size_t before = site.stats().files_written;
  const double cpu = cpu_seconds();
  p.wall = one_job(h, site, rs);
  const auto t = Steady::now();
  site.settle();
  p.removal = seconds_since(t);
  p.cpu = cpu_seconds() - cpu;
  p.files = site.stats().files_written - before;
  std::printf("  one more result set: %.3f s (CPU %.3f s), %zu files written, the old ones gone %.3f s later\n", p.wall,
              p.cpu, p.files, p.removal);
  return p;
}

uint64_t file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

uint64_t tree_size(const std::string& dir) {
  uint64_t total = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) total += e.file_size();
  return total;
}

// A number check_site.py printed in a page's timing summary
// ("ready_ms_median", "bytes").
double timing_figure(const std::string& output, const std::string& page, const std::string& field) {
  const std::string marker = "{\"timing\": \"" + page + "\", \"runs\"";
  const size_t at = output.find(marker);
  if (at == std::string::npos) return -1;
  const std::string name = "\"" + field + "\": ";
  const size_t m = output.find(name, at);
  return m == std::string::npos ? -1 : std::atof(output.c_str() + m + name.size());
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

// nginx serving the site with the documented server block on a loopback
// port, inside the smallest http{} that runs without /etc/nginx (as the
// system test's dashboard check does); stopped when it goes.
class Nginx {
 public:
  static std::optional<Nginx> start(const std::string& site_dir, const std::string& dir) {
    const char* binary = "/usr/sbin/nginx";
    if (::access(binary, X_OK) != 0) return std::nullopt;
    auto block = read_file(std::string(BB_SOURCE_ROOT) + "/config/nginx-benchbox.conf");
    if (!block) return std::nullopt;
    const int port = free_port();
    if (port <= 0) return std::nullopt;
    std::string server = replace_all(*block, "listen 80;", "listen 127.0.0.1:" + std::to_string(port) + ";");
    server = replace_all(server, "listen [::]:80;", "");
    server = replace_all(server, "root /var/lib/benchbox/site;", "root " + site_dir + ";");
    fs::create_directories(dir);
    std::string conf = ::geteuid() == 0 ? "user nobody nogroup;\n" : "";
    conf += "pid " + dir + "/nginx.pid;\nerror_log " + dir + "/error.log;\nevents {}\nhttp {\n  include /etc/nginx/mime.types;\n"
            "  access_log off;\n";
    for (const char* t : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"})
      conf += std::string("  ") + t + "_temp_path " + dir + "/" + t + ";\n";
    conf += server + "}\n";
    if (!write_file_replace(dir + "/nginx.conf", conf)) return std::nullopt;
    const pid_t pid = ::fork();
    if (pid < 0) return std::nullopt;
    if (pid == 0) {
      ::execl(binary, binary, "-c", (dir + "/nginx.conf").c_str(), "-e", (dir + "/error.log").c_str(), "-g",
              "daemon off;", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    Nginx n(pid, port);
    for (int i = 0; i < 100; ++i) {
      if (answers(port)) return n;
      if (::waitpid(pid, nullptr, WNOHANG) == pid) {
        n.pid_ = -1;
        auto log = read_file(dir + "/error.log");
        std::fprintf(stderr, "nginx did not start: %s\n", log ? log->c_str() : "");
        return std::nullopt;
      }
      ::usleep(50 * 1000);
    }
    return std::nullopt;
  }
  Nginx(Nginx&& o) noexcept : pid_(std::exchange(o.pid_, -1)), port_(o.port_) {}
  Nginx& operator=(Nginx&&) = delete;
  ~Nginx() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGQUIT);
    ::waitpid(pid_, nullptr, 0);
  }
  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }

 private:
  Nginx(pid_t pid, int port) : pid_(pid), port_(port) {}
  static int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = -1;
    if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
      port = ntohs(a.sin_port);
    if (fd >= 0) ::close(fd);
    return port;
  }
  static bool answers(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    const bool ok = fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    if (fd >= 0) ::close(fd);
    return ok;
  }
  pid_t pid_;
  int port_;
};

// --pushes N: N more pushes onto the history.db and site an earlier run
// left in --dir, without loading or rendering them again; for a profiler
// at the size (the first push also reads the series' summaries and
// change-point windows, which a running reporterd keeps).
int pushes_only(const std::string& dir, int benchmarks, int64_t commits, int pushes) {
  auto opened = report::HistoryStore::open(dir + "/history.db");
  if (!opened) return (std::fprintf(stderr, "%s\n", opened.error().message.c_str()), 1);
  report::HistoryStore h = std::move(*opened);
  auto q = h.database().prepare("SELECT MAX(job_id), MAX(position) FROM runs WHERE repository = 'bench/big'");
  if (!q) return (std::fprintf(stderr, "%s\n", q.error().message.c_str()), 1);
  auto row = q->step();
  if (!row || !*row || q->column_int64(0) == 0)
    return (std::fprintf(stderr, "bench-reporter: no earlier run in %s\n", dir.c_str()), 1);
  const int64_t job = q->column_int64(0), position = q->column_int64(1);
  report::ChangeCache changes;
  report::SiteOptions options;
  options.site_dir = dir + "/site";
  report::SiteWriter site(h, options, changes);
  for (int k = 0; k < pushes; ++k) push(h, site, result_set(job + 1 + k, position + 1 + k, benchmarks, commits, false));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t commits = 10000;
  int benchmarks = 1000;
  std::string dir = "/var/tmp/bench-reporter";
  bool browser = true;
  int pushes = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--commits" && i + 1 < argc) commits = std::atoll(argv[++i]);
    else if (a == "--pushes" && i + 1 < argc) pushes = std::atoi(argv[++i]);
    else if (a == "--benchmarks" && i + 1 < argc) benchmarks = std::atoi(argv[++i]);
    else if (a == "--dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--no-browser") browser = false;
    else {
      std::fprintf(stderr,
                   "usage: bench-reporter [--commits C] [--benchmarks B] [--dir DIR] [--no-browser] [--pushes N]\n");
      return 2;
    }
  }
  if (commits < 4 || benchmarks < 1) return 2;
  // A line as soon as it is measured, also into a file: a run at the
  // issue's size takes a quarter of an hour, and a profiler is switched on
  // when the full regeneration's line appears.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (pushes > 0) return pushes_only(dir, benchmarks, commits, pushes);
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string site_dir = dir + "/site";

  auto t = Steady::now();
  auto opened = report::HistoryStore::open(dir + "/history.db");
  if (!opened) return (std::fprintf(stderr, "%s\n", opened.error().message.c_str()), 1);
  report::HistoryStore h = std::move(*opened);
  bulk_load(h, commits, benchmarks);
  // The newest historical run whole (raw samples): what the next is compared with.
  if (!h.ingest(result_set(commits, commits - 1, benchmarks, commits, false), "push")) return 1;
  std::printf("history: %lld commits x %d benchmarks = %lld points, history.db %.1f MiB (loaded in %.0f s)\n",
              static_cast<long long>(commits), benchmarks, static_cast<long long>(commits) * benchmarks,
              double(file_size(dir + "/history.db") + file_size(dir + "/history.db-wal")) / (1 << 20),
              seconds_since(t));

  report::ChangeCache changes;
  report::SiteOptions options;
  options.site_dir = site_dir;
  report::SiteWriter site(h, options, changes);
  // Each phase starts with nothing of the one before left to write back:
  // the kernel flushing 8 GiB of history, or the 950 MiB the regeneration
  // wrote, while a push is timed measured that write-back, not the push.
  // Neither phase's own write-back is timed.
  ::sync();
  t = Steady::now();
  double cpu = cpu_seconds();
  if (auto st = site.render_all(); !st) return (std::fprintf(stderr, "%s\n", st.error().message.c_str()), 1);
  site.settle();  // whatever it replaced gone, inside its time
  const double full = seconds_since(t);
  const double full_cpu = cpu_seconds() - cpu;
  const size_t full_files = site.stats().files_written;
  std::printf("full regeneration:                 %8.3f s  (CPU %.3f s; %zu series, %zu files, site %.1f MiB)\n", full,
              full_cpu, site.stats().series_written, full_files, double(tree_size(site_dir)) / (1 << 20));

  // Nine more pushes, their median the figure; the last brings a new
  // benchmark (the baseline trend page of one point for the browser). The
  // first reads history's pages back into a page cache the regeneration's
  // 950 MiB pushed them out of (1.1-1.7 s here): the median of three
  // pushes this took before was always the slower of the other two.
  std::vector<double> times, cpus;
  for (int k = 0; k < kPushes; ++k) {
    const Push p = push(h, site, result_set(commits + 1 + k, commits + k, benchmarks, commits, k == kPushes - 1));
    times.push_back(p.wall);
    cpus.push_back(p.cpu);
  }
  std::sort(times.begin(), times.end());
  std::sort(cpus.begin(), cpus.end());
  const double incremental = times[kPushes / 2];
  std::printf("ingest one more + regenerate:      %8.3f s  (median of %d)  = %.4fx the full regeneration\n",
              incremental, kPushes, incremental / full);
  std::printf("  in CPU time:                     %8.3f s  (median of %d)  = %.4fx the full regeneration's\n",
              cpus[kPushes / 2], kPushes, cpus[kPushes / 2] / full_cpu);

  // What a trend page loads: its shell, the assets it names, and the data
  // files its shell preloads (its series file, its packs and chunks, the
  // newest chunk's commits; the others' commits load only when a point of
  // theirs is hovered).
  const std::string repo = "bench/big";
  const std::string sid = report::site::series_id("refs/heads/main", key_of(0));
  const std::string page = report::site::trend_page(repo, sid);
  uint64_t data = 0;
  size_t data_files = 0;
  {
    std::ifstream in(site_dir + "/" + page);
    const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string mark = "<link rel=\"preload\" as=\"script\" href=\"";
    for (size_t at = html.find(mark); at != std::string::npos; at = html.find(mark, at + 1)) {
      const size_t from = at + mark.size(), end = html.find('"', from);
      std::string href = html.substr(from, end - from);
      while (href.rfind("../", 0) == 0) href.erase(0, 3);
      data += file_size(site_dir + "/" + href);
      ++data_files;
    }
  }
  uint64_t assets = 0;
  for (const char* a : {"assets/benchbox.js", "assets/benchbox.css"})
    assets += file_size(site_dir + "/" + a);
  const uint64_t shell = file_size(site_dir + "/" + page);
  std::printf("a trend page of %lld points loads %.0f KiB: shell %.1f KiB, assets %.1f KiB, data %.0f KiB"
              " in %zu files (series file, recent file, packs, chunks, the newest chunk's commits)\n",
              static_cast<long long>(commits + kPushes), double(shell + assets + data) / 1024, double(shell) / 1024,
              double(assets) / 1024, double(data) / 1024, data_files);

  if (!browser) return 0;
  const std::string one = report::site::trend_page(repo, report::site::series_id(
      "refs/heads/main", "suite" + std::to_string(benchmarks % 10) + "/fresh:wall_time"));
  auto nginx = Nginx::start(site_dir, dir + "/nginx");
  const std::string base = nginx ? nginx->base() : site_dir;
  const std::string check = std::string(BB_SOURCE_ROOT) + "/tests/browser/check_site.py";
  const std::string command = "python3 " + check + " --base " + base + " --timing 5 " + page + " " + one + " 2>&1";
  std::string output;
  if (FILE* p = ::popen(command.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
    if (::pclose(p) != 0) return (std::fprintf(stderr, "check_site failed:\n%s\n", output.c_str()), 1);
  }
  const double big = timing_figure(output, page, "ready_ms_median"), small = timing_figure(output, one, "ready_ms_median");
  if (big < 0 || small <= 0) return (std::fprintf(stderr, "no timing from check_site:\n%s\n", output.c_str()), 1);
  const char* from = nginx ? "over HTTP from nginx with config/nginx-benchbox.conf" : "from file:// (no nginx here)";
  std::printf("%s: a trend page of %lld points loads %.0f KiB, of 1 point %.0f KiB\n", from,
              static_cast<long long>(commits + kPushes), timing_figure(output, page, "bytes") / 1024,
              timing_figure(output, one, "bytes") / 1024);
  std::printf("Chromium load and draw (median of 5, %s): trend of %lld points %.0f ms,"
              " trend of 1 point %.0f ms: %.2fx\n",
              nginx ? "over HTTP" : "from file://", static_cast<long long>(commits + kPushes), big, small, big / small);
  return 0;
}
