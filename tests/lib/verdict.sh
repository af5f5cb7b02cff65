# shellcheck shell=sh
# An integration script's verdicts, as tests/check_integration.c reads them
# (sourced): fail with a reason, or skip, with the reason listed after the
# summary, when the machine cannot run the test.
fail() {
	echo "FAIL: $*"
	exit 1
}
skip() {
	echo "SKIP: $*"
	exit 77
}
