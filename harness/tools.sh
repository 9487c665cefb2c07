#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the uapi headers and build/install the kselftests against them.
. "$(dirname "$0")/lib.sh"
build_lock

[ -f "$OBJ/include/config/kernel.release" ] || die "no kernel built in $OBJ (run: make kernel)"

# scale_timeouts: the debug and KCSAN kernels run several times slower under TCG:
# scale the per-test timeouts (settings) by DEBUG_TIMEOUT_SCALE.
scale_timeouts()
{
	local f t

	case $VARIANT in debug|kcsan) ;; *) return 0 ;; esac
	for f in "$KST"/*/*/*/settings; do
		[ -f "$f" ] || continue
		t=$(sed -n 's/^timeout=//p' "$f")
		sed -i "s/^timeout=.*/timeout=$((t * ${DEBUG_TIMEOUT_SCALE:-4}))/" "$f"
	done
}

# KST_FROM=<dir>: the kselftests another variant of the same tree built
# (make check: the debug kernel takes the plain kernel's). They are user
# programs built against the uAPI headers, which no config changes: a
# copy, not a second build.
if [ -n "${KST_FROM:-}" ] && [ -x "$KST_FROM/run_kselftest.sh" ]; then
	rm -rf "$KST"
	cp -a "$KST_FROM" "$KST"
	scale_timeouts
	say "tools: kselftests copied from $KST_FROM into $KST"
	exit 0
fi

KMAKE=(make -C "$SRC" O="$OBJ" LOCALVERSION="$LOCALVERSION")
say "tools: headers_install -> $HDR"
"${KMAKE[@]}" -s headers_install INSTALL_HDR_PATH="$HDR"

TARGETS=$(cat "$REPO/harness/data/kselftest-targets" | grep -v '^#' | xargs)
say "tools: building kselftests ($TARGETS)"
rm -rf "$KST"
mkdir -p "$LOGS"
# build_failed <what>: the log's errors, then die
build_failed()
{
	grep -E 'error|Error' "$LOGS/kselftest-build.log" | head -n 40 >&2
	die "$1 (log: $LOGS/kselftest-build.log)"
}
make -C "$SRC/tools/testing/selftests" O="$OBJ" TARGETS="$TARGETS" \
	KHDR_INCLUDES="-isystem $HDR/include" KSFT_INSTALL_PATH="$KST" \
	install > "$LOGS/kselftest-build.log" 2>&1 ||
	build_failed "kselftest build failed"
# "install" goes on past a target whose build failed and leaves it out
for t in $TARGETS; do
	[ -d "$KST/$t" ] || build_failed "kselftest target $t did not build"
done
grep -E 'warning:' "$LOGS/kselftest-build.log" | head -n 20 || true

# The sample, with its own Makefile, as a user builds it (the kselftests
# build their own copy to run it in the VM).
say "tools: building samples/devmem with its Makefile"
mkdir -p "$BUILD/samples/devmem"
make -s -C "$BUILD/samples/devmem" -f "$SRC/samples/devmem/Makefile" \
	KHDR="$HDR/include" >> "$LOGS/kselftest-build.log" 2>&1 ||
	die "samples/devmem does not build (log: $LOGS/kselftest-build.log)"

# liburing's tests, built with liburing's own headers (liburing.sh)
"$REPO/harness/liburing.sh" build
# make bench's TCG plugin (harness/tcg-count.sh)
"$REPO/harness/tcg-count.sh" build

scale_timeouts
say "tools: kselftests installed in $KST"
