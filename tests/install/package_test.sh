#!/bin/sh
# tests/install/package_test.sh BUILD_DIR SOURCE_DIR HANGSCOPE
# Builds the .deb with CPack from BUILD_DIR (after the build), checks its fields and
# contents and runs lintian on it, installs it with dpkg into a throw-away root (a
# directory of its own with its own dpkg database: nothing of this machine's packages
# changes), and runs the installed hangscope: --version, and report on a fixture, which
# must print what the build's HANGSCOPE prints. Exit 77 (skipped) without dpkg-deb or
# dpkg-shlibdeps, for a build without man pages, or, after every other check passed,
# without lintian (1 under HANGSCOPE_REQUIRE_LIVE=1: tests/support/skip.sh).
set -eu
build=$1
src=$2
built=$3

. "$src/tests/support/skip.sh"
fail() {
  echo "package_test: $*" >&2
  exit 1
}
for tool in cpack dpkg dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null 2>&1 || {
    skip "$tool is not installed (dpkg-dev; scripts/install-deps.sh)"
  }
done

[ -f "$build/man/hangscope.1.gz" ] || {
  skip "this build made no man pages (asciidoctor missing): its package would lack them"
}

work=$(mktemp -d "${TMPDIR:-/tmp}/hangscope-package.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# The package, in a directory of its own (cpack's staging goes there too).
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/out" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log" >&2; fail "cpack failed"; }
set -- "$work"/out/hangscope_*.deb
[ $# -eq 1 ] && [ -f "$1" ] || fail "cpack made no single hangscope_*.deb: $*"
deb=$1
version=$(cat "$build/version.txt")
echo "package: $(basename "$deb")"

# Fields: the version of the build, dependencies found by dpkg-shlibdeps.
[ "$(dpkg-deb -f "$deb" Package)" = hangscope ] || fail "Package is not hangscope"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] ||
  fail "Version $(dpkg-deb -f "$deb" Version) is not the build's $version"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for lib in libc6 libstdc++6 libunwind8 libfmt9 libzstd1; do
  case ", $depends" in
    *", $lib "* | *", $lib,"* | *", $lib") ;;
    *) fail "Depends lacks $lib (dpkg-shlibdeps): $depends" ;;
  esac
done

# Contents.
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$work/files"
for f in /usr/bin/hangscope \
  /usr/share/man/man1/hangscope.1.gz /usr/share/man/man1/hangscope-record.1.gz \
  /usr/share/man/man1/hangscope-report.1.gz /usr/share/man/man1/hangscope-diff.1.gz \
  /usr/share/man/man1/hangscope-watch.1.gz /usr/lib/systemd/system/hangscope-watch.service \
  /usr/share/bash-completion/completions/hangscope /usr/share/zsh/vendor-completions/_hangscope \
  /usr/share/hangscope/rules/builtin.toml /usr/share/doc/hangscope/copyright \
  /usr/share/doc/hangscope/changelog.gz /usr/share/doc/hangscope/json-schema.json \
  /usr/share/doc/hangscope/rules.md; do
  grep -qx "$f" "$work/files" || fail "the package lacks $f"
done

# Installed into a root of its own: dpkg with its own, empty, database.
root=$work/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
: >"$root/var/lib/dpkg/status"
# --force-depends: the empty database knows none of the libraries, which the host has.
dpkg --root="$root" --force-depends --force-script-chrootless -i "$deb" >"$work/dpkg.log" 2>&1 ||
  { cat "$work/dpkg.log" >&2; fail "dpkg -i failed"; }
dpkg --root="$root" -s hangscope | grep -qx "Status: install ok installed" ||
  fail "dpkg does not list hangscope as installed in $root"
bin=$root/usr/bin/hangscope
# watch's service unit runs the program where the package put it.
unit=$root/usr/lib/systemd/system/hangscope-watch.service
grep -qx 'ExecStart=/usr/bin/hangscope watch --dir /var/lib/hangscope $HANGSCOPE_WATCH_OPTS' "$unit" ||
  fail "the unit does not run /usr/bin/hangscope watch: $(grep ExecStart "$unit")"

first=$("$bin" --version | head -n 1)
[ "$first" = "hangscope $version" ] || fail "installed --version says '$first', not 'hangscope $version'"
"$bin" --version | grep -q '^  libunwind ' || fail "installed --version lists no libunwind"
fixture=$src/fixtures/capture/storm-overlayfs-ext4.capture
"$bin" report "$fixture" >"$work/installed.txt" || fail "installed hangscope report failed"
"$built" report "$fixture" >"$work/built.txt"
cmp -s "$work/installed.txt" "$work/built.txt" || fail "installed and built reports differ"
grep -q "hangscope report: 1 input, 150 rounds over 3.00 s, 2855 blocked samples" "$work/installed.txt" ||
  fail "installed report: $(head -n 12 "$work/installed.txt")"
# The rules installed as an example are a rule file the program takes as it is.
"$bin" report --rules "$root/usr/share/hangscope/rules/builtin.toml" "$fixture" >"$work/example.txt" ||
  fail "the installed example rules are refused"
cmp -s "$work/example.txt" "$work/built.txt" || fail "the example rules change the report"
# The man pages render, the completion scripts parse.
if command -v man >/dev/null 2>&1; then
  MANWIDTH=80 man -l "$root/usr/share/man/man1/hangscope.1.gz" | grep -q "hangscope-report" ||
    fail "man -l hangscope.1.gz"
fi
bash -n "$root/usr/share/bash-completion/completions/hangscope" || fail "bash completion"
if command -v zsh >/dev/null 2>&1; then
  zsh -n "$root/usr/share/zsh/vendor-completions/_hangscope" || fail "zsh completion"
elif [ "${HANGSCOPE_REQUIRE_LIVE:-}" = 1 ]; then
  fail "zsh is not installed (scripts/install-deps.sh): the zsh completion went unchecked"
fi

# lintian, errors fail; warnings and notes are printed.
if ! command -v lintian >/dev/null 2>&1; then
  skip "every check passed but lintian's: lintian is not installed (scripts/install-deps.sh)"
fi
lintian --fail-on error --info "$deb" >"$work/lintian.log" 2>&1 || {
  cat "$work/lintian.log" >&2
  fail "lintian found errors"
}
cat "$work/lintian.log"
echo "package_test: $(basename "$deb") built, lintian-clean, installed and run"
