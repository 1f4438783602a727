#!/usr/bin/env bash
# Installs the Debian 12 packages benchbox needs to build, test and run its
# demo. Idempotent: it only asks apt when something is missing.
set -euo pipefail

packages=(
  meson ninja-build pkg-config g++ clang libclang-rt-14-dev ccache
  libsystemd-dev libgit2-dev libyaml-cpp-dev nlohmann-json3-dev libcurl4-openssl-dev
  libssl-dev catch2 libsqlite3-dev libboost-dev libmicrohttpd-dev libbenchmark-dev libxml2-dev
  libsimdjson-dev
  dbus systemd systemd-container git curl openssl hyperfine valgrind python3
  iproute2 procps
  debhelper dpkg-dev lintian apt-utils gnupg polkitd
  chromium chromium-driver nginx-light
  postgresql libpq-dev faketime
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $EUID -ne 0 ]]; then
    echo "install-deps: need root to install: ${missing[*]}" >&2
    exit 1
  fi
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # nginx serves the dashboard only inside the system test's container: no
  # package may start a service on this machine while it installs.
  policy=/usr/sbin/policy-rc.d
  made_policy=
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 0755 "$policy" && made_policy=1
  fi
  apt-get update -qq
  rc=0
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || rc=$?
  [[ -z $made_policy ]] || rm -f "$policy"
  [[ $rc -eq 0 ]] || exit "$rc"
fi
