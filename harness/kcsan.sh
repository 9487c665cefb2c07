#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The KCSAN kernel (config/kcsan.config): build it, boot it, run the
# concurrency-heavy kselftests of harness/data/kcsan-tests in two VMs
# side by side, then sort the data races it reported
# (harness/kcsan-report.py): a run passes with its tests passing and no
# race in our code that harness/data/kcsan-explained does not explain.
# The summary is written to harness/data/kcsan-result, the record of the
# last run, committed with the code it ran: `make check` does not build
# this kernel (a third cold kernel build does not fit its time budget).
#   kcsan.sh		build, run, report (make check-kcsan)
#   kcsan.sh report	sort the last run's logs again
export VARIANT=kcsan
. "$(dirname "$0")/lib.sh"

H=$REPO/harness
RESULT=$REPO/harness/data/kcsan-result
report()
{
	python3 "$H/kcsan-report.py" "$SRC" "$REPO/harness/data/kcsan-explained" \
		"$LOGS/kcsan-stats.log" "$LOGS-2/kcsan-stats.log" \
		"$LOGS/console.log" "$LOGS-2/console.log"
}
if [ "${1:-}" = report ]; then
	report
	exit
fi

mkdir -p "$LOGS"
# the kselftests are the plain kernel's (user programs against the same
# uAPI headers): built there if need be, copied here
if [ ! -x "$BUILD/kselftest/run_kselftest.sh" ]; then
	VARIANT= "$H/kernel.sh"
	VARIANT= "$H/tools.sh"
fi
"$H/kernel.sh"
KST_FROM=$BUILD/kselftest "$H/tools.sh"

tests()
{
	awk -v vm="$1" '!/^#/ && NF && $2 == vm {print "-t " $1}' \
		"$REPO/harness/data/kcsan-tests" | xargs
}
run() { run_slow_kernel "$@"; }
# two vCPUs each: a data race needs two CPUs to meet on
export VM_CPUS=${VM_CPUS:-2}
rm -rf "$LOGS-2"
mkdir -p "$LOGS-2"
say "two KCSAN VMs side by side; the second's results follow the first's (its log: $LOGS-2/run.log)"
LOGS_SUFFIX=-2 run "KCSAN kernel, VM 2" "$(tests 2)" > "$LOGS-2/run.log" 2>&1 &
second=$!
rc=0
run "KCSAN kernel, VM 1" "$(tests 1)" || rc=1
wait $second || rc=1
cat "$LOGS-2/run.log"

echo
report > "$LOGS/kcsan-report.txt" || rc=1
cat "$LOGS/kcsan-report.txt"
{
	echo "# The last run of make check-kcsan (harness/kcsan.sh); written by it."
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "tree: $(tree_version) + $(git -C "$REPO" rev-parse --short HEAD)$(git -C "$REPO" diff --quiet HEAD -- net include drivers io_uring config || echo ' (with uncommitted changes)')"
	echo "kernel: $(cat "$OBJ/include/config/kernel.release")"
	echo "tests: $(summary "$LOGS/results" "$LOGS-2/results")"
	sed -n '/^KCSAN/p; /^ours:/,$p' "$LOGS/kcsan-report.txt" | grep -v '^    '
} > "$RESULT"
say "recorded in $RESULT"
exit $rc
