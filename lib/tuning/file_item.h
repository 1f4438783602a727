// Most items are kernel files with a wanted value (swappiness, governors,
// IRQ masks). FileItem does check/originals/apply for them; a subclass only
// says which files, and with which value, on this host.
#pragma once

#include <string>
#include <vector>

#include "tuning/item.h"

namespace bb::tuning {

enum class Match {
  exact,          // trimmed content == wanted
  selected,       // the [bracketed] word of "always [madvise] never" == wanted
  off_benchmark,  // a hex CPU mask that shares no CPU with the benchmark CPUs
};

struct FileSetting {
  std::string label;  // "cpu3", "irq24"; "" for an item with one file
  std::string path;
  std::string wanted;  // what apply() writes
  Match match = Match::exact;
};

class FileItem : public Item {
 public:
  Row check(const Context& ctx) const override;
  std::vector<SaveEntry> originals(const Context& ctx) const override;
  std::string apply(const Context& ctx) const override;

 protected:
  // The files on this host. Returns none and sets *unsupported when the host
  // lacks the knob ("no cpufreq driver: ... missing").
  virtual std::vector<FileSetting> settings(const Context& ctx, std::string* unsupported) const = 0;
  // The "wanted" column; by default the first setting's value.
  virtual std::string wanted_text(const Context& ctx, const std::vector<FileSetting>& s) const;
};

// A single kernel file with a fixed wanted value.
class SimpleFileItem final : public FileItem {
 public:
  SimpleFileItem(std::string name, std::string path, std::string wanted, Match match = Match::exact)
      : name_(std::move(name)), path_(std::move(path)), wanted_(std::move(wanted)), match_(match) {}
  std::string name() const override { return name_; }

 protected:
  std::vector<FileSetting> settings(const Context& ctx, std::string* unsupported) const override;

 private:
  std::string name_, path_, wanted_;
  Match match_;
};

// Reads a setting: the value as compared (trimmed, or the selected word),
// or nullopt-like present=false for a missing file.
struct Reading {
  bool present = false;
  std::string value;
  bool ok = false;
};
Reading read_setting(const Context& ctx, const FileSetting& s);

// "always [madvise] never" -> "madvise"; text without brackets, trimmed.
std::string selected_word(const std::string& text);

// "a, b, c (+4 more)": long lists stay readable in a table.
std::string join_capped(const std::vector<std::string>& parts, size_t cap = 4);

}  // namespace bb::tuning
