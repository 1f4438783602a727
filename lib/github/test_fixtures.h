// Reads the real-shaped GitHub payloads under tests/fixtures/github.
#pragma once

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "util/file.h"

namespace bb::github::test {

inline std::string fixture(const std::string& name) {
  auto text = bb::read_file(std::string(BB_GITHUB_FIXTURES) + "/" + name);
  if (!text) throw std::runtime_error(text.error().message);
  return *text;
}

inline nlohmann::json fixture_json(const std::string& name) { return nlohmann::json::parse(fixture(name)); }

}  // namespace bb::github::test
