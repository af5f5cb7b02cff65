#!/bin/sh
# `make lint`'s script (tools/lint.sh) prints findings and a verdict only:
# on a clean file that still makes clang-tidy count a dropped warning (one in
# a system header's macro) it says "lint: clean" and nothing else; on a file
# with a cppcheck and a clang-tidy finding it prints both and "lint: 2
# findings", and fails; a file clang-format would lay out otherwise is a
# finding too. `make lint` and `make format` on a machine without
# the tools (a dpkg-query that knows none of them, a user who may not
# install) stop with the command that installs them.
set -eu
src=${FLEXSLOT_SRCDIR:?run through make check}
build=${FLEXSLOT_BUILD:?run through make check}
# shellcheck source=tests/lib/verdict.sh
. "$FLEXSLOT_SRCDIR/tests/lib/verdict.sh"
for t in cppcheck clang-tidy clang-format; do
	command -v "$t" >/dev/null || skip "$t is not installed (make lint installs it)"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
cp "$src/.clang-tidy" "$src/.clang-format" "$tmp/"
cat >"$tmp/clean.c" <<'C'
#include <stdint.h>

double lint_clean(void);

double lint_clean(void) {
        return (double)(UINT64_MAX / 2);
}
C
cat >"$tmp/bad.c" <<'C'
#include <stdlib.h>

int lint_bad_number(const char *s);
void lint_bad_index(void);

int lint_bad_number(const char *s) {
        return atoi(s);
}

void lint_bad_index(void) {
        int v[2];
        v[2] = 0;
        (void)v;
}
C

cd "$src"
out=$(tools/lint.sh "$tmp/clean.c" -- -std=gnu11) || fail "a clean file failed: $out"
[ "$out" = "lint: clean" ] || fail "a clean file printed more than the verdict: $out"

if out=$(tools/lint.sh "$tmp/bad.c" -- -std=gnu11); then
	fail "findings passed: $out"
fi
echo "$out"
echo "$out" | grep -q "bad.c:7:16: error: 'atoi' used to convert" || fail "no clang-tidy finding"
echo "$out" | grep -q "bad.c:12:10: error: Array 'v\[2\]' accessed at index 2" || fail "no cppcheck finding"
[ "$(echo "$out" | tail -n 1)" = "lint: 2 findings" ] || fail "wrong verdict"
! echo "$out" | grep -q generated || fail "clang's warning count is printed"

# A file laid out otherwise than .clang-format says is a finding.
printf 'int lint_ugly(void);\n\nint lint_ugly(void) {\n  return 0;\n}\n' >"$tmp/ugly.c"
if out=$(tools/lint.sh "$tmp/ugly.c" -- -std=gnu11); then
	fail "a file clang-format would change passed: $out"
fi
echo "$out" | grep -q "ugly.c:[0-9]*:[0-9]*: error: code should be clang-formatted" || fail "no clang-format finding: $out"
[ "$(echo "$out" | tail -n 1)" = "lint: 1 finding" ] || fail "wrong verdict: $out"

# A machine without the tools, for a user who cannot install them.
mkdir "$tmp/bin"
cat >"$tmp/bin/dpkg-query" <<'SH'
#!/bin/sh
case " $* " in
*" cppcheck "* | *" clang-tidy "* | *" clang-format "*) exit 1 ;;
esac
exec /usr/bin/dpkg-query "$@"
SH
chmod 755 "$tmp/bin" "$tmp/bin/dpkg-query"
# make runs on a copy of what these targets read: the tree may be where only
# root may go (/root/flexslot, on a fresh machine), and this user is nobody.
# The build's configuration is copied last, so that it is newer than the
# files it is made from and make does not remake it.
mkdir -p "$tmp/tree/packaging" "$tmp/build"
cp -p "$src/Makefile" "$tmp/tree/"
cp -p "$src/packaging/deps.sh" "$tmp/tree/packaging/"
for m in "$src"/*/module.mk; do
	d=$(basename "$(dirname "$m")")
	mkdir -p "$tmp/tree/$d"
	cp -p "$m" "$tmp/tree/$d/"
done
cp "$build/config.mk" "$tmp/build/"
chmod -R a+rX "$tmp/tree" "$tmp/build"
as_user() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
	else
		"$@"
	fi
}
for target in lint format; do
	if out=$(as_user env PATH="$tmp/bin:$PATH" make --no-print-directory -C "$tmp/tree" \
		BUILD="$tmp/build" "$target" 2>&1); then
		fail "make $target ran without its tools: $out"
	fi
	echo "$out" | grep -q "apt-get install -y --no-install-recommends cppcheck clang-tidy clang-format" ||
		fail "make $target did not ask for its tools: $out"
done
echo ok
