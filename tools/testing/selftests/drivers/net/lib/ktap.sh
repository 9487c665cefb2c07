# SPDX-License-Identifier: GPL-2.0
# Minimal KTAP output for shell selftests; sourced.

KTAP_N=0
KTAP_FAILED=0
KTAP_SKIPPED=0

ktap_plan()
{
	KTAP_PLAN=$1
	echo "TAP version 13"
	echo "1..$1"
}

ktap_pass()
{
	KTAP_N=$((KTAP_N + 1))
	echo "ok $KTAP_N $1"
}

# ktap_fail <name> [reason]
ktap_fail()
{
	KTAP_N=$((KTAP_N + 1))
	KTAP_FAILED=$((KTAP_FAILED + 1))
	[ -n "${2:-}" ] && echo "# $1: $2"
	echo "not ok $KTAP_N $1"
}

ktap_skip()
{
	KTAP_N=$((KTAP_N + 1))
	KTAP_SKIPPED=$((KTAP_SKIPPED + 1))
	echo "ok $KTAP_N $1 # SKIP ${2:-}"
}

# ktap_check <name> <command...>: pass if the command succeeds
ktap_check()
{
	local name=$1

	shift
	if "$@"; then
		ktap_pass "$name"
	else
		ktap_fail "$name" "'$*' failed"
	fi
}

# ktap_check_fails <name> <command...>: pass if the command fails
ktap_check_fails()
{
	local name=$1

	shift
	if "$@" >/dev/null 2>&1; then
		ktap_fail "$name" "'$*' succeeded"
	else
		ktap_pass "$name"
	fi
}

ktap_finish()
{
	local passed=$((KTAP_N - KTAP_FAILED - KTAP_SKIPPED))

	echo "# totals: pass:$passed fail:$KTAP_FAILED skip:$KTAP_SKIPPED"
	# a script that lost a case on the way fails, as one that failed it
	if [ -n "${KTAP_PLAN:-}" ] && [ "$KTAP_N" -ne "$KTAP_PLAN" ]; then
		echo "# planned $KTAP_PLAN cases, ran $KTAP_N"
		exit 1
	fi
	[ "$KTAP_FAILED" -eq 0 ] || exit 1
	[ "$KTAP_N" -gt 0 ] && [ "$KTAP_SKIPPED" -eq "$KTAP_N" ] && exit 4
	exit 0
}
