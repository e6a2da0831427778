#!/bin/sh
# Checks the built-in kernel map against the tree it was made from: a sample of its
# functions must be defined in that tree in a file of the subsystem the map names
# (scripts/kernel-map.py check). The tree is Debian's linux-source-6.12 package, which
# scripts/install-deps.sh installs; without it the test skips (exit 77), and fails under
# HANGSCOPE_REQUIRE_LIVE=1. About 20 s: the tarball's C files are unpacked once.
#   check-kernel-map.sh SOURCE_DIR
set -eu
src=${1:?usage: check-kernel-map.sh SOURCE_DIR}
tree=${HANGSCOPE_KERNEL_TREE:-/usr/src/linux-source-6.12.tar.xz}
if [ ! -e "$tree" ]; then
  echo "SKIP: no kernel tree at $tree (apt-get install linux-source-6.12)"
  [ "${HANGSCOPE_REQUIRE_LIVE:-0}" = 1 ] && exit 1
  exit 77
fi
exec python3 "$src/scripts/kernel-map.py" check "$src/analyzer/classify/kernel_map.txt.zst" \
  "$tree" --sample 300
