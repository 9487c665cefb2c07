#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kselftests build at every prefix of the series, as the kernel does
# (harness/series-build.sh): at each commit, the uapi headers installed
# from that commit and the kselftest TARGETS of harness/data/kselftest-
# targets that exist there, built and installed. A prefix with none of
# them (before the first selftests patch) has nothing to build.
#
# Usage: series-kselftests.sh <file of "patch commit" lines, in order>
#
# Each prefix that builds is recorded in patches/kselftests.built with a
# hash of what the build reads at that commit: the blobs under
# tools/testing/selftests (its Makefiles, lib.mk, kselftest headers and
# the targets), include/uapi, arch/x86/include/uapi, samples/devmem and
# tools/net, and this script. A prefix whose inputs are the ones of the
# prefix before it (a patch outside them) is recorded without a build:
# the build would be the same. SERIES_STALE=1 (make check) builds only
# the prefixes the record does not match, at most SERIES_STALE_MAX (3).
. "$(dirname "$0")/lib.sh"

LIST=$1
RECORD=$REPO/patches/kselftests.built
prefix_record_init "$RECORD" \
	"Prefixes of the series whose kselftests built (harness/series-" \
	"kselftests.sh): patch, hash of what the build reads. Written by it."
WT=$BUILD/series-kst
KOBJ=$BUILD/obj-series-kst
KLOG=$LOGS/series-kselftests.log
mkdir -p "$KOBJ" "$LOGS"

series_worktree "$WT"

TARGETS=$(grep -v '^#' "$REPO/harness/data/kselftest-targets" | xargs)
READS=(tools/testing/selftests include/uapi arch/x86/include/uapi
       samples/devmem tools/net)
self_hash=$(cat "$0" "$REPO/harness/data/kselftest-targets" | sha1sum | cut -c1-40)
inputs_hash() {
	{
		git -C "$SRC" ls-tree -r --full-tree "$1" -- "${READS[@]}"
		echo "$self_hash"
	} | sha1sum | cut -c1-40
}
record() { prefix_record "$RECORD" "$@"; }

built=0 same=0 kept=0 none=0 n=0 prev=
while read -r patch commit; do
	n=$((n + 1))
	h=$(inputs_hash "$commit")
	if grep -qx "$patch $h" "$RECORD"; then
		kept=$((kept + 1)) prev=$h
		continue
	fi
	if [ "$h" = "$prev" ]; then
		record "$patch" "$h"
		same=$((same + 1))
		continue
	fi
	targets=
	for t in $TARGETS; do
		git -C "$SRC" cat-file -e "$commit:tools/testing/selftests/$t" 2>/dev/null &&
			targets="$targets $t"
	done
	if [ -z "$targets" ]; then
		record "$patch" "$h"
		none=$((none + 1)) prev=$h
		continue
	fi
	if [ "${SERIES_STALE:-0}" = 1 ] && [ $built -ge "${SERIES_STALE_MAX:-3}" ]; then
		die "more than ${SERIES_STALE_MAX:-3} prefixes' kselftests to build: run make series and commit patches/kselftests.built"
	fi
	start=$(date +%s)
	git -C "$WT" checkout -q --detach "$commit"
	# headers of a later prefix would stay behind (and break the install)
	rm -rf "$KOBJ/kst" "$KOBJ/out" "$KOBJ/hdr" "$KOBJ/usr/include"
	if ! make -s -j"$JOBS" -C "$WT" O="$KOBJ" headers_install \
		INSTALL_HDR_PATH="$KOBJ/hdr" > "$KLOG" 2>&1 ||
	   ! make -j"$JOBS" -C "$WT/tools/testing/selftests" O="$KOBJ/out" \
		TARGETS="$targets" KHDR_INCLUDES="-isystem $KOBJ/hdr/include" \
		KSFT_INSTALL_PATH="$KOBJ/kst" install >> "$KLOG" 2>&1; then
		grep -E 'error|Error|No rule' "$KLOG" | head -n 20 >&2
		die "patch $n, $patch: the kselftests do not build (log: $KLOG)"
	fi
	# "install" goes on past a target whose build failed
	for t in $targets; do
		[ -d "$KOBJ/kst/$t" ] ||
			die "patch $n, $patch: kselftest target $t did not build (log: $KLOG)"
	done
	record "$patch" "$h"
	built=$((built + 1)) prev=$h
	printf '%2d %s: kselftests build (%s; %d s)\n' "$n" "$patch" \
		"${targets# }" $(($(date +%s) - start))
done < "$LIST"
prefix_record_tidy "$RECORD"
say "series: kselftests at every prefix: $built built now, $same recorded as their inputs are the prefix before's, $none with no selftests yet, $kept recorded before"
