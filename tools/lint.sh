#!/bin/sh
# `make lint`: cppcheck, clang-tidy and clang-format's check over the given
# C files, from the top of the tree. Prints their findings and nothing else
# (clang's "N warnings generated." counts warnings it then drops, in system
# headers' macros), then a verdict, "lint: clean" or "lint: N findings";
# exits 1 on a finding or when a tool fails.
#
#   tools/lint.sh FILE... [--cppcheck-only FILE...] [-- CLANG_FLAG...]
#
# The files after --cppcheck-only (the tests, whose Check macros clang-tidy
# cannot judge) go to cppcheck alone; the flags after -- to clang-tidy.
set -eu

usage() {
	echo "usage: $0 FILE... [--cppcheck-only FILE...] [-- CLANG_FLAG...]" >&2
	exit 2
}
both=""
only=""
where=both
while [ $# -gt 0 ]; do
	case $1 in
	--cppcheck-only) where=only ;;
	--)
		shift
		break
		;;
	-*) usage ;;
	*) if [ "$where" = both ]; then both="$both $1"; else only="$only $1"; fi ;;
	esac
	shift
done
[ -n "$both$only" ] || usage

out=$(mktemp)
trap 'rm -f "$out"' EXIT
failed=""
# shellcheck disable=SC2086 # file lists are words
cppcheck --quiet --error-exitcode=1 --std=c11 --inline-suppr \
	--enable=warning,performance,portability --suppress=missingIncludeSystem \
	-I. -D_GNU_SOURCE $both $only >>"$out" 2>&1 || failed="$failed cppcheck"
if [ -n "$both" ]; then
	# shellcheck disable=SC2086
	clang-tidy --quiet $both -- "$@" >>"$out" 2>&1 || failed="$failed clang-tidy"
fi
# The layout .clang-format gives (`make format` mends it).
# shellcheck disable=SC2086
clang-format --dry-run -Werror $both $only >>"$out" 2>&1 || failed="$failed clang-format"

grep -v -E '^[0-9]+ (warning|error)s? generated\.$|^Error while processing ' "$out" || true
n=$(grep -c -E '^([^ ]+:[0-9]+:[0-9]+: )?(error|warning|style|performance|portability): ' "$out" || true)
if [ "$n" -gt 0 ]; then
	echo "lint: $n finding$([ "$n" -eq 1 ] || echo s)"
	exit 1
fi
if [ -n "$failed" ]; then
	echo "lint: failed:$failed (no finding reported)"
	exit 1
fi
echo "lint: clean"
