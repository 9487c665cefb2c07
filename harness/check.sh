#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the built kernel in QEMU, run the installed kselftests, report.
# Prints every test's result and a closing line "N passed, N failed[, N skipped]".
# Fails on a failed/hung test, on a guest WARN/BUG/oops/panic, or if the VM
# does not come back.
. "$(dirname "$0")/lib.sh"

# the debug kernel runs several times slower under TCG
if [ "$VARIANT" = debug ]; then
	VM_TIMEOUT=${VM_TIMEOUT:-5400}
else
	VM_TIMEOUT=${VM_TIMEOUT:-2400}
fi
[ -x "$KST/run_kselftest.sh" ] || die "no kselftests in $KST (run: make tools)"

mkdir -p "$LOGS"
rm -f "$LOGS"/{kselftest.log,dmesg.log,console.log,guest-start,kmemleak.log,results}
say "booting $(cat "$OBJ/include/config/kernel.release") in QEMU, running kselftests (console: $LOGS/console.log)"
t0=$(date +%s.%N)
set +e
: > "$LOGS/kselftest.log"
tail -n +1 -F "$LOGS/kselftest.log" 2>/dev/null |
	grep --line-buffered -E '^(# )?(not )?ok [0-9]' &
tailer=$!
# Variables the tests read, passed into the guest when set.
guest_env=
[ -n "${DEVMEM_LONG_MIB:-}" ] && guest_env="DEVMEM_LONG_MIB=$DEVMEM_LONG_MIB"
timeout --kill-after=15 "$VM_TIMEOUT" "$REPO/harness/vm.sh" --exec \
	"env $guest_env $REPO/harness/guest-run.sh $KST $LOGS ${KSELFTEST_ARGS:-}" \
	> "$LOGS/console.log" 2>&1
vm_rc=$?
sleep 1
kill $tailer 2>/dev/null
wait $tailer 2>/dev/null
set -e
if [ -f "$LOGS/guest-start" ]; then
	boot=$(echo "$(cat "$LOGS/guest-start") - $t0" | bc)
	say "VM boot to first test: ${boot%.*}.$(echo "${boot#*.}" | cut -c1) s ($(cat "$BUILD/accel" 2>/dev/null || echo ?))"
fi

# Per-test results. Nested results ("# ok N name") are the test cases of the
# program announced by the next top-level line.
results=$(awk '
function flush(top_ok, name, reason) {
	if (nested_n == 0) {
		print (top_ok ? (reason ~ /SKIP/ ? "SKIP" : "PASS") : "FAIL") "\t" name reason
	} else {
		for (i = 0; i < nested_n; i++)
			print nested[i]
		if (!top_ok && nested_fail == 0)
			print "FAIL\t" name " (exit status" reason ")"
	}
	nested_n = 0; nested_fail = 0
}
/^# (not )?ok [0-9]+ / {
	line = $0; sub(/^# /, "", line)
	ok = (line !~ /^not /)
	sub(/^(not )?ok [0-9]+ /, "", line)
	if (line ~ /# SKIP/) st = "SKIP"; else st = ok ? "PASS" : "FAIL"
	if (st == "FAIL") nested_fail++
	nested[nested_n++] = st "\t" prog ": " line
	next
}
/^# selftests: / { prog = $0; sub(/^# selftests: /, "", prog); sub(/: /, "/", prog) }
/^(not )?ok [0-9]+ selftests: / {
	line = $0; ok = (line !~ /^not /)
	sub(/^(not )?ok [0-9]+ selftests: /, "", line)
	reason = ""
	if (match(line, / # .*/)) { reason = substr(line, RSTART); line = substr(line, 1, RSTART - 1) }
	sub(/: /, "/", line)
	flush(ok, line, reason)
}' "$LOGS/kselftest.log" 2>/dev/null || true)

# Checks run on the host before the VM (checkpatch, spec consistency).
[ -f "$LOGS/host-results" ] && results=$(cat "$LOGS/host-results"; echo "$results")

echo
echo "$results" | grep -v '^$' | sed 's/\t/  /' || true
passed=$(echo "$results" | grep -c '^PASS' || true)
failed=$(echo "$results" | grep -c '^FAIL' || true)
skipped=$(echo "$results" | grep -c '^SKIP' || true)

problems=0
if [ ! -f "$LOGS/dmesg.log" ]; then
	echo
	echo "!!! the VM did not finish the test run (exit $vm_rc; timeout ${VM_TIMEOUT}s?). Last console lines:"
	tail -n 40 "$LOGS/console.log"
	failed=$((failed + 1))
	problems=1
fi
splat='(Kernel panic|BUG:|WARNING:|Oops|general protection|KASAN|UBSAN|kmemleak: [0-9]+ new suspected|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU|INFO: task .* blocked)'
if grep -qE "$splat" "$LOGS/console.log" "$LOGS/dmesg.log" 2>/dev/null; then
	echo
	echo "!!! kernel reported problems during the run:"
	grep -hE -A 12 "$splat" "$LOGS/dmesg.log" "$LOGS/console.log" 2>/dev/null | head -n 60
	failed=$((failed + 1))
	problems=1
fi
if [ -s "$LOGS/kmemleak.log" ]; then
	echo
	echo "!!! kmemleak found unreferenced objects ($LOGS/kmemleak.log):"
	head -n 60 "$LOGS/kmemleak.log"
	failed=$((failed + 1))
	problems=1
fi
if [ "$VARIANT" = debug ]; then
	echo
	leaks=$(grep -c '^unreferenced object' "$LOGS/kmemleak.log" 2>/dev/null || true)
	echo "debug kernel: $(grep -cE "$splat" "$LOGS/console.log" "$LOGS/dmesg.log" 2>/dev/null |
		awk -F: '{s += $2} END {print s + 0}') KASAN/lockdep/WARN reports," \
		"${leaks:-0} kmemleak reports"
fi

# For check-all.sh, which sums the normal and the debug kernel's runs.
{
	echo "$results" | grep -v '^$' || true
	[ $problems = 1 ] && printf 'FAIL\tkernel log clean (%s)\n' "$LOGS"
} > "$LOGS/results"

echo
summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary="$summary, $skipped skipped"
echo "${CHECK_LABEL:+$CHECK_LABEL: }$summary"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ] && [ $problems = 0 ]
