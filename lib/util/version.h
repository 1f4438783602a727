// benchbox's version (the project's VERSION file, through meson). A
// function in one generated file rather than a -D on every compile, so a
// new version rebuilds one file and relinks.
#pragma once

namespace bb {

const char* version();

}  // namespace bb
