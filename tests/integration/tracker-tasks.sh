#!/bin/sh
# flexslot-task end to end: a skewed text dataset of files of different
# sizes run through wordcount, sort and grep (splits, maps with a small sort
# buffer so that each spills many times, three reduces), each compared with
# an answer from sort(1) and uniq(1); the command line's refusals; and a map
# killed in the middle, which leaves no output and succeeds when run again.
set -eu

task="$FLEXSLOT_BUILD/bin/flexslot-task"
src="$FLEXSLOT_SRCDIR"
# shellcheck source=tests/lib/cli.sh
. "$src/tests/lib/cli.sh"
export LC_ALL=C
tab=$(printf '\t')

# usage PATTERN args...: a usage error, with the hint.
usage() {
	pattern=$1
	shift
	expect 2 "^flexslot-task: $pattern\$" "$task" "$@"
	grep -qx "Try 'flexslot-task --help'." "$tmp/err" || fail "$*: no --help hint"
}

# words SEED BYTES: lines of 1 to 12 words w1..w20000, word k about 1/k as
# frequent as w1 (a log-uniform index).
words() {
	awk -v seed="$1" -v bytes="$2" 'BEGIN {
		srand(seed)
		for (n = 0; n < bytes; n += length(line) + 1) {
			line = ""
			k = 1 + int(rand() * 12)
			for (i = 0; i < k; i++)
				line = line (i ? " " : "") "w" int(exp(rand() * log(20000)))
			print line
		}
	}'
}

# run_job DATA_DIR APP_OPTIONS...: every split a map, then three reduces.
run_job() {
	data=$1
	shift
	rm -rf "$tmp/maps" "$tmp/parts"
	mkdir "$tmp/maps" "$tmp/parts"
	"$task" splits --block-size=1M "$data" >"$tmp/splits"
	i=0
	while read -r split; do
		"$task" map "$@" --split="$split" --reduces=3 --sort-buffer=256K \
			--out="$tmp/maps/map-$i" --attempt="m${i}_0" --work="$tmp" \
			>"$tmp/map-$i.report" || { cat "$tmp/map-$i.report"; fail "map $split failed"; }
		i=$((i + 1))
	done <"$tmp/splits"
	for p in 0 1 2; do
		"$task" reduce "$@" --partition=$p --out="$tmp/parts/part-$p" --work="$tmp" \
			"$tmp/maps" >"$tmp/reduce-$p.report" || fail "reduce $p failed"
	done
	cat "$tmp"/parts/part-* | sort >"$tmp/got"
}

# count: "word<TAB>count" lines of stdin's lines, sorted.
count() {
	sort | uniq -c | awk '{ print $2 "\t" $1 }' | sort
}

mkdir "$tmp/text" "$tmp/kv"
words 1 2500000 >"$tmp/text/big.txt"
words 2 900000 >"$tmp/text/medium.txt"
words 3 40000 >"$tmp/text/small.txt"
: >"$tmp/text/empty.txt"
echo "not input" >"$tmp/text/.hidden"

