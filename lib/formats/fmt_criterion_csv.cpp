// criterion.rs's raw.csv (target/criterion/<id>/new/raw.csv, criterion 0.3
// on): one row per sample,
//   group,function,value,throughput_num,throughput_type,sample_measured_value,unit,iteration_count
// where sample_measured_value is the total for iteration_count iterations
// in `unit`. Several files may be concatenated (the header repeats). Fields
// are CSV as the Rust csv crate writes it: quoted when they hold a comma, a
// quote or a line break, a quote inside doubled.
#include <map>

#include "formats/parsers.h"
#include "formats/text_lines.h"
#include "formats/units.h"

namespace bb::formats::detail {

namespace {

constexpr const char* kColumns[] = {"group",     "function",           "value", "throughput_num", "throughput_type",
                                    "sample_measured_value", "unit", "iteration_count"};
constexpr size_t kColumnCount = sizeof kColumns / sizeof *kColumns;

struct Cell {
  std::string text;
  size_t line, column;
};

// One CSV record from `text` at `pos` (RFC 4180); advances pos and line.
// An error names where a quoted field went wrong.
Result<std::vector<Cell>> record(std::string_view text, size_t& pos, size_t& line, const std::string& source) {
  std::vector<Cell> cells;
  size_t line_start = pos;
  for (;;) {
    Cell c{"", line, pos - line_start + 1};
    if (pos < text.size() && text[pos] == '"') {
      const size_t open_line = line, open_col = c.column;
      ++pos;
      for (;;) {
        if (pos >= text.size())
          return error_at(source, place(open_line, open_col), "a quoted field is not closed");
        char ch = text[pos++];
        if (ch == '"') {
          if (pos < text.size() && text[pos] == '"') {
            c.text += '"';
            ++pos;
            continue;
          }
          break;
        }
        if (ch == '\n') {
          ++line;
          line_start = pos;
        }
        c.text += ch;
      }
      if (pos < text.size() && text[pos] != ',' && text[pos] != '\n' && text[pos] != '\r')
        return error_at(source, place(line, pos - line_start + 1), "expected ',' or the end of the line after a quoted field");
    } else {
      while (pos < text.size() && text[pos] != ',' && text[pos] != '\n' && text[pos] != '\r') c.text += text[pos++];
    }
    cells.push_back(std::move(c));
    if (pos < text.size() && text[pos] == ',') {
      ++pos;
      continue;
    }
    if (pos < text.size() && text[pos] == '\r') ++pos;
    if (pos < text.size() && text[pos] == '\n') ++pos;
    ++line;
    return cells;
  }
}

bool is_header(const std::vector<Cell>& cells) {
  if (cells.size() != kColumnCount) return false;
  for (size_t i = 0; i < kColumnCount; ++i)
    if (cells[i].text != kColumns[i]) return false;
  return true;
}

}  // namespace

Result<ParsedList> parse_criterion_csv(const Input& in) {
  std::map<model::BenchmarkKey, size_t> index;
  std::vector<Parsed> benches;
  size_t pos = 0, line = 1;
  bool header_seen = false;
  while (pos < in.text.size()) {
    const size_t at_line = line;
    auto cells = record(in.text, pos, line, in.source);
    if (!cells) return cells.error();
    if (cells->size() == 1 && cells->front().text.empty()) continue;  // a blank line
    if (is_header(*cells)) {
      header_seen = true;
      continue;
    }
    if (!header_seen)
      return error_at(in.source, place(at_line, 1),
                      "expected criterion's raw.csv header: group,function,value,throughput_num,throughput_type,"
                      "sample_measured_value,unit,iteration_count");
    if (cells->size() != kColumnCount)
      return error_at(in.source, place(at_line, 1),
                      "has " + std::to_string(cells->size()) + " fields, expected " + std::to_string(kColumnCount));
    const auto& c = *cells;
    auto number = [&](size_t i) -> Result<double> {
      auto v = parse_decimal(c[i].text);
      if (!v)
        return error_at(in.source, place(c[i].line, c[i].column),
                        std::string(kColumns[i]) + ": expected a finite number, got '" + c[i].text + "'");
      return *v;
    };
    auto measured = number(5);
    if (!measured) return measured.error();
    auto iters = number(7);
    if (!iters) return iters.error();
    if (*iters <= 0)
      return error_at(in.source, place(c[7].line, c[7].column), "iteration_count: expected a positive count");

    model::BenchmarkKey key;
    key.name = c[0].text + (c[1].text.empty() ? "" : "/" + c[1].text);
    if (!c[2].text.empty()) key.params["value"] = c[2].text;
    auto scale = seconds_per(c[6].text);
    key.metric = scale ? "wall_time" : c[6].text;  // a custom measurement keeps its own unit
    if (key.metric.empty())
      return error_at(in.source, place(c[6].line, c[6].column), "unit: expected the measurement's unit, got ''");
    auto [it, fresh] = index.emplace(key, benches.size());
    if (fresh) {
      Parsed p;
      p.place = place(at_line, 1);
      p.bench.key = key;
      p.bench.unit = scale ? "s" : c[6].text;
      p.bench.direction = model::direction_for_unit(p.bench.unit);
      if (!c[3].text.empty()) {
        auto n = number(3);
        if (!n) return n.error();
        const std::string& type = c[4].text;
        if (type != "bytes" && type != "elements")
          return error_at(in.source, place(c[4].line, c[4].column),
                          "throughput_type: expected bytes or elements, got '" + type + "'");
        p.bench.extra["throughput"] = {{type == "bytes" ? "Bytes" : "Elements", *n}};
      }
      benches.push_back(std::move(p));
    }
    model::Benchmark& b = benches[it->second].bench;
    b.samples.push_back(*measured / *iters * (scale ? *scale : 1.0));
    b.iterations.push_back(*iters);
  }
  ParsedList out;
  for (auto& p : benches) {
    // The same throughput metrics as criterion's directory gives.
    std::vector<Parsed> rates;
    if (p.bench.key.metric == "wall_time") rates = criterion_throughput(p);
    out.push_back(std::move(p));
    for (auto& t : rates) out.push_back(std::move(t));
  }
  return out;
}

}  // namespace bb::formats::detail
