#!/bin/bash
# TAP output: lib/check.h prints "ok N - name" / "not ok N - name # why"
# and a closing plan "1..N" when D2D_TAP=1, and the PASS/FAIL lines
# tests/run-tier parses otherwise; lib/tap.sh turns run-tier's PASS, FAIL
# and SKIP lines into TAP the same way.  One line per check.
cd "$(dirname "$0")/.."
sample=build/unit/tap_sample

check() {	# check NAME EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then
		echo "PASS unit/tap/$1"
	else
		echo "FAIL unit/tap/$1: got '$(echo "$3" | tr '\n' '|')', want '$(echo "$2" | tr '\n' '|')'"
	fi
}

# The failing test's reason, as the harness words it.
line=$(grep -n 'CHECK_EQ(1 + 1, 3)' unit/tap_sample.c | cut -d: -f1)
why="unit/tap_sample.c:$line: 1 + 1 == 0x2, want 3 == 0x3"

out=$(D2D_TAP= "$sample" 2>&1)
check check_h_default "PASS unit/tap_sample/passes
FAIL unit/tap_sample/fails: $why" "$out"

out=$(D2D_TAP=1 "$sample" 2>&1)
check check_h_tap "ok 1 - unit/tap_sample/passes
not ok 2 - unit/tap_sample/fails # $why
1..2" "$out"

# run-tier's lines, one at a time, numbered from 1, then the plan.
out=$(
	if ! . lib/tap.sh 2>/dev/null; then
		echo "no lib/tap.sh"
		exit
	fi
	n=0
	while read -r l; do
		n=$((n + 1))
		tap_line "$n" "$l"
	done <<'X'
PASS unit/a/x
FAIL unit/a/y: it broke: badly
SKIP unit/a/z: not here
FAIL unit/a/w
X
	tap_plan 4
)
check run_tier_lines "ok 1 - unit/a/x
not ok 2 - unit/a/y # it broke: badly
ok 3 - unit/a/z # SKIP not here
not ok 4 - unit/a/w
1..4" "$out"
