#!/bin/sh
# The house's floors, checked: every `#include "..."` of a C file in the tree
# must stay within what its directory may use, and no two C files may share a
# name. Prints one finding per line (FILE:LINE: what crosses which boundary)
# and a verdict, "layers: clean" or "layers: N findings"; exits 1 on a finding.
#
#   tools/layers.sh [FILE...]      (default: every tracked .c and .h file)
#
# tools/layers-debt.txt lists arrows known to run the wrong way, one
# "FILE: includes HEADER" a line with the reason above it: each is printed as
# debt, not counted, until its line is removed; a listed arrow that no longer
# exists is a finding (the list only shrinks).
#
# The programs that are deployed apart (the agent on a host, the controller,
# the tracker in a guest, flexslotctl) agree only through proto/ (the wire
# contracts) and mapred/ (Hadoop's job semantics), never through each other's
# headers; the policy core knows no layer; the simulator and the controller
# are the core's two drivers and know nothing of each other.
set -eu
cd "$(dirname "$0")/.."

# room: the rooms it may include besides itself. The first room whose path
# prefixes a file is the file's room, so nested rooms come first.
allowed() {
	case $1 in
	common) echo "" ;;
	proto | mapred | hypervisor | actuation | policy/core) echo "common" ;;
	policy/layers) echo "policy/core common" ;;
	agent) echo "hypervisor actuation proto common" ;;
	controller/store) echo "policy/core common" ;;
	# The client of YARN's REST APIs knows nothing of the controller that
	# drives YARN with it.
	controller/yarn) echo "common" ;;
	controller/daemon) echo "controller/store controller/yarn policy/layers policy/core proto mapred common" ;;
	controller/ctl) echo "proto common" ;;
	tracker) echo "proto mapred common" ;;
	sim) echo "policy/layers policy/core actuation mapred common" ;;
	# Benchmarks and tests measure and check every room, but speak to the
	# controller and the tracker only through their contracts (the host
	# benchmark times the agent's own collector, the cluster benchmark the
	# controller's model).
	bench) echo "sim agent controller/daemon controller/store policy/layers policy/core hypervisor actuation proto mapred common" ;;
	tests) echo "*" ;;
	*) echo "?" ;;
	esac
}
rooms="policy/core policy/layers controller/store controller/yarn controller/daemon controller/ctl \
common proto mapred hypervisor actuation agent tracker sim bench tests"

room_of() {
	for r in $rooms; do
		case $1 in "$r"/*)
			echo "$r"
			return
			;;
		esac
	done
	echo "?"
}

if [ $# -eq 0 ]; then
	# shellcheck disable=SC2046 # file names have no spaces
	set -- $(git ls-files '*.c' '*.h')
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
for f in "$@"; do
	from=$(room_of "$f")
	may=$(allowed "$from")
	if [ "$may" = "?" ]; then
		echo "$f: in no room of tools/layers.sh: add its directory there" >>"$out"
		continue
	fi
	[ "$may" = "*" ] && continue
	grep -n '^#[[:space:]]*include[[:space:]]*"' "$f" |
		sed 's/^\([0-9]*\):#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1 \2/' |
		while read -r line inc; do
			# A bare name is a header beside the file; anything else is
			# named from the top of the tree.
			case $inc in */*) target=$inc ;; *) target=$(dirname "$f")/$inc ;; esac
			to=$(room_of "$target")
			[ "$to" = "$from" ] && continue
			ok=0
			for r in $may; do [ "$r" = "$to" ] && ok=1; done
			[ $ok = 1 ] && continue
			echo "$f:$line: includes $inc: $from may include only ${may:-itself}" >>"$out"
		done
done
# One name, one file: a bare include or a debugger's "config.c:40" must not
# have to guess which.
printf '%s\n' "$@" | grep '\.c$' | sed 's|.*/||' | sort | uniq -d |
	while read -r base; do
		printf '%s\n' "$@" | grep "/$base\$" | tr '\n' ' ' |
			sed "s|^|file name $base is not unique: |; s| \$||" >>"$out"
		echo >>"$out"
	done

debt=tools/layers-debt.txt
if [ -f "$debt" ]; then
	grep -v '^#' "$debt" | grep . >"$out.debt" || true
	while IFS= read -r known; do
		if grep -qF "$known" "$out"; then
			echo "debt: $known"
		else
			echo "$debt: '$known' is gone from the tree: remove its line" >>"$out.stale"
		fi
	done <"$out.debt"
	grep -vF -f "$out.debt" "$out" >"$out.left" || true
	[ ! -f "$out.stale" ] || cat "$out.stale" >>"$out.left"
	mv "$out.left" "$out"
	rm -f "$out.debt" "$out.stale"
fi
cat "$out"
n=$(grep -c . "$out" || true)
if [ "$n" -gt 0 ]; then
	echo "layers: $n finding$([ "$n" -eq 1 ] || echo s)"
	exit 1
fi
echo "layers: clean"
