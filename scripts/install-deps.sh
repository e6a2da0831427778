#!/bin/sh
# Installs, as root on Debian 12, the packages hangscope needs to build, test and run.
# Does nothing when they are all there already. Besides the compilers and libraries:
# libbpf-dev, bpftool and clang build the BPF source (sampler/bpf/; linux-libc-dev has the
# <linux/bpf.h> its program includes); asciidoctor makes the man pages; man-db, bash-completion, zsh, dpkg-dev, lintian and
# python3-jsonschema are for the tests of the man pages, the completion, the .deb and
# the JSON schema (tests/install/); ccache makes the second build of .ci/run cheap;
# prometheus (its server and promtool) is what the live test of watch's metrics scrapes
# with, and what the tests of diff --prometheus backfill and query (libboost-dev's
# Boost.Beast, header-only, serves watch's metrics and reads Prometheus's HTTP API);
# libncurses-dev draws top's full-screen view, and
# tmux is the real terminal its live test drives; fio is the direct-I/O load of
# fixtures/oncpu/make-fio-capture.sh. libdtl-dev (header-only) diffs two versions of a function and
# git reads a kernel's history for --suspects (docs/suspects.md);
# linux-source-6.12 is the kernel tree the built-in kernel map is checked against
# (tests/support/check-kernel-map.sh).
set -eu
PACKAGES="
  g++ cmake ninja-build pkg-config
  libfmt-dev
  libcli11-dev
  libgtest-dev
  libbenchmark-dev
  libabsl-dev
  libtomlplusplus-dev
  libboost-graph-dev
  libboost-dev
  nlohmann-json3-dev
  libdtl-dev
  git
  zlib1g-dev
  libzstd-dev
  zstd
  gzip
  clang
  libclang-rt-dev
  libbpf-dev
  bpftool
  linux-libc-dev
  fuse3
  libfuse3-dev
  libunwind-dev
  prometheus
  libncurses-dev
  tmux
  fio
  e2fsprogs
  util-linux
  mount
  kmod
  protobuf-compiler
  libprotobuf-dev
  graphviz
  libxml2-utils
  chromium
  ccache
  asciidoctor
  man-db
  bash-completion
  zsh
  dpkg-dev
  lintian
  python3-jsonschema
  linux-source-6.12
"
# node and npm for the browser test (tests/browser/): Debian's, unless a node is there.
command -v node >/dev/null 2>&1 || PACKAGES="$PACKAGES nodejs"
command -v npm >/dev/null 2>&1 || PACKAGES="$PACKAGES npm"
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps.sh: missing packages:$missing (run as root to install them)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq $missing
