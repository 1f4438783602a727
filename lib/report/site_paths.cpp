#include "report/site_paths.h"

#include <string>
#include <utility>

#include "report/history.h"
#include "util/file.h"
#include "util/json_text.h"
#include "util/text.h"

namespace bb::report::site {

namespace {

std::string component(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    out += ok ? c : '_';
  }
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

std::string id_text(int64_t n) { return std::to_string(n); }

// A ref's part of its commit files' names: 16 hex digits of SHA-256 of it.
// The last one is kept: a series file names its ref's commits once per
// chunk, and a job writes a thousand series of one ref.
std::string ref_id(const std::string& ref) {
  thread_local std::pair<std::string, std::string> last;
  if (last.second.empty() || last.first != ref) last = {ref, sha256_hex(ref).substr(0, 16)};
  return last.second;
}

std::string repository_dir_of(const std::string& repository) {
  const size_t slash = repository.find('/');
  if (slash == std::string::npos) return "r/_/" + component(repository);
  return "r/" + component(repository.substr(0, slash)) + "/" + component(repository.substr(slash + 1));
}

}  // namespace

std::string chunk_id(int64_t chunk) { return chunk < 0 ? std::string("u") : id_text(chunk); }

std::string repository_dir(const std::string& repository) {
  // The last one is kept: a series file names a dozen files of its
  // repository, for each of a job's thousand series.
  thread_local std::pair<std::string, std::string> last;
  if (last.second.empty() || last.first != repository) last = {repository, repository_dir_of(repository)};
  return last.second;
}

std::string series_id(const std::string& ref, const std::string& key) {
  return sha256_hex(ref + "\n" + key).substr(0, 16);
}

std::string index_page() { return "index.html"; }
std::string index_data() { return "data/index.js"; }
std::string box_page() { return "box.html"; }
std::string box_data() { return "data/box.js"; }
std::string repository_page(const std::string& r) { return repository_dir(r) + "/index.html"; }
std::string repository_data(const std::string& r) { return "data/" + repository_dir(r) + "/repo.js"; }
std::string trend_page(const std::string& r, const std::string& sid) { return repository_dir(r) + "/t/" + sid + ".html"; }
std::string series_data(const std::string& r, const std::string& sid) {
  return "data/" + repository_dir(r) + "/s/" + sid + ".js";
}

// What a chunk's names begin with: each per-chunk name below, and the
// patterns a series file gives the page (chunk_pattern), are built from
// these, so the two cannot drift apart.
namespace {
std::string chunk_file_prefix(const std::string& r, const std::string& sid) {
  return "data/" + repository_dir(r) + "/s/" + sid + ".";
}
std::string chunk_name_prefix(const std::string& sid) { return "chunk/" + sid + "/"; }
std::string commits_file_prefix(const std::string& r, const std::string& ref) {
  return "data/" + repository_dir(r) + "/c/" + ref_id(ref) + ".";
}
std::string commits_name_prefix(const std::string& ref) { return "commits/" + ref_id(ref) + "/"; }
}  // namespace

std::string chunk_data(const std::string& r, const std::string& sid, int64_t chunk) {
  return chunk_file_prefix(r, sid) + chunk_id(chunk) + ".js";
}
std::string group_run_id(int64_t group_id) { return "group-" + id_text(group_id); }
std::string run_page(const std::string& r, const std::string& id) { return repository_dir(r) + "/runs/" + id + ".html"; }
std::string run_data(const std::string& r, const std::string& id) { return "data/" + repository_dir(r) + "/runs/" + id + ".js"; }
std::string run_result_download(const std::string& r, const std::string& id) {
  return repository_dir(r) + "/runs/" + id + ".result.json";
}
std::string run_report_download(const std::string& r, const std::string& id) {
  return repository_dir(r) + "/runs/" + id + ".report.json";
}
std::string run_page(const std::string& r, int64_t job) { return run_page(r, id_text(job)); }
std::string run_data(const std::string& r, int64_t job) { return run_data(r, id_text(job)); }
std::string run_result_download(const std::string& r, int64_t job) { return run_result_download(r, id_text(job)); }
std::string run_report_download(const std::string& r, int64_t job) { return run_report_download(r, id_text(job)); }
std::string run_profile(const std::string& r, const std::string& id, const std::string& role, const std::string& file) {
  return repository_dir(r) + "/runs/" + id + ".profiles/" + component(role) + "/" + component(file);
}
std::string run_flame_data(const std::string& r, const std::string& id, size_t index) {
  return "data/" + repository_dir(r) + "/runs/" + id + ".flame-" + std::to_string(index) + ".js";
}
std::string run_flame_folded(const std::string& r, const std::string& id, size_t index, const std::string& role) {
  return repository_dir(r) + "/runs/" + id + ".profiles/flame-" + std::to_string(index) + "." + component(role) +
         ".folded";
}
std::string flame_anchor(size_t index) { return "flame-" + std::to_string(index); }
std::string pull_page(const std::string& r, int64_t n) { return repository_dir(r) + "/pulls/" + id_text(n) + ".html"; }
std::string pull_data(const std::string& r, int64_t n) { return "data/" + repository_dir(r) + "/pulls/" + id_text(n) + ".js"; }

std::string series_name(const std::string& sid) { return "series/" + sid; }
std::string pack_data(const std::string& r, const std::string& sid, int64_t group) {
  return chunk_file_prefix(r, sid) + "p" + id_text(group) + ".js";
}

std::string tail_data(const std::string& r, const std::string& sid, int64_t chunk) {
  return chunk_file_prefix(r, sid) + chunk_id(chunk) + ".t.js";
}

std::string commits_data(const std::string& r, const std::string& ref, int64_t chunk) {
  return commits_file_prefix(r, ref) + chunk_id(chunk) + ".js";
}

int recent_group(const std::string& sid) {
  // The id's first two hex digits, 0-255, in kRecentGroups groups.
  int v = 0;
  for (size_t i = 0; i < 2 && i < sid.size(); ++i) {
    const char c = sid[i];
    v = v * 16 + (c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : 0);
  }
  return v * kRecentGroups / 256;
}

std::string recent_data(const std::string& r, const std::string& ref, int group) {
  return "data/" + repository_dir(r) + "/recent/" + ref_id(ref) + "." + std::to_string(group) + ".js";
}

std::string recent_name(const std::string& ref, int group) {
  return "recent/" + ref_id(ref) + "/" + std::to_string(group);
}

FilePattern chunk_pattern(const std::string& r, const std::string& sid) {
  return {chunk_file_prefix(r, sid), chunk_name_prefix(sid)};
}

FilePattern commits_pattern(const std::string& r, const std::string& ref) {
  return {commits_file_prefix(r, ref), commits_name_prefix(ref)};
}

std::string series_commits_data(const std::string& r, const std::string& sid, int64_t chunk) {
  return chunk_file_prefix(r, sid) + chunk_id(chunk) + ".c.js";
}

std::string commits_name(const std::string& ref, int64_t chunk) { return commits_name_prefix(ref) + chunk_id(chunk); }

std::string chunk_name(const std::string& sid, int64_t chunk) { return chunk_name_prefix(sid) + chunk_id(chunk); }

std::string tail_name(const std::string& sid, int64_t chunk) { return chunk_name(sid, chunk) + "/tail"; }
std::string run_name(int64_t job) { return "run/" + id_text(job); }
std::string run_name(const std::string& id) { return "run/" + id; }
std::string run_flame_name(const std::string& id, size_t index) { return "flame/" + id + "/" + std::to_string(index); }
std::string pull_name(int64_t n) { return "pull/" + id_text(n); }

std::string data_file(const std::string& name, const nlohmann::json& value) {
  // dump_json never throws on invalid UTF-8 (a harness's bytes can be
  // anything); "</" is escaped so no string ends the <script> early. One
  // string, the pieces between "</"s appended whole: a job writes
  // thousands of these, some of 50 KB.
  const std::string json = dump_json(value);
  std::string out = "benchbox.receive(" + dump_json(nlohmann::json(name)) + ", ";
  out.reserve(out.size() + json.size() + 3);
  size_t from = 0;
  for (size_t at = json.find("</"); at != std::string::npos; at = json.find("</", from)) {
    out.append(json, from, at - from).append("<\\/");
    from = at + 2;
  }
  out.append(json, from, std::string::npos).append(");\n");
  return out;
}

std::string data_file_json(const std::string& text) {
  const size_t open = text.find(", "), close = text.rfind(");");
  if (text.rfind("benchbox.receive(", 0) != 0 || open == std::string::npos || close == std::string::npos ||
      close < open)
    return {};
  return text.substr(open + 2, close - open - 2);
}

std::string read_data_file(const std::string& path) {
  auto text = read_file(path, 64 << 20);
  return text ? data_file_json(*text) : std::string();
}

std::string root_from(const std::string& path) {
  std::string root;
  for (char c : path)
    if (c == '/') root += root.empty() ? ".." : "/..";
  return root.empty() ? "." : root;
}

std::string shell(const std::string& path, const std::string& page, const std::string& title,
                  const std::string& src, const std::string& name, const std::vector<std::string>& preload) {
  const std::string root = root_from(path);
  const std::string r = html_escape(root);
  // The data files the page will ask for, fetched while the assets load
  // rather than one after another once they have.
  std::string early;
  for (const auto& p : preload) early += "<link rel=\"preload\" as=\"script\" href=\"" + r + "/" + html_escape(p) + "\">\n";
  return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<title>" + html_escape(title) + "</title><link rel=\"icon\" href=\"data:,\">\n" + early +
         "<link rel=\"stylesheet\" href=\"" + r + "/assets/benchbox.css\">\n"
         "<script src=\"" + r + "/assets/benchbox.js\"></script></head>\n"
         "<body data-page=\"" + html_escape(page) + "\" data-root=\"" + r + "/\" data-src=\"" + html_escape(src) +
         "\" data-name=\"" + html_escape(name) + "\">\n"
         "<main id=\"app\"><noscript>This page draws its data with JavaScript: " + html_escape(src) +
         "</noscript></main>\n<script>benchbox.start();</script></body></html>\n";
}

std::string ref_name(const std::string& ref) {
  if (ref == kReleaseSeries) return "releases (tags)";
  if (ref.rfind("refs/heads/", 0) == 0) return ref.substr(11);
  if (ref.rfind("refs/tags/", 0) == 0) return ref.substr(10);
  return ref;
}

}  // namespace bb::report::site
