# shellcheck shell=sh
# A skewed text dataset for wordcount, shared by the integration tests and
# `make demo-live` (sourced): Zipf-like words, a few very common and a long
# tail, and the answer computed without flexslot.

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
