# shellcheck shell=sh
# Sourced by the integration scripts that drive programs from the command
# line and `make install`: a private directory ($tmp, removed on exit) and
# the helpers below.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/verdict.sh
. "$FLEXSLOT_SRCDIR/tests/lib/verdict.sh"

# expect STATUS PATTERN command...: the command exits STATUS and its stderr
# matches PATTERN (grep). Its output stays in $tmp/out and $tmp/err.
expect() {
	want=$1
	pattern=$2
	shift 2
	set +e
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	set -e
	[ "$got" -eq "$want" ] || fail "$* exited $got, expected $want: $(cat "$tmp/err")"
	grep -q -- "$pattern" "$tmp/err" || fail "$*: stderr lacks '$pattern': $(cat "$tmp/err")"
}

# run_make DESTDIR ARG...: make in the source tree with this build, installing
# into DESTDIR; its output is shown only on failure.
run_make() {
	d=$1
	shift
	make --no-print-directory -C "$FLEXSLOT_SRCDIR" BUILD="$FLEXSLOT_BUILD" \
		DESTDIR="$d" "$@" >>"$tmp/make.log" 2>&1 ||
		{ cat "$tmp/make.log"; echo "make $* failed"; exit 1; }
}
