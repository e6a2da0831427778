#!/bin/sh
# The browser test as ctest runs it: makes the pictures with hangscope, checks the SVG
# with xmllint, installs playwright-core from package-lock.json into the build
# directory (npm ci; never a browser download), and drives the system's Chromium.
# Exits 77 (skipped) with a clear message where Chromium, node or xmllint is missing
# (1 under HANGSCOPE_REQUIRE_LIVE=1: tests/support/skip.sh).
#
# usage: run-browser-test.sh HANGSCOPE_BIN CAPTURE SOURCE_DIR WORK_DIR
set -eu
bin=$1 capture=$2 src=$3 work=$4
chromium=${CHROMIUM:-/usr/bin/chromium}

. "$src/../support/skip.sh"
[ -x "$chromium" ] || skip "Chromium is not installed at $chromium (Debian package chromium; scripts/install-deps.sh installs it)"
command -v node >/dev/null 2>&1 || skip "node is not installed (Debian package nodejs)"
command -v npm >/dev/null 2>&1 || skip "npm is not installed (Debian package npm)"
command -v xmllint >/dev/null 2>&1 || skip "xmllint is not installed (Debian package libxml2-utils)"

out=$work/output
mkdir -p "$work/node" "$out"
rm -f "$out"/*.png

# playwright-core, exactly as locked; reinstalled only when the lock file changes.
if ! cmp -s "$src/package-lock.json" "$work/node/package-lock.json" || [ ! -d "$work/node/node_modules/playwright-core" ]; then
  cp "$src/package.json" "$src/package-lock.json" "$work/node/"
  (cd "$work/node" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
fi

cp "$src/browser_test.mjs" "$work/node/"

"$bin" report -f svg --min-width 0 -o "$out/storm.svg" "$capture"
"$bin" report -f html --min-width 0 -o "$out/storm.html" "$capture"
"$bin" report -f folded -o "$out/storm.folded" "$capture"
xmllint --noout "$out/storm.svg"
echo "ok   xmllint: the SVG is well-formed XML"

exec node "$work/node/browser_test.mjs" \
  --svg "$out/storm.svg" --html "$out/storm.html" --folded "$out/storm.folded" --out "$out" \
  --chromium "$chromium"
