# shellcheck shell=sh
# A skewed text dataset for wordcount, shared by the integration tests and
# the demos (sourced): Zipf-like words, a few very common and a long tail,
# and the answer computed without flexslot.

# gen_words SEED LINES [WIDTH]: LINES lines of 1..12 words (WIDTH times as
# many with WIDTH > 1: long, expensive records).
gen_words() {
	awk -v seed="$1" -v lines="$2" -v width="${3:-1}" 'BEGIN {
		srand(seed)
		for (i = 0; i < lines; i++) {
			n = width * (1 + int(rand() * 12)); s = ""
			for (j = 0; j < n; j++) {
				w = int(2000 * rand() ^ 4)
				s = s (j ? " " : "") "w" w
			}
			print s
		}
	}'
}

# wordcount_answer FILE...: word<TAB>count lines, sorted (LC_ALL=C), as
# wordcount's parts sorted together are.
wordcount_answer() {
	cat "$@" | tr ' ' '\n' | LC_ALL=C sort | uniq -c | awk '{ print $2 "\t" $1 }'
}

# demo_dataset DATA SIZE ANSWER: the demos' input in DATA/in, its answer in
# ANSWER, and its files' names relative to DATA on standard output, on one
# line: three long-line files (each record 8 times the work), whose splits
# are the expensive maps that straggle, and twelve small ones, their lines
# in proportion to SIZE (the demos' DEMO_SIZE).
demo_dataset() {
	mkdir -p "$1/in"
	for _dd_i in 1 2 3; do
		gen_words "$_dd_i" $(($2 * 1500)) 8 >"$1/in/long$_dd_i"
	done
	for _dd_i in $(seq 4 15); do
		gen_words "$_dd_i" $(($2 * 300)) >"$1/in/short$_dd_i"
	done
	wordcount_answer "$1"/in/* >"$3"
	for _dd_f in "$1"/in/*; do
		printf ' in/%s' "${_dd_f##*/}"
	done
	echo
}
