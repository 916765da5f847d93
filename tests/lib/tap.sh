# shellcheck shell=bash
# TAP (Test Anything Protocol) from the tiers' result lines, for
# tests/run-tier with D2D_TAP=1: the same mapping lib/check.h uses.
#   PASS name        ->  ok N - name
#   FAIL name: why   ->  not ok N - name # why
#   SKIP name: why   ->  ok N - name # SKIP why
# and the plan "1..N" after the last test.

tap_line() {	# tap_line N LINE
	local n=$1 l=$2 name why
	case "$l" in
	PASS\ *) echo "ok $n - ${l#PASS }"; return ;;
	FAIL\ *) l=${l#FAIL } ;;
	SKIP\ *) l=${l#SKIP } ;;
	*) return ;;
	esac
	name=${l%%: *}
	why=${l#"$name"}
	why=${why#: }
	case "$2" in
	FAIL\ *) echo "not ok $n - $name${why:+ # $why}" ;;
	SKIP\ *) echo "ok $n - $name # SKIP${why:+ $why}" ;;
	esac
}

tap_plan() {	# tap_plan N
	echo "1..$1"
}
