// bench/formats: parse throughput and peak memory of each JSON result
// format on a large generated file, beside plain nlohmann::json::parse of
// the same bytes measured in the same run.
//
//   bench-formats [--scale F] [--keep] [--only FORMAT]
//
// Each format is read three ways: parse_text as it is (simdjson), parse_text
// with use_simdjson(false) (the SAX reader it had before), and a plain DOM.
// Files are generated into /tmp (Google Benchmark: >= 100 MB, >= 100,000
// benchmarks at scale 1; the other formats 1/4 of that). Every measurement
// runs in its own forked child, so its peak RSS (getrusage ru_maxrss) is its
// own: reported as the peak over the child's RSS before parsing, with the
// input text already in memory, and as a multiple of the file size.
// Beside it, what the result itself holds (its heap bytes, while it is
// alive): the peak less that is what reading cost on top of what was built.
// Issue 33's goal: at most the file's size.
//
// On a virtual machine, memory a process touches for the first time costs
// more than most parsing: the kernel faults in and clears every page. So
// the bench also times a child that only touches as much fresh memory as
// our reader's peak (`touch ms`), and prints `ceiling`: the DOM's time over
// that, the most our reader could be ahead of the DOM if reading itself
// cost nothing.
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/formats.h"
#include "formats/json_support.h"
#include "util/file.h"

namespace {

struct Generated {
  std::string format, path;
  size_t bytes = 0, benchmarks = 0;
};

// Small deterministic generator so runs are comparable.
struct Rng {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  double next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return double(s % 1000000) / 1000000.0;
  }
};

size_t file_size(const std::string& p) {
  FILE* f = std::fopen(p.c_str(), "rb");
  if (!f) return 0;
  std::fseek(f, 0, SEEK_END);
  long n = std::ftell(f);
  std::fclose(f);
  return size_t(n);
}

Generated gen_google_benchmark(const std::string& path, size_t names, int reps) {
  FILE* f = std::fopen(path.c_str(), "w");
  Rng r;
  std::fprintf(f, "{\n  \"context\": {\n    \"date\": \"2026-11-29T12:00:00+00:00\",\n    \"host_name\": \"bench\",\n"
                  "    \"num_cpus\": 2,\n    \"mhz_per_cpu\": 2596,\n    \"library_build_type\": \"release\"\n  },\n"
                  "  \"benchmarks\": [\n");
  bool first = true;
  for (size_t i = 0; i < names; ++i)
    for (int k = 0; k < reps; ++k) {
      std::fprintf(f,
                   "%s    {\n      \"name\": \"BM_generated_family_%zu/size:%zu/threads:1\",\n"
                   "      \"family_index\": %zu,\n      \"per_family_instance_index\": 0,\n"
                   "      \"run_name\": \"BM_generated_family_%zu/size:%zu/threads:1\",\n"
                   "      \"run_type\": \"iteration\",\n      \"repetitions\": %d,\n      \"repetition_index\": %d,\n"
                   "      \"threads\": 1,\n      \"iterations\": %zu,\n      \"real_time\": %.16e,\n"
                   "      \"cpu_time\": %.16e,\n      \"time_unit\": \"ns\",\n"
                   "      \"bytes_per_second\": %.16e,\n      \"items\": %.16e\n    }",
                   first ? "" : ",\n", i, i % 4096, i, i, i % 4096, reps, k, size_t(1000 + i % 90000),
                   100 + 50 * r.next(), 90 + 40 * r.next(), 1e9 * (1 + r.next()), double(i % 77));
      first = false;
    }
  std::fprintf(f, "\n  ]\n}\n");
  std::fclose(f);
  return {"google-benchmark", path, file_size(path), names};
}

Generated gen_hyperfine(const std::string& path, size_t n) {
  FILE* f = std::fopen(path.c_str(), "w");
  Rng r;
  std::fprintf(f, "{\n  \"results\": [\n");
  for (size_t i = 0; i < n; ++i) {
    std::fprintf(f, "%s    {\n      \"command\": \"./tool --case %zu\",\n      \"mean\": 0.01,\n      \"stddev\": 0.001,\n"
                    "      \"median\": 0.01,\n      \"user\": 0.008,\n      \"system\": 0.001,\n      \"min\": 0.009,\n"
                    "      \"max\": 0.012,\n      \"times\": [",
                 i ? ",\n" : "", i);
    for (int k = 0; k < 20; ++k) std::fprintf(f, "%s%.17g", k ? ", " : "", 0.01 + 0.001 * r.next());
    std::fprintf(f, "],\n      \"exit_codes\": [");
    for (int k = 0; k < 20; ++k) std::fprintf(f, "%s0", k ? ", " : "");
    std::fprintf(f, "],\n      \"parameters\": {\"case\": \"%zu\"}\n    }", i);
  }
  std::fprintf(f, "\n  ]\n}\n");
  std::fclose(f);
  return {"hyperfine", path, file_size(path), n};
}

