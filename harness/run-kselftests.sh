#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the built kernel (VARIANT selects which) in QEMU, run the installed
# kselftests (KSELFTEST_ARGS: run_kselftest.sh arguments, e.g. -t), report
# one line per test case with its time, and "LABEL: N passed, N failed[, N
# skipped]". Fails on a failed or hung test, on a guest kernel splat or
# kmemleak report, or if the VM does not come back. Results also go to
# $LOGS/results for check.sh.
. "$(dirname "$0")/lib.sh"

# the debug and KCSAN kernels run several times slower under TCG
if [ "$VARIANT" = debug ] || [ "$VARIANT" = kcsan ]; then
	VM_TIMEOUT=${VM_TIMEOUT:-5400}
else
	VM_TIMEOUT=${VM_TIMEOUT:-2400}
fi
[ -x "$KST/run_kselftest.sh" ] || die "no kselftests in $KST (run: make tools)"

mkdir -p "$LOGS"
rm -f "$LOGS"/{guest-kernel,kselftest.log,kselftest.times,dmesg.log,console.log,guest-start,kmemleak.log,kcsan-stats.log,results}
say "booting $(cat "$OBJ/include/config/kernel.release") in QEMU, running kselftests (console: $LOGS/console.log)"
t0=$(date +%s.%N)
set +e
: > "$LOGS/kselftest.log"
: > "$LOGS/kselftest.times"
# Follow the guest's log as it is written: every line with the time it
# arrived goes to kselftest.times (per-test times below), results to the
# terminal.
follow()
{
	local line

	while IFS= read -r line; do
		printf '%s %s\n' "$EPOCHREALTIME" "$line" >> "$LOGS/kselftest.times"
		case $line in
		"ok "* | "not ok "* | "# ok "* | "# not ok "*) echo "$line" ;;
		esac
	done
}
tail -n +1 -F "$LOGS/kselftest.log" 2>/dev/null > >(follow) &
tailer=$!
# Variables the tests read, passed into the guest when set.
guest_env=
[ -n "${DEVMEM_LONG_MIB:-}" ] && guest_env="DEVMEM_LONG_MIB=$DEVMEM_LONG_MIB"
[ -n "${DEVMEM_TX_LONG_MIB:-}" ] && guest_env+=" DEVMEM_TX_LONG_MIB=$DEVMEM_TX_LONG_MIB"
[ -n "${FUZZ_NL_MSGS:-}" ] && guest_env+=" FUZZ_NL_MSGS=$FUZZ_NL_MSGS"
[ -n "${PEER_FUZZ_ROUNDS:-}" ] && guest_env+=" PEER_FUZZ_ROUNDS=$PEER_FUZZ_ROUNDS"
[ -n "${DEVMEM_STREAMS:-}" ] && guest_env+=" DEVMEM_STREAMS=$DEVMEM_STREAMS"
[ "${VM_IOMMU:-0}" = 1 ] && guest_env+=" DEVMEM_E1000E_IOMMU=1"
# liburing's own tests (harness/liburing.sh), for liburing.sh in the guest
[ -x "$BUILD/liburing/src/test/zcrx.t" ] &&
	guest_env+=" LIBURING_TESTS=$BUILD/liburing/src/test"
# ovs-dpctl, taken out of its package by harness/deps.sh
[ -x "$BUILD/ovs/usr/bin/ovs-dpctl" ] && guest_env+=" PATH=$BUILD/ovs/usr/bin:$PATH"
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

