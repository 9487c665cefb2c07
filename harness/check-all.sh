#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check`: host checks, the whole kselftest suite on the kernel, then
# the lifetime and bad-input tests (harness/debug-subset) on the debug
# kernel (KASAN, lockdep, kmemleak), and one closing line for both.
# DEVMEM_DEBUG=0 skips the debug kernel.
. "$(dirname "$0")/lib.sh"

H=$REPO/harness
rc=0
"$H/host-checks.sh"
CHECK_LABEL="kernel $LOCALVERSION" "$H/check.sh" || rc=1
runs=("$BUILD/logs/results")

if [ "${DEVMEM_DEBUG:-1}" = 1 ]; then
	echo
	say "debug kernel (KASAN, lockdep, kmemleak): build and run the subset in harness/debug-subset"
	args=$(grep -v '^#' "$H/debug-subset" | sed 's/^/-t /' | xargs)
	if VARIANT=debug "$H/kernel.sh" && VARIANT=debug "$H/tools.sh"; then
		VARIANT=debug CHECK_LABEL="debug kernel" KSELFTEST_ARGS="$args" \
			DEVMEM_LONG_MIB=${DEVMEM_LONG_MIB:-128} "$H/check.sh" || rc=1
		runs+=("$BUILD/logs-debug/results")
	else
		echo "FAIL	debug kernel build" > "$BUILD/logs-debug/results"
		runs+=("$BUILD/logs-debug/results")
		rc=1
	fi
fi

# One closing line for everything that ran.
all=$(cat "${runs[@]}" 2>/dev/null || true)
passed=$(echo "$all" | grep -c '^PASS' || true)
failed=$(echo "$all" | grep -c '^FAIL' || true)
skipped=$(echo "$all" | grep -c '^SKIP' || true)
echo
if [ "$failed" -gt 0 ]; then
	echo "failed:"
	for f in "${runs[@]}"; do
		grep '^FAIL' "$f" 2>/dev/null | sed "s|^FAIL\t|  $(basename "$(dirname "$f")"): |"
	done
fi
summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ] && [ $rc = 0 ]