Generated gen_pytest(const std::string& path, size_t n) {
  FILE* f = std::fopen(path.c_str(), "w");
  Rng r;
  std::fprintf(f, "{\"machine_info\": {\"node\": \"bench\"}, \"commit_info\": {\"id\": \"abc\"}, \"benchmarks\": [\n");
  for (size_t i = 0; i < n; ++i) {
    std::fprintf(f, "%s{\"group\": null, \"name\": \"test_case[%zu]\", \"fullname\": \"tests/test_x.py::test_case[%zu]\", "
                    "\"params\": {\"n\": %zu}, \"param\": \"%zu\", \"extra_info\": {}, \"options\": {\"timer\": \"perf_counter\"}, "
                    "\"stats\": {\"min\": 1e-05, \"max\": 2e-05, \"mean\": 1.5e-05, \"stddev\": 1e-06, \"rounds\": 20, "
                    "\"median\": 1.5e-05, \"iqr\": 1e-06, \"q1\": 1.4e-05, \"q3\": 1.6e-05, \"ops\": 66666.0, "
                    "\"total\": 0.0003, \"iterations\": 10, \"data\": [",
                 i ? ",\n" : "", i, i, i, i);
    for (int k = 0; k < 20; ++k) std::fprintf(f, "%s%.17g", k ? ", " : "", 1e-5 * (1 + r.next()));
    std::fprintf(f, "]}}");
  }
  std::fprintf(f, "\n], \"datetime\": \"2026-11-29T12:00:00\", \"version\": \"4.0.0\"}\n");
  std::fclose(f);
  return {"pytest-benchmark", path, file_size(path), n};
}

Generated gen_bmf(const std::string& path, size_t n) {
  FILE* f = std::fopen(path.c_str(), "w");
  Rng r;
  std::fprintf(f, "{\n");
  for (size_t i = 0; i < n; ++i)
    std::fprintf(f, "%s  \"module::bench_%zu\": {\"latency\": {\"value\": %.17g, \"lower_value\": %.17g, "
                    "\"upper_value\": %.17g}, \"throughput\": {\"value\": %.17g}}",
                 i ? ",\n" : "", i, 1000 * (1 + r.next()), 900.0, 2100.0, 1e6 * r.next());
  std::fprintf(f, "\n}\n");
  std::fclose(f);
  return {"bmf", path, file_size(path), 2 * n};
}

Generated gen_benchbox(const std::string& path, size_t n) {
  FILE* f = std::fopen(path.c_str(), "w");
  Rng r;
  std::fprintf(f, "{\"schema\": \"benchbox.resultset/1\", \"repository\": \"o/r\", \"commit\": \"abc\", \"benchmarks\": [\n");
  for (size_t i = 0; i < n; ++i) {
    std::fprintf(f, "%s{\"suite\": \"micro\", \"name\": \"bench_%zu\", \"params\": {\"size\": \"%zu\"}, \"metric\": \"wall_time\", "
                    "\"unit\": \"s\", \"status\": \"ok\", \"samples\": [",
                 i ? ",\n" : "", i, i % 64);
    for (int k = 0; k < 20; ++k) std::fprintf(f, "%s%.17g", k ? ", " : "", 1e-6 * (1 + r.next()));
    std::fprintf(f, "]}");
  }
  std::fprintf(f, "\n]}\n");
  std::fclose(f);
  return {"benchbox", path, file_size(path), n};
}

Generated gen_asv(const std::string& path, size_t n) {
  FILE* f = std::fopen(path.c_str(), "w");
  Rng r;
  std::fprintf(f, "{\"commit_hash\": \"abc\", \"env_name\": \"e\", \"date\": 0, \"params\": {}, \"python\": \"3.11\", "
                  "\"requirements\": {}, \"env_vars\": {}, \"result_columns\": [\"result\", \"params\", \"version\", "
                  "\"started_at\", \"duration\", \"stats_ci_99_a\", \"stats_ci_99_b\", \"stats_q_25\", \"stats_q_75\", "
                  "\"stats_number\", \"stats_repeat\", \"samples\", \"profile\"], \"results\": {\n");
  for (size_t i = 0; i < n; ++i) {
    std::fprintf(f, "%s\"benchmarks.Suite.time_case_%zu\": [[%.17g], [], \"v\", 0, 1.0, [1e-6], [2e-6], [1e-6], [2e-6], "
                    "[1000], [20], [[",
                 i ? ",\n" : "", i, 1.5e-6);
    for (int k = 0; k < 20; ++k) std::fprintf(f, "%s%.17g", k ? ", " : "", 1e-6 * (1 + r.next()));
    std::fprintf(f, "]]]");
  }
  std::fprintf(f, "\n}, \"durations\": {}, \"version\": 2}\n");
  std::fclose(f);
  return {"asv", path, file_size(path), n};
}

