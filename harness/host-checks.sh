#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Checks that run on the host before the VM; results go to
# build/logs/host-results (or $HOST_RESULTS) in the format
# run-kselftests.sh reports.
# HOST_CHECKS_SKIP names checks the caller runs itself (check.sh runs
# build-noinet in the background).
. "$(dirname "$0")/lib.sh"

mkdir -p "$LOGS"
# HOST_RESULTS: where the results go (check.sh runs these checks beside
# the kernel's suite and adds their results to its own afterwards)
out=${HOST_RESULTS:-$LOGS/host-results}
: > "$out"

for c in $(grep -v '^#' "$REPO/harness/data/host-checks" | xargs); do
	case " ${HOST_CHECKS_SKIP:-} " in *" $c "*) continue ;; esac
	say "host check: $c"
	if "$REPO/harness/$c.sh" > "$LOGS/$c.log" 2>&1; then
		printf 'PASS\thost/%s\n' "$c" >> "$out"
		tail -n 1 "$LOGS/$c.log"
	else
		printf 'FAIL\thost/%s (log: %s)\n' "$c" "$LOGS/$c.log" >> "$out"
		sed 's/^/    /' "$LOGS/$c.log" | tail -n 40
	fi
done
exit 0