# wordcount: 2.4 blocks make 3 splits, then one each for the other three.
run_job "$tmp/text" --app=wordcount
[ "$(wc -l <"$tmp/splits")" -eq 6 ] || fail "splits: $(cat "$tmp/splits")"
spills=$(cat "$tmp"/map-*.report | awk '/^spills:/ { s += $2 } END { print s }')
[ "$spills" -gt 20 ] || fail "only $spills spills with a 256K sort buffer"
cat "$tmp"/text/*.txt | tr -s ' ' '\n' | grep -v '^$' | count >"$tmp/want"
cmp -s "$tmp/got" "$tmp/want" || fail "wordcount differs from sort | uniq -c: $(diff "$tmp/got" "$tmp/want" | head -5)"
echo "wordcount: $(wc -l <"$tmp/want") words, $spills spills: ok"

# sort: every reduce's output in key order, together the input's lines.
awk 'BEGIN { srand(4); for (i = 0; i < 80000; i++)
	printf "k%d\t%d\n", int(exp(rand() * log(5000))), int(rand() * 1000000) }' >"$tmp/kv/a"
awk 'BEGIN { srand(5); for (i = 0; i < 20000; i++)
	printf "%c%d\t%d\n", 97 + int(rand() * 26), int(rand() * 100), i }' >"$tmp/kv/b"
run_job "$tmp/kv" --app=sort
for p in 0 1 2; do
	cut -f1 "$tmp/parts/part-$p" | sort -c 2>/dev/null || fail "part-$p is not in key order"
done
sort "$tmp"/kv/* | cmp -s - "$tmp/got" || fail "sort lost or changed lines"
echo "sort: $(wc -l <"$tmp/got") lines: ok"

# grep: the matches of a pattern, counted.
pattern='w1[0-9]*7'
run_job "$tmp/text" --app=grep --app-arg="$pattern"
cat "$tmp"/text/*.txt | grep -oE "$pattern" | count >"$tmp/want"
cmp -s "$tmp/got" "$tmp/want" || fail "grep differs from grep -o | uniq -c: $(diff "$tmp/got" "$tmp/want" | head -5)"
echo "grep: $(wc -l <"$tmp/want") distinct matches: ok"

# The command line.
version=$(sed -n 's/^#define FLEXSLOT_VERSION "\(.*\)"$/\1/p' "$src/common/version.h")
[ "$("$task" --version)" = "flexslot-task $version" ] || fail "--version: $("$task" --version)"
"$task" --help | grep -q "^Usage: flexslot-task" || fail "--help"
# Each command's own --help: its synopsis and the options it takes, no other.
"$task" map --help >"$tmp/help" || fail "map --help failed"
[ "$(head -n 1 "$tmp/help")" = "Usage: flexslot-task [OPTIONS] map --split=FILE:OFFSET:LENGTH --reduces=N --out=FILE" ] ||
	fail "map --help: $(cat "$tmp/help")"
grep -q -- "--sort-buffer=SIZE" "$tmp/help" || fail "map --help lacks its options: $(cat "$tmp/help")"
grep -Eq -- "--(partition|reducer|block-size)" "$tmp/help" &&
	fail "map --help lists options map does not take: $(cat "$tmp/help")"
"$task" --help splits >"$tmp/help" || fail "--help splits failed"
grep -q -- "--block-size=SIZE" "$tmp/help" || fail "splits --help: $(cat "$tmp/help")"
grep -Eq -- "--(out|app|quiet)" "$tmp/help" && fail "splits --help lists task options: $(cat "$tmp/help")"
for c in map reduce splits apps; do
	"$task" "$c" --help | head -n 1 | grep -q "^Usage: flexslot-task .*$c" || fail "$c --help"
	"$task" "$c" --help | grep -Eq "^  (map|reduce|splits|apps) " && fail "$c --help lists the commands"
done
"$task" apps | grep -q "^histogram-ratings " || fail "apps: $("$task" apps)"
split="$tmp/text/small.txt:0:100"
usage "missing command (map, reduce, splits or apps)"
usage "unknown command 'fly'" fly
usage "unknown command 'fly'" fly --help
usage "--quiet does not apply to apps" --quiet apps
usage "unknown option '--bogus'" --bogus apps
usage "option '--out' needs a value" map --out
usage "unknown application 'wordcont' (see 'apps')" map --app=wordcont
usage "map needs --app=NAME or --mapper=COMMAND" map --split="$split" --reduces=1 --out=o
usage "--app and --mapper exclude each other" map --app=sort --mapper=cat --out=o
usage "grep needs its PATTERN: --app-arg=PATTERN" map --app=grep --split="$split" --reduces=1 --out=o
usage "wordcount takes no --app-arg" map --app=wordcount --app-arg=x --split="$split" --reduces=1 --out=o
usage "invalid number of reduces '0' (1-65536)" map --reduces=0
usage "invalid split 'nowhere' (FILE:OFFSET:LENGTH)" map --app=sort --split=nowhere --reduces=1 --out=o
usage "invalid sort buffer size '10K'" map --sort-buffer=10K
usage "--partition does not apply to map" map --app=sort --partition=1 --split="$split" --reduces=1 --out=o
usage "--reduces does not apply to reduce" reduce --app=sort --reduces=2 --partition=0 --out=o x
usage "reduce needs its map outputs (files or directories)" reduce --app=sort --partition=0 --out=o
usage "invalid attempt '../x': up to 100 letters, digits, '.', '_' and '-', not first '.'" \
	map --attempt=../x
usage "apps takes no arguments" apps x
# The progress a tracker reads: the status it passes by descriptor.
truncate -s 4096 "$tmp/status"
"$task" map --app=wordcount --split="$split" --reduces=1 --out="$tmp/s.map" -q \
	--status-fd=3 3<>"$tmp/status" || fail "map with --status-fd"
# kind (u32 at 8): 1, a map; phase (u32 at 12): 7, done; input (u64 at 16): 100.
[ "$(od -An -t u4 -j 8 -N 8 "$tmp/status" | tr -s ' ')" = " 1 7" ] ||
	fail "status: $(od -An -t u4 -j 8 -N 8 "$tmp/status")"
[ "$(od -An -t u8 -j 16 -N 8 "$tmp/status" | tr -d ' ')" = 100 ] || fail "status: input done"
usage "--status-fd=3 is not a task status: Invalid argument" map --app=sort --split="$split" \
	--reduces=1 --out=o --status-fd=3 3</dev/null
# Bad input at run time: named, exit 1, nothing written.
expect 1 "runs past the end of the file" "$task" map --app=sort \
	--split="$tmp/text/small.txt:0:99999999" --reduces=1 --out="$tmp/o"
expect 1 "not a valid map output" "$task" reduce --app=sort --partition=0 \
	--out="$tmp/o" "$tmp/text/small.txt"
[ ! -e "$tmp/o" ] || fail "a failed task left output"

# --data-dir, as the tracker runs tasks: paths resolve beneath the data
# directory, so a symlink planted there (by a task, or any writer of the
# shared directory) cannot make a task read or write outside it.
data=$tmp/data
mkdir -p "$data/in" "$data/out/1"
printf 'secret line\n' >"$tmp/secret"
cp "$tmp/text/small.txt" "$data/in/a"
ln -s ../../secret "$data/in/up"
ln -s "$tmp/secret" "$data/in/abs"
ln -s a "$data/in/alias"
ln -s "$tmp" "$data/out/away"
for input in in/up in/abs; do
	expect 1 "Cannot open input $input: it leads out of the data directory" "$task" map \
		--app=sort --data-dir="$data" --split="$input:0:12" --reduces=1 --out=out/1/m
done
expect 1 "it leads out of the data directory" "$task" map --app=sort --data-dir="$data" \
	--split="in/a:0:100" --reduces=1 --out=out/away/stolen
[ ! -e "$tmp/stolen" ] || fail "a map wrote through a symlink out of the data directory"
expect 1 "Cannot open map output out/away/secret: it leads out" "$task" reduce --app=sort \
	--data-dir="$data" --partition=0 --out=out/1/p out/away/secret
usage "--split '/etc/passwd:0:1' is not in the data directory $data" map --app=sort \
	--data-dir="$data" --split=/etc/passwd:0:1 --reduces=1 --out=out/1/m
# A symlink that stays inside is followed; absolute paths under the data
# directory are taken as relative to it. Outputs are not world-readable.
"$task" map --app=wordcount --data-dir="$data" --split=in/alias:0:100 --reduces=1 \
	--out="$data/out/1/m" -q || fail "a map over a symlink inside the data directory failed"
"$task" reduce --app=wordcount --data-dir="$data" --partition=0 --out=out/1/part-0 -q out/1 ||
	fail "a reduce of out/1 under --data-dir failed"
for f in m part-0; do
	[ "$(stat -c %a "$data/out/1/$f")" = 640 ] ||
		fail "out/1/$f is mode $(stat -c %a "$data/out/1/$f"), not 640"
done
echo "data directory: symlinks out refused, outputs 0640: ok"

# A map killed in the middle: as a slot's task it runs in a child process
# of its own, which SIGTERM to flexslot-task stops with all it started.
if [ "${FLEXSLOT_SANITIZE:-0}" = 1 ]; then
	# Its slot memory may be RLIMIT_AS, which AddressSanitizer's shadow
	# memory cannot live under; the tracker_task suite kills a map in
	# this build.
	echo "killed map: not run under the sanitizers"
else
	size=$(wc -c <"$tmp/text/big.txt")
	"$task" map --mapper="head -c 1000 >/dev/null; touch '$tmp/started'; exec sleep 600" \
		--split="$tmp/text/big.txt:0:$size" --reduces=2 --out="$tmp/killed.map" \
		--attempt=k_0 --slot-memory=512M --work="$tmp" >/dev/null 2>"$tmp/killed.err" &
	pid=$!
	n=0
	while [ ! -e "$tmp/started" ]; do
		n=$((n + 1))
		[ $n -lt 2000 ] || { kill "$pid"; fail "the mapper never started"; }
		sleep 0.01
	done
	kill -TERM "$pid"
	if wait "$pid"; then
		fail "a killed map exited 0"
	fi
	grep -q "map k_0 killed: signal 15" "$tmp/killed.err" || fail "kill: $(cat "$tmp/killed.err")"
	[ ! -e "$tmp/killed.map" ] || fail "a killed map left output"
	"$task" map --mapper=cat --split="$tmp/text/big.txt:0:$size" --reduces=2 \
		--out="$tmp/killed.map" --attempt=k_0 --slot-memory=512M --work="$tmp" -q ||
		fail "the rerun of a killed map failed"
	[ -s "$tmp/killed.map" ] || fail "the rerun wrote nothing"
	[ ! -e "$tmp/.killed.map.tmp-k_0" ] || fail "the rerun left its temporary file"
	echo "killed map: no output; rerun: ok"

	# A streaming command that runs out of memory under RLIMIT_AS (the
	# slot memory where no memory cgroup can be made) fails the task as
	# a memory limit, as under a cgroup; one that fails small is a plain
	# failure. About 150M of awk's strings, in a 64M slot.
	hog="awk 'BEGIN { for (i = 0; i < 1000000; i++) a[i] = sprintf(\"%090d\", i) } { print }'"
	expect 3 "map r_0 failed: memory limit exceeded (RLIMIT_AS: out of memory)" \
		"$task" map --mapper="$hog" --split="$tmp/text/small.txt:0:100" --reduces=1 \
		--out="$tmp/r.map" --attempt=r_0 --slot-memory=64M --memory-limit=rlimit --work="$tmp"
	grep -q "The mapper '.*' failed at .* resident, over half of its address space limit of 64M" \
		"$tmp/err" || fail "the mapper's memory is not named: $(cat "$tmp/err")"
	expect 1 "map r_1 failed: exit status 1" \
		"$task" map --mapper="exit 7" --split="$tmp/text/small.txt:0:100" --reduces=1 \
		--out="$tmp/r.map" --attempt=r_1 --slot-memory=64M --memory-limit=rlimit --work="$tmp"
	echo "streaming out of memory under RLIMIT_AS: memory limit exceeded"
fi
echo "tracker-tasks: ok"