struct Measured {
  double seconds = 0;
  double rss_before_mb = 0, rss_peak_mb = 0;
  double kept_mb = 0;  // the result's own heap bytes, measured while it is alive
  size_t count = 0;
  bool ok = false;
  char error[256] = {0};
};

// Bytes malloc has handed out and not had back, mmapped blocks included.
double heap_mb() {
  struct mallinfo2 mi = ::mallinfo2();
  return double(mi.uordblks + mi.hblkhd) / (1024.0 * 1024.0);
}

double maxrss_mb() {
  struct rusage ru {};
  ::getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_maxrss) / 1024.0;  // KiB on Linux
}

// Runs fn(text) in a forked child after reading the file there.
Measured in_child(const std::string& path, const std::function<size_t(const std::string&, Measured&)>& fn) {
  int fds[2];
  if (::pipe(fds) < 0) return {};
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    Measured m;
    auto text = bb::read_file(path, size_t(4) << 30);
    if (text) {
      m.rss_before_mb = maxrss_mb();
      auto t0 = std::chrono::steady_clock::now();
      m.count = fn(*text, m);
      m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      m.rss_peak_mb = maxrss_mb();
    } else {
      std::snprintf(m.error, sizeof m.error, "%s", text.error().message.c_str());
    }
    if (::write(fds[1], &m, sizeof m) != ssize_t(sizeof m)) ::_exit(1);
    ::_exit(0);
  }
  ::close(fds[1]);
  Measured m;
  if (::read(fds[0], &m, sizeof m) != ssize_t(sizeof m)) std::snprintf(m.error, sizeof m.error, "child died");
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return m;
}

// Keeps the fastest of several runs, each in its own child (so each RSS is
// its own), and the largest RSS of any of them, not the fastest run's.
void keep_best(Measured& best, const Measured& m, bool first) {
  if (first || !m.ok) {
    best = m;
    return;
  }
  if (!best.ok) return;
  double rss = std::max(best.rss_peak_mb - best.rss_before_mb, m.rss_peak_mb - m.rss_before_mb);
  double kept = std::min(best.kept_mb, m.kept_mb);  // the worst case for the overhead
  if (m.seconds < best.seconds) best = m;
  best.rss_peak_mb = best.rss_before_mb + rss;
  best.kept_mb = kept;
}

// Rounds of the three readers in turn: a slow spell of this (virtual)
// machine then falls on all three alike instead of on one reader's runs.
constexpr int kRounds = 5;

}  // namespace

