#!/bin/sh
# The live side of `flexslot-sim replay`: submits the jobs of a trace in
# SWIM's format to a running controller (org.flexslot.Controller1, through
# flexslotctl) at their submissions, scaled, so that a replay in the
# simulator and one on the live stack can be put side by side.
#
#   tools/swim-load.sh [--scale-time X] [--scale-data X] [--block BYTES]
#       [--max-reduces N] [--text FILE] [--address ADDR] [--ctl PATH] DATA_DIR FILE
#
# Each job is wordcount over an input of its scaled map input bytes (at
# least one), written to DATA_DIR/swim/NAME (the controller's data
# directory; the job names it swim/NAME) before the first submission: the
# text of --text repeated (the text a simulator's costs were measured on),
# by default one English line repeated. Its
# reduces are the simulator's: round((shuffle + output) x scale / block),
# at least 1 and at most --max-reduces (default 60, fig10's reduce slots);
# a map-only job (no shuffle bytes) gets 1, as the controller runs no
# map-only jobs. What it shuffles and writes is wordcount's, not the
# trace's. --scale-data defaults to 0.05 (30 slaves of the trace's 600
# machines), --block to 64 MiB, --scale-time to 1. Prints "NAME ID" per job
# as it is submitted. A bad line of FILE is named FILE:LINE (exit 2) and
# nothing is written or submitted; a refused submission stops it (exit 1).
set -eu

scale_time=1
scale_data=0.05
block=67108864
max_reduces=60
address=""
ctl=flexslotctl
text=""

usage() {
	echo "usage: $0 [--scale-time X] [--scale-data X] [--block BYTES] [--max-reduces N]" \
		"[--text FILE] [--address ADDR] [--ctl PATH] DATA_DIR FILE" >&2
	exit 2
}
number() {
	case $2 in
	'' | *[!0-9.]* | *.*.* | .*) echo "$0: $1 '$2': expected a number" >&2; exit 2 ;;
	esac
}
while [ $# -gt 2 ]; do
	[ $# -gt 3 ] || usage
	case $1 in
	--scale-time) number "$1" "$2"; scale_time=$2 ;;
	--scale-data) number "$1" "$2"; scale_data=$2 ;;
	--block) number "$1" "$2"; block=$2 ;;
	--max-reduces) number "$1" "$2"; max_reduces=$2 ;;
	--address) address=$2 ;;
	--ctl) ctl=$2 ;;
	--text) text=$2 ;;
	*) usage ;;
	esac
	shift 2
done
[ $# -eq 2 ] || usage
data=$1
file=$2
[ -d "$data" ] || { echo "$0: $data: not a directory" >&2; exit 2; }
[ -r "$file" ] || { echo "$0: $file: cannot read" >&2; exit 2; }
[ -z "$text" ] || [ -s "$text" ] || { echo "$0: --text $text: cannot read, or empty" >&2; exit 2; }

# The plan, every line checked before anything is written: "NAME
# OFFSET_S INPUT_BYTES REDUCES" per job.
plan=$(mktemp)
trap 'rm -f "$plan"' EXIT
awk -F '\t' -v file="$file" -v st="$scale_time" -v sd="$scale_data" -v block="$block" \
	-v most="$max_reduces" '
	function bad(what) { printf "%s:%d: %s\n", file, NR, what > "/dev/stderr"; failed = 1; exit 2 }
	/^#/ || /^\r?$/ { next }
	{
		sub(/\r$/, "")
		if (NF != 6) bad(NF " tab-separated fields, expected 6")
		if ($1 == "" || $1 ~ /[\/ ]/) bad("job name '\''" $1 "'\'' is empty or has a '\''/'\'' or a space")
		if ($1 in seen) bad("job '\''" $1 "'\'' again (first on line " seen[$1] ")")
		seen[$1] = NR
		for (i = 2; i <= 3; i++)
			if ($i !~ /^[0-9]+(\.[0-9]+)?$/) bad("field " i " '\''" $i "'\'' is not a number of seconds")
		for (i = 4; i <= 6; i++)
			if ($i !~ /^[0-9]+$/) bad("field " i " '\''" $i "'\'' is not a whole number of bytes")
		if (n && $2 + 0 < last) bad("submitted at " $2 " s, before the job before it")
		last = $2 + 0
		input = int($4 * sd + 0.5); if (input < 1) input = 1
		r = int(($5 + $6) * sd / block + 0.5)
		if (r < 1) r = 1
		if (r > most) r = most
		printf "%s %.6f %d %d\n", $1, $2 * st, input, r
		n++
	}
	END { if (!failed && n == 0) { printf "%s: no jobs\n", file > "/dev/stderr"; exit 2 } }
' "$file" >"$plan"

mkdir -p "$data/swim"
# repeat: the input text without end (cat ends the loop when head is done).
repeat() {
	if [ -n "$text" ]; then
		while cat "$text"; do :; done
	else
		yes 'the quick brown fox jumps over the lazy dog'
	fi
}
while read -r name _ bytes _; do
	repeat | head -c "$bytes" >"$data/swim/$name"
done <"$plan"

start=$(date +%s.%N)
while read -r name offset _ reduces; do
	wait=$(awk -v s="$start" -v o="$offset" -v now="$(date +%s.%N)" 'BEGIN { w = s + o - now; print (w > 0 ? w : 0) }')
	sleep "$wait"
	id=$("$ctl" ${address:+--address="$address"} submit --app=wordcount --reduces="$reduces" \
		--name="$name" "swim/$name")
	echo "$name $id"
done <"$plan"
