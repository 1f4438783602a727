// One trend of the dashboard: its series file (what it is, its
// environments, change points, siblings, chunk list) and its chunks of
// points (docs/dashboard.md, "series" and "chunk").
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include <unistd.h>

#include "report/site.h"
#include "report/site_chunk.h"
#include "report/site_paths.h"
#include "report/site_recent.h"
#include "util/json_text.h"
#include "util/file.h"
#include "util/text.h"

namespace bb::report {

namespace {

bool release(const std::string& ref) { return ref == kReleaseSeries; }

// "suite/name[a=1,b=2]:metric" -> its parts, for people to read.
struct KeyParts {
  std::string suite, name, metric, benchmark;  // benchmark: the key without ":metric"
  nlohmann::json params = nlohmann::json::object();
};

KeyParts parts_of(const std::string& key) {
  KeyParts p;
  const size_t colon = key.rfind(':');
  p.benchmark = colon == std::string::npos ? key : key.substr(0, colon);
  p.metric = colon == std::string::npos ? "" : key.substr(colon + 1);
  const size_t slash = p.benchmark.find('/');
  p.suite = slash == std::string::npos ? "" : p.benchmark.substr(0, slash);
  p.name = slash == std::string::npos ? p.benchmark : p.benchmark.substr(slash + 1);
  if (!p.name.empty() && p.name.back() == ']') {
    if (const size_t open = p.name.find('['); open != std::string::npos) {
      for (const auto& kv : split(p.name.substr(open + 1, p.name.size() - open - 2), ',')) {
        const size_t eq = kv.find('=');
        if (eq != std::string::npos) p.params[kv.substr(0, eq)] = kv.substr(eq + 1);
      }
      p.name = p.name.substr(0, open);
    }
  }
  return p;
}

// A point as a change-point window keeps it: what detection and the
// series file read of it (median, samples, status, commit, job,
// position), not its profiles, label, environment or machine.
SeriesPoint for_window(const SeriesPoint& p) {
  SeriesPoint w;
  w.job_id = p.job_id;
  w.commit = p.commit;
  w.median = p.median;
  w.q1 = p.q1;
  w.q3 = p.q3;
  w.samples = p.samples;
  w.status = p.status;
  w.position = p.position;
  w.commit_time = p.commit_time;
  return w;
}

// Where a branch's newest chunk of n points splits into its first file and
// its tail, which a push rewrites in its recent file: at a multiple of
// kTailPoints, so a push rewrites at most kTailPoints points, and the first
// file once per kTailPoints pushes instead of on every one. A chunk of at
// most kTailPoints points is all tail, and has no file.
size_t tail_split(size_t n) {
  const size_t t = size_t(site::kTailPoints);
  return n <= t ? 0 : (n - 1) / t * t;
}

// How many of a series' chunk groups are packed (site_paths.h,
// kPackChunks): on a branch, every group its newest chunk is past. Which
// they are follows from the chunks alone, so the series file, the shell and
// the writer agree without keeping it anywhere.
int64_t packs_of(const std::string& ref, const SeriesSummary& summary) {
  if (release(ref) || summary.chunks.empty()) return 0;
  return std::max<int64_t>(0, summary.chunks.rbegin()->first / site::kPackChunks);
}

bool packed(int64_t chunk, int64_t packs) { return chunk >= 0 && chunk / site::kPackChunks < packs; }

// A series' data files as its trend shell names them: a pack for its
// packed chunks, one file for each other chunk (a tail is in the recent
// file, and a chunk that is all tail has no file).
std::vector<std::string> chunk_files(const std::string& repository, const std::string& ref, const std::string& sid,
                                     const SeriesSummary& summary) {
  const int64_t packs = packs_of(ref, summary);
  std::vector<std::string> out;
  for (const auto& [chunk, c] : summary.chunks) {
    if (c.tail >= c.points) continue;
    std::string file = packed(chunk, packs) ? site::pack_data(repository, sid, chunk / site::kPackChunks)
                                            : site::chunk_data(repository, sid, chunk);
    if (out.empty() || out.back() != file) out.push_back(std::move(file));
  }
  return out;
}

// Whether the page loads a chunk's commits at once (trend.js), so the
// series file marks its entries and the shell preloads the file: the
// newest chunk's (the readout shows the latest point), every chunk's in the
// release series. The others' load when a point of theirs is hovered.
bool commits_at_once(const std::string& ref, const SeriesSummary& summary, int64_t chunk) {
  return release(ref) || chunk == summary.chunks.rbegin()->first;
}

// An entry of a series file's chunk list (docs/dashboard.md, "series"):
// the chunk, its points, whether it is the chunk's tail (whose data the
// caller puts in it), and whether the page loads the chunk's commits at
// once. Its files are named by the series' chunk_files and commit_files
// patterns: a push writes this list for every series, and each entry
// naming its file and commits file whole was most of a series file's
// bytes.
nlohmann::json chunk_entry(int64_t chunk, int64_t points, bool tail, bool commits) {
  nlohmann::json e = nlohmann::json::object();
  e["chunk"] = site::chunk_id(chunk);
  e["points"] = points;
  if (tail) e["tail"] = true;
  if (commits) e["commits"] = true;
  return e;
}

// Points after `cols`' own, in the chunk's columns: `env_of` is each
// point's index into the series' environments, `unplaced` the count of
// points of unknown position (their x counts down from -unplaced).
void append_points(site::ChunkColumns& cols, const std::vector<SeriesPoint>& points, const std::vector<size_t>& env_of,
                   bool release_series, int64_t unplaced) {
  const size_t before = cols.x.size();
  for (size_t i = 0; i < points.size(); ++i) {
    const SeriesPoint& p = points[i];
    const bool measured = p.status == "ok" && p.samples > 0;
    const double none = std::nan("");
    const int64_t at = int64_t(before + i);
    if (release_series) cols.x.push_back(at);
    else cols.x.push_back(p.position >= 0 ? p.position : -unplaced + at);
    cols.time.push_back(p.commit_time);
    cols.job.push_back(p.job_id);
    cols.label.push_back(p.label);
    cols.median.push_back(measured ? p.median : none);
    cols.q1.push_back(measured ? p.q1 : none);
    cols.q3.push_back(measured ? p.q3 : none);
    cols.n.push_back(int64_t(p.samples));
    cols.status.push_back(p.status);
    cols.env.push_back(int64_t(env_of[i]));
  }
}

// A branch chunk as the site already holds it (its tail as the writer kept
// it, `kept_tail`, else as the series file holds it, else in the tail file
// of a site from before), and the points a job added after its last one:
// what a push costs is then its points and the tail, not a read of the
// chunk's 1,024 from history (scattered over as many database pages).
// nullopt when the files cannot be trusted to be history's chunk less
// those points: missing, of another encoding, or not the count history
// holds (a backfill inserted a point, retention removed one).
struct Appended {
  site::ChunkColumns columns;  // the chunk's points from `from` on, as its files hold them
  size_t from = 0;             // points before those, left as they are in the chunk's first file
  std::vector<SeriesPoint> added;
  bool kept = false;           // the tail was the writer's own, not read from a file
};
// `added_from(x)`: the chunk's points from position x on (added_points).
// `site_tail()`: the tail as the site holds it when the writer kept none
// (its recent file, else its series file), nullopt when it holds none.
Result<std::optional<Appended>> appended_chunk(HistoryStore& history, const std::string& site_dir,
                                               const std::string& repository, const std::string& ref,
                                               const std::string& key, const std::string& sid, int64_t chunk,
                                               const SeriesChunk& written, site::ChunkColumns* kept_tail,
                                               const std::function<std::optional<site::ChunkColumns>()>& site_tail,
                                               const std::function<Result<std::vector<SeriesPoint>>(int64_t)>& added_from) {
  auto read = [&](const std::string& path, int64_t points) -> std::optional<site::ChunkColumns> {
    auto c = site::decode_chunk(site::read_data_file(path_join(site_dir, path)));
    if (!c || c->size() == 0 || int64_t(c->size()) != points) return std::nullopt;
    return std::move(*c);
  };
  const int64_t in_first = written.points - written.tail;
  std::optional<site::ChunkColumns> columns;
  const bool kept = written.tail > 0 && kept_tail && int64_t(kept_tail->size()) == written.tail;
  if (kept) {
    columns = std::move(*kept_tail);
  } else if (written.tail > 0) {
    auto held = site_tail();
    if (held && int64_t(held->size()) == written.tail) columns = std::move(*held);
    else columns = read(site::tail_data(repository, sid, chunk), written.tail);
  } else {
    columns = read(site::chunk_data(repository, sid, chunk), written.points);
  }
  if (!columns) return std::optional<Appended>{};
  auto added = added_from(columns->x.back() + 1);
  if (!added) return added.error();
  if (added->empty()) return std::optional<Appended>{};
  Appended out{std::move(*columns), size_t(written.tail > 0 ? in_first : 0), std::move(*added), kept};
  const int64_t total = written.points + int64_t(out.added.size());
  // Only the tail is rewritten: history's count is checked over the tail's
  // positions, about 64 rows instead of up to 1,024. A point history gained
  // before them shows when the chunk's first file is next rewritten, at
  // most kTailPoints pushes later, where the whole chunk is counted.
  const bool tail_only = out.from > 0 && tail_split(size_t(total)) == out.from;
  auto count = tail_only ? history.chunk_count(repository, ref, key, chunk, site::kChunkPoints, out.columns.x.front())
                         : history.chunk_count(repository, ref, key, chunk, site::kChunkPoints);
  if (!count) return count.error();
  if (*count != (tail_only ? written.tail + int64_t(out.added.size()) : total)) return std::optional<Appended>{};
  if (out.from > 0 && !tail_only) {
    // The tail is full: the chunk's first file takes it.
    auto first = read(site::chunk_data(repository, sid, chunk), in_first);
    if (!first) return std::optional<Appended>{};
    first->append(std::move(out.columns));
    out.columns = std::move(*first);
    out.from = 0;
  }
  return std::optional<Appended>{std::move(out)};
}

}  // namespace

std::vector<TouchedSeries> touched_series(const model::JobResult& result) {
  std::vector<TouchedSeries> out;
  const model::ResultSet& rs = result.head;
  if (result.base) return out;  // a PR's runs are in its report, not in trends
  const bool tag = result.kind == "tag";
  const std::string ref = tag ? kReleaseSeries : rs.ref;
  if (!tag && rs.ref.rfind("refs/heads/", 0) != 0) return out;
  const int64_t chunk =
      tag ? 0 : (rs.commit_info.known() ? rs.commit_info.first_parent_position / site::kChunkPoints : -1);
  for (const auto& b : rs.benchmarks) out.push_back({ref, b.key.to_string(), chunk});
  return out;
}

Status SiteWriter::load_summaries(const std::string& repository) {
  if (summaries_repository_ == repository) return {};
  auto list = history_.series_summaries(repository);
  if (!list) return list.error();
  summaries_.clear();
  for (auto& s : *list) summaries_[{s.ref, s.key}] = std::move(s);
  summaries_repository_ = repository;
  return {};
}

// A job rewrites the chunks its points went into and reads nothing else of
// the series: the summary keeps each chunk's size and environments, so the
// series file's totals and environment list come from it. The first write
// of a series (or render_all) reads every chunk.
Result<nlohmann::json> SiteWriter::culprits(const std::string& repository, const std::string& ref,
                                            const std::string& key) {
  nlohmann::json out = nlohmann::json::array();
  if (release(ref)) return out;
  auto cached = investigated_.find({repository, ref});
  if (cached == investigated_.end()) {
    Investigated found;
    auto open = history_.open_regression(repository, ref);
    if (!open) return open.error();
    if (*open) {
      auto b = history_.bisection_of_regression((*open)->id);
      if (!b) return b.error();
      found = {std::move(*open), std::move(*b)};
    }
    cached = investigated_.emplace(std::make_pair(repository, ref), std::move(found)).first;
  }
  const Investigated& inv = cached->second;
  if (!inv.regression || !inv.bisection || inv.bisection->culprit.empty()) return out;
  const Bisection& bisection = *inv.bisection;
  const bool followed = std::find(bisection.keys.begin(), bisection.keys.end(), key) != bisection.keys.end() ||
                        std::any_of(inv.regression->benchmarks.begin(), inv.regression->benchmarks.end(),
                                    [&](const RegressedBenchmark& rb) { return rb.key == key; });
  if (!followed) return out;
  nlohmann::json c = site_json(bisection)["culprit"];
  c["x"] = nullptr;
  for (const auto& rc : bisection.range)
    if (rc.commit == bisection.culprit && rc.info.known()) c["x"] = rc.info.first_parent_position;
  out.push_back(std::move(c));
  return out;
}

Status SiteWriter::investigation_changed(const std::string& repository, const std::string& ref,
                                         const std::vector<std::string>& keys) {
  investigated_.clear();
  if (auto st = load_summaries(repository); !st) return st;
  std::map<std::pair<std::string, std::string>, std::set<int64_t>> series;
  for (const auto& key : keys)
    if (summaries_.count({ref, key})) series[{ref, key}] = {};
  return write_all_series(repository, series);
}

Result<const Series*> SiteWriter::change_window(const std::string& repository, const std::string& ref,
                                               const std::string& key, const std::string& environment,
                                               const std::optional<std::vector<SeriesPoint>>& appended) {
  const size_t limit = ChangeOptions{}.max_points;
  const auto id = std::make_tuple(repository, ref, key, environment);
  auto kept = windows_.find(id);
  if (appended && kept != windows_.end()) {
    // A push only appended after every point history had: the window is
    // the one kept, with this environment's new points at its end.
    Series& w = kept->second;
    for (const SeriesPoint& p : *appended)
      if (p.environment_key == environment) w.points.push_back(for_window(p));
    if (w.points.size() > limit) w.points.erase(w.points.begin(), w.points.end() - static_cast<std::ptrdiff_t>(limit));
    return &w;
  }
  auto s = history_.recent(repository, ref, key, environment, limit);
  if (!s) return s.error();
  if (windows_.size() >= kWindowsKept && kept == windows_.end()) windows_.clear();
  for (SeriesPoint& p : s->points) p = for_window(p);
  Series& w = windows_[id] = std::move(*s);
  return &w;
}

Result<std::vector<SeriesPoint>> SiteWriter::added_points(const std::string& repository, const std::string& ref,
                                                         const std::string& key, int64_t chunk, int64_t from) {
  auto pushed = pushed_.find(ref);
  if (pushed == pushed_.end() || pushed->second.position != from || from / site::kChunkPoints != chunk) {
    auto t = history_.trend_chunk(repository, ref, key, chunk, site::kChunkPoints, from);
    if (!t) return t.error();
    return std::move(t->points);
  }
  Pushed& p = pushed->second;
  if (!p.points) {
    auto read = history_.points_at(repository, ref, p.position);
    if (!read) return read.error();
    p.points = std::move(*read);
  }
  // Each series takes its own: a push reads each once.
  auto it = p.points->find(key);
  if (it == p.points->end()) return std::vector<SeriesPoint>{};
  return std::move(it->second);
}

// A chunk of a ref names each of its runs' commit once, for all of the
// ref's series: written the first time a job (or render_all) writes a
// series chunk there.
Status SiteWriter::write_commits(const std::string& repository, const std::string& ref, int64_t chunk) {
  if (!commits_written_.emplace(repository, ref, chunk).second) return {};
  auto commits = history_.chunk_commits(repository, ref, chunk, site::kChunkPoints);
  if (!commits) return commits.error();
  return write(site::commits_data(repository, ref, chunk),
               site::data_file(site::commits_name(ref, chunk), chunk_encoder_.commits(*commits)));
}

// The series of a benchmark on a ref, one per metric, in key order: the
// key itself when it has no metric, then "<benchmark>:<metric>", which sort
// together.
std::vector<std::pair<std::pair<std::string, std::string>, const SeriesSummary*>> SiteWriter::siblings(
    const std::string& ref, const std::string& benchmark) const {
  std::vector<std::pair<std::pair<std::string, std::string>, const SeriesSummary*>> out;
  if (auto bare = summaries_.find({ref, benchmark}); bare != summaries_.end()) out.emplace_back(bare->first, &bare->second);
  const std::string prefix = benchmark + ":";
  for (auto it = summaries_.lower_bound({ref, prefix});
       it != summaries_.end() && it->first.first == ref && it->first.second.compare(0, prefix.size(), prefix) == 0; ++it)
    if (it->first.second.rfind(':') == benchmark.size()) out.emplace_back(it->first, &it->second);
  return out;
}

std::optional<site::ChunkColumns> SiteWriter::site_tail(const std::string& repository, const std::string& ref,
                                                        const std::string& sid, int64_t chunk) {
  if (const nlohmann::json* e = recent_.find(repository, ref, sid)) {
    const auto t = e->find("tail");
    if (t == e->end() || !t->is_object() || t->value("chunk", "") != site::chunk_id(chunk) || !t->contains("data"))
      return std::nullopt;
    auto c = site::decode_chunk(dump_json(t->at("data")));
    if (!c) return std::nullopt;
    return std::move(*c);
  }
  // A site from before kept the tail inside the series file.
  auto inline_tail = site::decode_series_tail(
      site::read_data_file(path_join(options_.site_dir, site::series_data(repository, sid))), site::chunk_id(chunk));
  if (!inline_tail) return std::nullopt;
  return std::move(*inline_tail);
}

Status SiteWriter::write_series_file(const std::string& repository, const std::string& sid, std::string text,
                                     bool always) {
  const auto key = std::make_pair(repository, sid);
  const std::string path = site::series_data(repository, sid);
  auto it = series_texts_.find(key);
  // The same text is not written again unless the file went (removed by
  // hand, or lost): the page would have nothing to draw until what the
  // file says changed.
  if (!always && it != series_texts_.end() && it->second == text && site_has(path)) return {};
  if (it != series_texts_.end()) series_texts_.erase(it);
  if (auto st = write(path, text); !st) return st;
  if (series_texts_.size() >= kSeriesTextsKept) series_texts_.clear();
  series_texts_.emplace(key, std::move(text));
  return {};
}

Status SiteWriter::flush_recent(const std::string& repository) {
  if (auto st = load_summaries(repository); !st) return st;
  // Built when a group read from its file is first written: a full
  // rendering flushes after every series.
  std::optional<std::set<std::pair<std::string, std::string>>> live;  // (ref, series id)
  return recent_.flush(repository, [&](const std::string& ref, const std::string& sid) {
    if (!live) {
      live.emplace();
      for (const auto& [ref_key, s] : summaries_) live->emplace(ref_key.first, s.id);
    }
    return live->count({ref, sid}) > 0;
  });
}

// A trend's shell: what its page loads at once (trend.js), its series
// file, its chunks, its recent file and the commits it needs first
// (commits_at_once).
Status SiteWriter::write_trend_shell(const std::string& repository, const std::string& ref, const std::string& key,
                                     const std::string& sid, const SeriesSummary& summary) {
  std::vector<std::string> preload = {site::series_data(repository, sid)};
  if (!release(ref)) preload.push_back(site::recent_data(repository, ref, site::recent_group(sid)));
  for (std::string& file : chunk_files(repository, ref, sid, summary)) preload.push_back(std::move(file));
  for (const auto& [chunk, c] : summary.chunks)
    if (commits_at_once(ref, summary, chunk)) preload.push_back(site::commits_data(repository, ref, chunk));
  return write_shell(site::trend_page(repository, sid), "trend",
                     key + " on " + site::ref_name(ref) + " · " + repository + " · benchbox",
                     site::series_data(repository, sid), site::series_name(sid), preload);
}

// Packs [0, packs) of a series, each written again with every file
// (`all`), when it was not one before (`packs_before`), when this write
// made one of its chunk files (`written`), or when its file is missing; its
// chunks' files as this write made them, else as the disk has them. Packs
// from `packs` on that the series had are removed (its newest points
// went).
Status SiteWriter::write_packs(const std::string& repository, const std::string& sid, const SeriesSummary& summary,
                               int64_t packs_before, int64_t packs, bool all,
                               const std::map<int64_t, std::string>& written) {
  // Packs are numbered from 0 without a gap; written whole, the series
  // may not know how many it had (render_all), so they go until one is
  // not there.
  for (int64_t g = packs; all || g < packs_before; ++g)
    if (::unlink(path_join(options_.site_dir, site::pack_data(repository, sid, g)).c_str()) != 0 && all) break;
  for (int64_t g = 0; g < packs; ++g) {
    const int64_t first = g * site::kPackChunks, end = first + site::kPackChunks;
    const std::string path = site::pack_data(repository, sid, g);
    const bool stale =
        all || g >= packs_before || written.lower_bound(first) != written.lower_bound(end) || !site_has(path);
    if (!stale) continue;
    std::string text;
    for (auto it = summary.chunks.lower_bound(first); it != summary.chunks.end() && it->first < end; ++it) {
      if (auto w = written.find(it->first); w != written.end()) {
        text += w->second;
        continue;
      }
      const std::string file = site::chunk_data(repository, sid, it->first);
      auto disk = read_file(path_join(options_.site_dir, file), 64 << 20);
      if (!disk || site::data_file_json(*disk).empty())
        return make_error(Errc::io, "series " + sid + ": cannot pack chunk " + site::chunk_id(it->first) + ": " +
                                        file + (disk ? " is not a data file" : ": " + disk.error().message));
      text += *disk;
    }
    if (auto st = write(path, text); !st) return st;
  }
  return {};
}

Status SiteWriter::write_series(const std::string& repository, const std::string& ref, const std::string& key,
                                const std::optional<std::set<int64_t>>& chunks) {
  const std::string sid = site::series_id(ref, key);
  KeyParts parts = parts_of(key);
  if (auto st = load_summaries(repository); !st) return st;
  const bool is_new = !summaries_.count({ref, key});
  SeriesSummary& summary = summaries_[{ref, key}];
  const bool full = !chunks || is_new || summary.chunks.empty() || release(ref);
  const std::vector<std::string> files_before = chunk_files(repository, ref, sid, summary);
  const int64_t packs_before = packs_of(ref, summary);
  // Each chunk file this write made, as written: a pack that holds the
  // chunk takes it from here rather than from the disk.
  std::map<int64_t, std::string> chunk_texts;

  // The chunks to read: all of them, or those named and the newest (where
  // the latest point is).
  std::set<int64_t> reading;
  if (full) {
    auto counts = history_.chunk_counts(repository, ref, key, site::kChunkPoints);
    if (!counts) return counts.error();
    for (const auto& [chunk, n] : *counts) reading.insert(chunk);
    summary.chunks.clear();
    summary.environments.clear();
  } else {
    reading = *chunks;
    reading.insert(summary.chunks.rbegin()->first);
  }

  std::optional<SeriesPoint> latest;
  std::string unit = summary.unit;
  model::Direction direction = summary.direction;
  const int64_t newest = summary.chunks.empty() ? -2 : summary.chunks.rbegin()->first;
  // The points a push appended to the newest chunk, if that is all that
  // changed: the change-point windows then take them too (change_window).
  std::optional<std::vector<SeriesPoint>> appended_points;
  // The chunk that has a tail after this job: the branch's newest. Its
  // tail goes in the series' recent entry (`recent`, encoded into what the
  // entry held), with the rest a push changes.
  const int64_t last = release(ref) || reading.empty() ? -2 : std::max(newest, *reading.rbegin());
  // Taken once the tail it held was read (appended_chunk, site_tail).
  nlohmann::json* recent = nullptr;
  auto recent_entry = [&]() -> nlohmann::json& {
    if (!recent) recent = &recent_.entry(repository, ref, sid);
    return *recent;
  };
  bool tail_encoded = false;
  auto encode_tail = [&](const site::ChunkColumns& tail, int64_t chunk) {
    site::encode_chunk_into(recent_entry()["tail"]["data"], tail, site::commits_data(repository, ref, chunk),
                            site::commits_name(ref, chunk));
    tail_encoded = true;
  };
  // A site from before kept the tail in a file of its own, which its
  // trend shell preloads: removed, the shell is written again.
  bool tail_file_removed = false;
  auto remove_tail_file = [&](int64_t chunk) {
    if (::unlink(path_join(options_.site_dir, site::tail_data(repository, sid, chunk)).c_str()) == 0)
      tail_file_removed = true;
  };
  for (int64_t chunk : reading) {  // ascending: unplaced (-1) first
    // A job's point at the end of the newest chunk: the chunk from the
    // site's own files and that point from history; else the whole chunk.
    site::ChunkColumns cols;
    size_t from = 0;  // points of the chunk before `cols`
    std::vector<SeriesPoint> points;
    bool kept_tail = false;  // the tail appended to was the writer's own
    SeriesChunk counted;
    const int64_t old_tail = summary.chunks.count(chunk) ? summary.chunks.at(chunk).tail : 0;
    const bool had_file = full || (summary.chunks.count(chunk) && summary.chunks.at(chunk).points > old_tail);
    const bool tailed = chunk >= 0 && chunk == last;
    if (!full && chunk == newest && chunk >= 0 && chunks->count(chunk)) {
      auto kept = tails_.find({repository, sid});
      auto appended = appended_chunk(
          history_, options_.site_dir, repository, ref, key, sid, chunk, summary.chunks.at(chunk),
          kept != tails_.end() && kept->second.chunk == chunk ? &kept->second.columns : nullptr,
          [&] { return site_tail(repository, ref, sid, chunk); },
          [&](int64_t from) { return added_points(repository, ref, key, chunk, from); });
      if (!appended) return appended.error();
      if (*appended) {
        cols = std::move((*appended)->columns);
        from = (*appended)->from;
        points = std::move((*appended)->added);
        kept_tail = (*appended)->kept;
        counted = summary.chunks.at(chunk);
        appended_points = points;
      }
    }
    if (points.empty()) {
      auto t = history_.trend_chunk(repository, ref, key, chunk, site::kChunkPoints);
      if (!t) return t.error();
      if (t->points.empty()) {
        summary.chunks.erase(chunk);
        continue;
      }
      unit = t->unit;
      direction = t->direction;
      points = std::move(t->points);
    }
    std::vector<size_t> env_of;
    for (const SeriesPoint& p : points) {
      auto it = std::find_if(summary.environments.begin(), summary.environments.end(),
                             [&](const SeriesEnvironment& e) { return e.key == p.environment_key; });
      if (it == summary.environments.end()) {
        summary.environments.push_back({p.environment_key, p.machine, p.job_id, p.position, p.commit});
        it = summary.environments.end() - 1;
      } else if (p.position >= 0 && (it->first_position < 0 || p.position < it->first_position)) {
        // An earlier commit measured later (a backfill): the environment starts there.
        it->first_position = p.position;
        it->first_commit = p.commit;
      }
      const size_t index = size_t(it - summary.environments.begin());
      env_of.push_back(index);
      ++counted.per_environment[index];
    }
    counted.points += int64_t(points.size());
    summary.chunks[chunk] = std::move(counted);
    if (chunk == summary.chunks.rbegin()->first) latest = points.back();
    const int64_t unplaced = summary.chunks.count(-1) ? summary.chunks.at(-1).points : 0;
    // Read only for `latest`, unless it lost its place as the newest: its
    // tail then goes back into one file.
    if (!full && !chunks->count(chunk) && !(old_tail > 0 && !tailed)) {
      summary.chunks[chunk].tail = old_tail;  // its files stay as they are
      if (old_tail > 0) {
        // The series file is written again, and its tail in it: the one
        // kept, else history's newest points, as the tail was cut.
        auto kept = tails_.find({repository, sid});
        site::ChunkColumns from_history;
        const site::ChunkColumns* tail = &from_history;
        if (kept != tails_.end() && kept->second.chunk == chunk && int64_t(kept->second.columns.size()) == old_tail) {
          tail = &kept->second.columns;
        } else {
          append_points(from_history, points, env_of, release(ref), unplaced);
          from_history = from_history.split_off(from_history.size() - std::min(from_history.size(), size_t(old_tail)));
        }
        encode_tail(*tail, chunk);
        remove_tail_file(chunk);
      }
      continue;
    }

    append_points(cols, points, env_of, release(ref), unplaced);
    const size_t n = from + cols.size();
    const size_t split = tailed ? tail_split(n) : n;
    summary.chunks[chunk].tail = int64_t(n - split);
    // from > 0 only when the split stays where it was (appended_chunk).
    site::ChunkColumns tail = cols.split_off(split - from);
    const std::string commits_src = site::commits_data(repository, ref, chunk);
    const std::string commits_name = site::commits_name(ref, chunk);
    if (auto st = write_commits(repository, ref, chunk); !st) return st;
    // A series written whole drops the commits file it kept before they
    // were the ref's (a site rendered again after an upgrade).
    if (full) ::unlink(path_join(options_.site_dir, site::series_commits_data(repository, sid, chunk)).c_str());
    // A chunk all tail has no file: one from before it was goes.
    if (split == 0 && had_file) ::unlink(path_join(options_.site_dir, site::chunk_data(repository, sid, chunk)).c_str());
    if (split > from) {
      std::string text =
          site::data_file(site::chunk_name(sid, chunk), chunk_encoder_.chunk(cols, commits_src, commits_name));
      if (auto st = write(site::chunk_data(repository, sid, chunk), text); !st) return st;
      chunk_texts[chunk] = std::move(text);
    }
    if (split < n) {
      encode_tail(tail, chunk);
      if (tails_.size() >= kTailsKept && !tails_.count({repository, sid})) tails_.clear();
      tails_[{repository, sid}] = KeptTail{chunk, std::move(tail)};
    } else {
      tails_.erase({repository, sid});
    }
    // A tail file of a site from before: there may be one whenever the
    // tail was not this writer's own (once a series, after a restart).
    if (full || (old_tail > 0 && !kept_tail)) remove_tail_file(chunk);
  }
  if (summary.chunks.empty()) {  // nothing left of it
    summaries_.erase({ref, key});
    if (!release(ref)) recent_.erase(repository, ref, sid);
    return {};
  }
  const int64_t packs = packs_of(ref, summary);
  if (auto st = write_packs(repository, sid, summary, packs_before, packs, full, chunk_texts); !st) return st;

  int64_t total = 0;
  std::vector<int64_t> per_environment(summary.environments.size(), 0);
  nlohmann::json chunk_list = nlohmann::json::array();
  chunk_list.get_ref<nlohmann::json::array_t&>().reserve(summary.chunks.size() + 1);
  for (const auto& [chunk, c] : summary.chunks) {
    total += c.points;
    for (const auto& [e, count] : c.per_environment)
      if (e < per_environment.size()) per_environment[e] += count;
    const bool commits = commits_at_once(ref, summary, chunk);
    // The tail is one more entry: the page joins its entries by x.
    if (packed(chunk, packs)) {
      // Named whole: the page takes it from its pack.
      nlohmann::json e = chunk_entry(chunk, c.points, false, commits);
      e["src"] = site::pack_data(repository, sid, chunk / site::kPackChunks);
      e["name"] = site::chunk_name(sid, chunk);
      chunk_list.push_back(std::move(e));
    } else if (c.tail > 0) {
      if (c.points > c.tail) chunk_list.push_back(chunk_entry(chunk, c.points - c.tail, false, commits));
      // Only the newest chunk has a tail, and this write made or kept it.
      if (release(ref) || !tail_encoded)
        return make_error(Errc::internal, "series " + sid + ": chunk " + site::chunk_id(chunk) + "'s tail is not known");
      // The entry as chunk_entry makes it, around the data encoded in place.
      nlohmann::json& t = recent_entry()["tail"];
      nlohmann::json data = std::move(t["data"]);
      t = chunk_entry(chunk, c.tail, true, commits);
      t["data"] = std::move(data);
    } else {
      chunk_list.push_back(chunk_entry(chunk, c.points, false, commits));
    }
  }
  nlohmann::json environments = nlohmann::json::array(), breaks = nlohmann::json::array();
  for (size_t i = 0; i < summary.environments.size(); ++i) {
    const auto& e = summary.environments[i];
    // A branch's counts change with every push: its page counts them.
    environments.push_back({{"key", e.key}, {"machine", e.machine}});
    if (release(ref)) environments.back()["points"] = per_environment[i];
    // Where each later environment starts: a break in the trend, never a step.
    if (i > 0)
      breaks.push_back({{"x", release(ref) || e.first_position < 0 ? nlohmann::json(nullptr)
                                                                    : nlohmann::json(e.first_position)},
                        {"commit", e.first_commit},
                        {"job", e.first_job},
                        {"from", i - 1},
                        {"to", i}});
  }

  // Change points, per environment, on its newest points (the reporter's
  // ChangeCache spares series that did not grow).
  nlohmann::json change_list = nlohmann::json::array();
  std::optional<SeriesChange> newest_change;
  bool newest_recent = false;
  for (size_t ei = 0; ei < summary.environments.size(); ++ei) {
    auto s = change_window(repository, ref, key, summary.environments[ei].key,
                           reading.size() == 1 ? appended_points : std::nullopt);
    if (!s) return s.error();
    for (const auto& c : changes_.changes(**s)) {
      const SeriesPoint& after = (*s)->points[c.index];
      nlohmann::json j = c.to_json();
      // The release series' x is an index over every tag: found by its job.
      j["x"] = release(ref) || after.position < 0 ? nlohmann::json(nullptr) : nlohmann::json(after.position);
      j["environment"] = ei;
      change_list.push_back(std::move(j));
      if (!newest_change || after.job_id > newest_change->job_after) {
        newest_change = c;
        newest_recent = c.index + 8 > (*s)->points.size();
      }
    }
  }

  auto culprit_list = culprits(repository, ref, key);
  if (!culprit_list) return culprit_list.error();

  // What the repository page lists.
  summary.repository = repository;
  summary.ref = ref;
  summary.key = key;
  summary.id = sid;
  summary.unit = unit;
  summary.direction = direction;
  summary.points = total;
  if (latest) {
    summary.latest_measured = latest->status == "ok" && latest->samples > 0;
    summary.latest_value = latest->median;
    summary.latest_commit = latest->commit;
    summary.latest_status = latest->status;
    summary.latest_job = latest->job_id;
  }
  summary.has_change = newest_change && newest_recent;
  summary.change_ratio = summary.has_change ? newest_change->ratio : 1;
  summary.change_worse = summary.has_change && newest_change->worse;
  if (auto st = history_.save_series_summary(summary); !st) return st;

  // The selectors: other metrics of this benchmark on this ref, this key
  // on other refs.
  nlohmann::json metrics = nlohmann::json::array(), refs = nlohmann::json::array();
  std::vector<std::pair<std::string, std::string>> relatives;
  for (const auto& [ref_key, s] : siblings(ref, parts.benchmark)) {
    const size_t colon = s->key.rfind(':');
    metrics.push_back({{"metric", colon == std::string::npos ? std::string() : s->key.substr(colon + 1)},
                       {"page", site::trend_page(repository, s->id)}});
    if (s->key != key) relatives.push_back(ref_key);
  }
  // The refs in order, each looked up, not every series of the repository
  // compared for every series a job writes.
  for (auto it = summaries_.begin(); it != summaries_.end();
       it = summaries_.lower_bound({it->first.first + '\0', std::string()})) {
    auto same = summaries_.find({it->first.first, key});
    if (same == summaries_.end()) continue;
    const SeriesSummary& s = same->second;
    refs.push_back({{"ref", s.ref}, {"name", site::ref_name(s.ref)}, {"page", site::trend_page(repository, s.id)}});
    if (s.ref != ref) relatives.push_back(same->first);
  }
  // Member by member, the lists moved in: an initializer list would copy
  // each of them whole, on every push for every series.
  nlohmann::json meta = nlohmann::json::object();
  meta["schema"] = release(ref) ? "benchbox.site.series/2" : "benchbox.site.series/3";
  meta["id"] = sid;
  meta["repository"] = repository;
  meta["ref"] = ref;
  meta["ref_name"] = site::ref_name(ref);
  meta["release_series"] = release(ref);
  meta["key"] = key;
  meta["suite"] = parts.suite;
  meta["name"] = parts.name;
  meta["params"] = std::move(parts.params);
  meta["metric"] = parts.metric;
  meta["unit"] = unit;
  meta["direction"] = model::to_string(direction);
  meta["x"] = release(ref) ? "release" : "first_parent";
  site::FilePattern pattern = site::chunk_pattern(repository, sid);
  meta["chunk_files"]["src"] = std::move(pattern.src);
  meta["chunk_files"]["name"] = std::move(pattern.name);
  pattern = site::commits_pattern(repository, ref);
  meta["commit_files"]["src"] = std::move(pattern.src);
  meta["commit_files"]["name"] = std::move(pattern.name);
  meta["chunks"] = std::move(chunk_list);
  meta["environments"] = std::move(environments);
  meta["env_breaks"] = std::move(breaks);
  meta["culprits"] = std::move(*culprit_list);
  nlohmann::json& siblings_of = meta["siblings"];
  siblings_of["metrics"] = std::move(metrics);
  siblings_of["refs"] = std::move(refs);
  meta["repository_page"] = site::repository_page(repository);
  if (release(ref)) {
    // A tag is measured now and then: everything in the one file.
    meta["points"] = total;
    meta["change_points"] = std::move(change_list);
  } else {
    // What changes with every push goes in the ref's recent file of the
    // series' group (site_recent.h); the series file is written again only
    // when what it says changes.
    const int group = site::recent_group(sid);
    meta["recent"]["src"] = site::recent_data(repository, ref, group);
    meta["recent"]["name"] = site::recent_name(ref, group);
    nlohmann::json& e = recent_entry();
    e["points"] = total;
    e["change_points"] = std::move(change_list);
    if (!tail_encoded) e["tail"] = nullptr;
  }
  if (auto st = write_series_file(repository, sid, site::data_file(site::series_name(sid), meta), full); !st)
    return st;
  // The shell names what the page loads at once: written again only when
  // that changed (a new chunk, a site's tail file gone), or with every file.
  if (full || tail_file_removed || chunk_files(repository, ref, sid, summary) != files_before ||
      !site_has(site::trend_page(repository, sid)))
    if (auto st = write_trend_shell(repository, ref, key, sid, summary); !st) return st;
  ++stats_.series_written;
  // A new series is a new choice in its relatives' selectors: their series
  // files again, no chunk.
  if (is_new)
    for (const auto& [r, k] : relatives)
      if (auto st = write_series(repository, r, k, std::set<int64_t>{}); !st) return st;
  return {};
}

}  // namespace bb::report
