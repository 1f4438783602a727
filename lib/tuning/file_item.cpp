#include "tuning/file_item.h"

#include "sys/cpumask.h"
#include "util/text.h"

namespace bb::tuning {

std::string join_capped(const std::vector<std::string>& parts, size_t cap) {
  std::string out;
  for (size_t i = 0; i < parts.size() && i < cap; ++i) out += (i ? ", " : "") + parts[i];
  if (parts.size() > cap) out += " (+" + std::to_string(parts.size() - cap) + " more)";
  return out;
}

std::string selected_word(const std::string& text) {
  auto open = text.find('['), close = text.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return trim(text);
  return text.substr(open + 1, close - open - 1);
}

Reading read_setting(const Context& ctx, const FileSetting& s) {
  Reading r;
  auto content = ctx.fs.read(s.path);
  if (!content) return r;
  r.present = true;
  r.value = s.match == Match::selected ? selected_word(*content) : trim(*content);
  switch (s.match) {
    case Match::exact:
    case Match::selected:
      r.ok = r.value == s.wanted;
      break;
    case Match::off_benchmark: {
      auto cpus = sys::parse_cpu_mask(r.value);
      r.ok = cpus.ok() && !cpus->empty() && !sys::cpus_intersect(*cpus, ctx.roles.benchmark);
      break;
    }
  }
  return r;
}

std::string FileItem::wanted_text(const Context&, const std::vector<FileSetting>& s) const {
  return s.empty() ? "" : s.front().wanted;
}

Row FileItem::check(const Context& ctx) const {
  Row row;
  row.name = name();
  std::string unsupported;
  auto all = settings(ctx, &unsupported);
  row.wanted = wanted_text(ctx, all);
  if (all.empty()) {
    row.supported = false;
    row.actual = "n/a";
    row.reason = unsupported.empty() ? "nothing to tune on this host" : unsupported;
    return row;
  }
  std::vector<std::string> values, wrong, missing;
  row.ok = true;
  for (const auto& s : all) {
    Reading r = read_setting(ctx, s);
    if (!r.present) missing.push_back(s.path);
    values.push_back(r.present ? r.value : "(missing)");
    if (!r.ok) {
      row.ok = false;
      wrong.push_back(s.label.empty() ? values.back() : s.label + "=" + values.back());
    }
  }
  bool all_same = true;
  for (const auto& v : values) all_same = all_same && v == values.front();
  if (all_same)
    row.actual = values.front();
  else if (row.ok)
    row.actual = "as wanted (" + std::to_string(values.size()) + " files)";
  else if (values.size() == 1)
    row.actual = values.front();
  else
    row.actual = std::to_string(wrong.size()) + "/" + std::to_string(values.size()) + " differ: " + join_capped(wrong);
  if (missing.size() == all.size()) {
    row.supported = false;
    row.reason = "not on this host: " + join_capped(missing, 2) + " missing";
  } else if (!missing.empty()) {
    row.reason = "missing: " + join_capped(missing, 2);
  }
  return row;
}

std::vector<SaveEntry> FileItem::originals(const Context& ctx) const {
  std::string unsupported;
  std::vector<SaveEntry> out;
  for (const auto& s : settings(ctx, &unsupported)) {
    Reading r = read_setting(ctx, s);
    // Only what apply() will write: a file already right is left alone.
    if (r.present && !r.ok) out.push_back({"file", s.path, r.value, name()});
  }
  return out;
}

std::string FileItem::apply(const Context& ctx) const {
  std::string unsupported;
  std::vector<std::string> errors;
  auto all = settings(ctx, &unsupported);
  if (all.empty()) return unsupported.empty() ? "nothing to tune on this host" : unsupported;
  for (const auto& s : all) {
    Reading r = read_setting(ctx, s);
    if (!r.present || r.ok) continue;
    if (auto st = ctx.fs.write(s.path, s.wanted); !st) errors.push_back(st.error().message);
  }
  return join_capped(errors, 3);
}

std::vector<FileSetting> SimpleFileItem::settings(const Context& ctx, std::string* unsupported) const {
  if (!ctx.fs.exists(path_)) {
    *unsupported = "not on this host: " + path_ + " missing";
    return {};
  }
  return {{"", path_, wanted_, match_}};
}

}  // namespace bb::tuning