int main(int argc, char** argv) {
  double scale = 1.0;
  bool keep = false;
  std::string only;  // one format, e.g. while working on its reader
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--scale") && i + 1 < argc) scale = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--keep")) keep = true;
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--scale F] [--keep] [--only FORMAT]\n", argv[0]);
      return 2;
    }
  }
  std::string dir = "/tmp/bench-formats." + std::to_string(::getpid());
  if (auto st = bb::make_dirs(dir); !st) {
    std::fprintf(stderr, "%s\n", st.error().message.c_str());
    return 2;
  }
  auto n = [&](double base) { return size_t(base * scale) > 0 ? size_t(base * scale) : size_t(1); };
  std::printf("generating inputs in %s ...\n", dir.c_str());
  std::fflush(stdout);
  std::vector<Generated> inputs = {
      gen_google_benchmark(dir + "/google-benchmark.json", n(120000), 2),
      gen_hyperfine(dir + "/hyperfine.json", n(40000)),
      gen_pytest(dir + "/pytest-benchmark.json", n(40000)),
      gen_bmf(dir + "/bmf.json", n(150000)),
      gen_benchbox(dir + "/benchbox.json", n(60000)),
      gen_asv(dir + "/asv.json", n(60000)),
  };

  std::printf("\n%-17s %8s %9s | %9s %9s %6s %8s %6s | %9s %9s %6s | %9s %9s %6s %8s | %7s %7s | %8s %7s\n",
              "format", "file MB", "benches", "ours MB/s", "RSS MB", "xfile", "kept MB", "over", "SAX MB/s", "RSS MB",
              "xfile", "json MB/s", "RSS MB", "xfile", "kept MB", "ours", "SAX", "touch ms", "ceiling");
  std::printf("%-17s %8s %9s | %9s %9s %6s %8s %6s | %9s %9s %6s | %9s %9s %6s %8s | %7s %7s | %8s %7s\n", "", "",
              "", "(simdjson)", "", "", "", "xfile", "(before)", "", "", "(DOM)", "", "", "", "vs json", "vs json",
              "ours' RSS", "vs json");
  int rc = 0;
  auto ours_with = [&](const Generated& in, bool simd) {
    return in_child(in.path, [&](const std::string& text, Measured& m) -> size_t {
      bb::formats::detail::use_simdjson(simd);
      bb::formats::ParseOptions o;
      o.suite = "bench";
      o.text_padded = bb::formats::has_text_padding(text);  // read_file leaves the room
      const double heap0 = heap_mb();
      auto r = bb::formats::parse_text(in.format, text, in.path, o);
      if (!r) {
        std::snprintf(m.error, sizeof m.error, "%s", r.error().message.c_str());
        return 0;
      }
      m.kept_mb = heap_mb() - heap0;
      m.ok = true;
      return r->size();
    });
  };
  // A child that, with the text read as the readers' children have it,
  // allocates `mb` MiB and writes one byte to each 4 KiB page: the cost of
  // memory touched for the first time, alone.
  auto touch = [&](const Generated& in, double mb) {
    return in_child(in.path, [&](const std::string&, Measured& m) -> size_t {
      auto* p = static_cast<volatile char*>(std::malloc(size_t(mb * 1024 * 1024)));
      if (!p) return 0;
      for (size_t i = 0; i < size_t(mb * 1024 * 1024); i += 4096) p[i] = 1;
      m.ok = true;
      return 0;
    });
  };
  auto plain_dom = [&](const Generated& in) {
    return in_child(in.path, [&](const std::string& text, Measured& m) -> size_t {
      try {
        const double heap0 = heap_mb();
        auto j = nlohmann::json::parse(text);
        m.kept_mb = heap_mb() - heap0;
        m.ok = true;
        return j.size();
      } catch (const std::exception& e) {
        std::snprintf(m.error, sizeof m.error, "%s", e.what());
        return 0;
      }
    });
  };
  for (const auto& in : inputs) {
    if (!only.empty() && in.format != only) continue;
    double mb = double(in.bytes) / 1e6;
    Measured ours, sax, plain, touched;
    for (int round = 0; round < kRounds; ++round) {
      keep_best(ours, ours_with(in, true), round == 0);
      keep_best(sax, ours_with(in, false), round == 0);
      keep_best(plain, plain_dom(in), round == 0);
      keep_best(touched, touch(in, ours.rss_peak_mb - ours.rss_before_mb), round == 0);
    }
    if (!ours.ok || !sax.ok || !plain.ok) {
      std::printf("%-17s failed: %s %s %s\n", in.format.c_str(), ours.error, sax.error, plain.error);
      rc = 1;
      continue;
    }
    // Memory the parse added on top of the process with the text loaded.
    auto added = [](const Measured& m) { return m.rss_peak_mb - m.rss_before_mb; };
    std::printf(
        "%-17s %8.1f %9zu | %9.1f %9.1f %6.2f %8.1f %6.2f | %9.1f %9.1f %6.2f | %9.1f %9.1f %6.2f %8.1f | %6.2fx %6.2fx "
        "| %8.1f %6.2fx\n",
        in.format.c_str(), mb, ours.count, mb / ours.seconds, added(ours), added(ours) / mb, ours.kept_mb,
        (added(ours) - ours.kept_mb) / mb, mb / sax.seconds, added(sax), added(sax) / mb, mb / plain.seconds,
        added(plain), added(plain) / mb, plain.kept_mb, plain.seconds / ours.seconds, plain.seconds / sax.seconds,
        touched.seconds * 1e3, touched.ok ? plain.seconds / touched.seconds : 0.0);
    std::fflush(stdout);
  }
  std::printf("\nBest of %d rounds of the three in turn. RSS = peak RSS of a forked child minus its RSS with the file text already\n"
              "read (file size not included); xfile = that over the file size. kept MB = the heap the result holds\n"
              "(the benchmarks, or the DOM) while alive; over = (RSS MB - kept MB) over the file size, what reading\n"
              "cost beyond what it built (issue 33's goal: at most 1). ours = bb::formats::parse_text to\n"
              "canonical benchmarks (simdjson's On-Demand reader); SAX = the same with use_simdjson(false), the\n"
              "nlohmann SAX reader it had before; json = nlohmann::json::parse to a DOM of the same bytes.\n"
              "vs json > 1: faster than the plain DOM parse. touch ms = a child that only touches as much fresh\n"
              "memory as ours' RSS MB (a byte per 4 KiB page); ceiling = json's time over that: how far ahead\n"
              "of the DOM ours could be if reading cost nothing but the memory it touches.\n", kRounds);
  if (!keep)
    for (const auto& in : inputs) ::unlink(in.path.c_str());
  if (!keep) ::rmdir(dir.c_str());
  return rc;
}