# Per-test results from the guest's timestamped output (guest-run.sh).
# Nested results ("# ok N name") are the test cases of the program
# announced by the next top-level line; a case's time runs from the line
# before it that started it ("#  RUN" of the C harness, the previous
# result, or the program's start), so it includes setup and teardown.
times=$LOGS/kselftest.times
results=$(awk '
function flush(top_ok, name, reason, secs) {
	if (nested_n == 0) {
		printf "%s\t%s%s (%.1f s)\n", top_ok ? (reason ~ /SKIP/ ? "SKIP" : "PASS") : "FAIL", name, reason, secs
	} else {
		for (i = 0; i < nested_n; i++)
			print nested[i]
		if (!top_ok && nested_fail == 0)
			print "FAIL\t" name " (exit status" reason ")"
	}
	nested_n = 0; nested_fail = 0
}
{ ts = $1; sub(/^[^ ]* /, "") }
/^# selftests: / { prog = $0; sub(/^# selftests: /, "", prog); sub(/: /, "/", prog); start = ts; mark = ts; next }
/^# #  RUN / { mark = ts; next }
/^# (not )?ok [0-9]+ / {
	line = $0; sub(/^# /, "", line)
	ok = (line !~ /^not /)
	sub(/^(not )?ok [0-9]+ /, "", line)
	if (line ~ /# SKIP/) st = "SKIP"; else st = ok ? "PASS" : "FAIL"
	if (st == "FAIL") nested_fail++
	nested[nested_n++] = sprintf("%s\t%s: %s (%.1f s)", st, prog, line, ts - mark)
	mark = ts
	next
}
/^(not )?ok [0-9]+ selftests: / {
	line = $0; ok = (line !~ /^not /)
	sub(/^(not )?ok [0-9]+ selftests: /, "", line)
	reason = ""
	if (match(line, / # .*/)) { reason = substr(line, RSTART); line = substr(line, 1, RSTART - 1) }
	sub(/: /, "/", line)
	flush(ok, line, reason, ts - start)
}' "$times" 2>/dev/null || true)

# The kernel that booted is the one this build produced (a stale image
# must not pass the suite): release and version strings as built.
booted_kernel()
{
	local want_rel want_ver

	want_rel=$(cat "$OBJ/include/config/kernel.release")
	want_ver=$(sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' \
		"$OBJ/include/generated/utsversion.h" "$OBJ/include/generated/compile.h" \
		2>/dev/null | head -n1)
	if [ "$(head -n1 "$LOGS/guest-kernel" 2>/dev/null)" = "$want_rel" ] &&
	   [ -n "$want_ver" ] && grep -qF -- "$want_ver" "$LOGS/guest-kernel"; then
		printf 'PASS\tharness: booted the kernel just built (%s %s)\n' "$want_rel" "$want_ver"
	else
		printf 'FAIL\tharness: booted %s, built %s %s\n' \
			"$(tr '\n' ' ' < "$LOGS/guest-kernel" 2>/dev/null)" "$want_rel" "$want_ver"
	fi
}
results=$(booted_kernel; echo "$results")

# Checks run on the host before the VM (checkpatch, spec consistency).
[ -f "$LOGS/host-results" ] && results=$(cat "$LOGS/host-results"; echo "$results")

echo
echo "$results" | grep -v '^$' | sed 's/\t/  /' || true

# problems: what went wrong, for the FAIL line (the closing report of
# `make check` shows only that line: it must say what to look for)
problems=
if [ ! -f "$LOGS/dmesg.log" ]; then
	echo
	echo "!!! the VM did not finish the test run (exit $vm_rc; timeout ${VM_TIMEOUT}s?). Last console lines:"
	tail -n 40 "$LOGS/console.log"
	problems="the VM did not finish (exit $vm_rc, limit ${VM_TIMEOUT}s)"
fi
if splats_in "$LOGS/console.log" "$LOGS/dmesg.log"; then
	problems="${problems:+$problems; }$(splat_count "$LOGS/console.log" "$LOGS/dmesg.log") kernel reports, the first: $(grep -hsE -m1 "$SPLAT_RE" "$LOGS/console.log" "$LOGS/dmesg.log" |
		sed -n '1{s/^\[ *[0-9.]*\] //;p}' | cut -c1-160)"
fi
if [ -s "$LOGS/kmemleak.log" ]; then
	echo
	echo "!!! kmemleak found unreferenced objects ($LOGS/kmemleak.log):"
	head -n 60 "$LOGS/kmemleak.log"
	problems="${problems:+$problems; }kmemleak: $(grep -c '^unreferenced object' "$LOGS/kmemleak.log" || true) unreferenced objects"
fi
if [ "$VARIANT" = debug ]; then
	echo
	leaks=$(grep -c '^unreferenced object' "$LOGS/kmemleak.log" 2>/dev/null || true)
	echo "debug kernel: $(splat_count "$LOGS/console.log" "$LOGS/dmesg.log") KASAN/lockdep/WARN reports," \
		"${leaks:-0} kmemleak reports"
fi
slow=$(echo "$results" | sed -n 's/^\(PASS\|FAIL\)\t\(.*\) (\([0-9.]*\) s)$/\3 \2/p' |
	sort -rn | awk 'NR <= 3 {t = $1; $1 = ""; printf "%s%s (%s s)", sep, substr($0, 2), t; sep = ", "}')
[ -n "$slow" ] && echo "slowest: $slow"

{
	echo "$results" | grep -v '^$' || true
	[ -n "$problems" ] && printf 'FAIL\tkernel log clean and VM back (%s): %s\n' "$LOGS" "$problems"
} > "$LOGS/results"

echo
echo "${CHECK_LABEL:+$CHECK_LABEL: }$(summary "$LOGS/results")"
! grep -q '^FAIL' "$LOGS/results" && grep -q '^PASS' "$LOGS/results"
