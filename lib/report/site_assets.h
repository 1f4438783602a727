// The dashboard's front-end, compiled in from web/ (embed_assets.py): the
// files the site's assets/ directory holds, byte for byte.
#pragma once

#include <string_view>
#include <vector>

namespace bb::report::site {

struct Asset {
  const char* path;        // relative to the site root: "assets/benchbox.js"
  std::string_view bytes;
};

const std::vector<Asset>& assets();

}  // namespace bb::report::site
