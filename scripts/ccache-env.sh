# Sourced by scripts/test.sh, scripts/demo.sh, scripts/build-deb.sh and
# tests/fuzz/run-fuzzers.sh: one compile cache for every build on this
# machine, in any folder. meson wraps the compiler in ccache by itself when
# ccache is on PATH and CC/CXX are unset; run-fuzzers.sh names it for clang.
#
# What it takes for a clone in another folder to hit (checked with ccache
# 4.7: the same file compiled from two folders):
#  - -g puts the build directory in the debug info, and ccache hashes it
#    unless hash_dir is off. The debug info of a hit names the folder it
#    was first built in.
#  - meson passes relative paths on the command line, but a unity build's
#    blobs include each source by its absolute path. With base_dir at the
#    tree's root (the caller's $root; build-deb.sh sets its copy's), ccache
#    rewrites those paths and still hits.
#  - the package build's -ffile-prefix-map (dpkg-buildflags) maps its
#    folder away, and ccache hashes the mapped name: it hits as it is.
#  - debhelper (compat 13) points HOME and XDG_CACHE_HOME into the source
#    tree, so CCACHE_DIR is set here, explicitly, for the package to share.
# Objects whose flags name the folder (the -DBB_*FIXTURES and BB_SOURCE_ROOT
# paths of a few tests and bench programs) still miss in another folder.
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_DIR="${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache}"
  export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"
  [[ -z ${root:-} ]] || export CCACHE_BASEDIR="$root"
  # Plain, ASan, the fuzzers' clang and the package: about 1.5 GiB a version.
  export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-5G}"
fi

# Prints "HITS MISSES" so far in the cache's statistics (0 0 without ccache).
ccache_counts() {
  command -v ccache >/dev/null 2>&1 || { echo "0 0"; return; }
  ccache --print-stats 2>/dev/null | awk '
    $1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { h += $2 }
    $1 == "cache_miss" { m += $2 }
    END { print h + 0, m + 0 }'
}
