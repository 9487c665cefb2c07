#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build every prefix of the series: check out each commit of the series
# in turn (build/series-build, a worktree kept between runs) and build
# vmlinux with the kernel's config fragment into build/obj-series, with
# ccache. Consecutive commits share their objects, so each step rebuilds
# what the patch touched. Prints "<patch> builds" per patch and stops at
# the first that does not.
#
# Usage: series-build.sh <file of "patch commit" lines, in series order>
# SERIES_FROM=N starts at patch N (the earlier prefixes built before).
. "$(dirname "$0")/lib.sh"

LIST=$1
WT=$BUILD/series-build
SOBJ=$BUILD/obj-series
SLOG=$LOGS/series-build.log
export CCACHE_BASEDIR=$BUILD
mkdir -p "$SOBJ" "$LOGS"

if ! git -C "$WT" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	rm -rf "$WT"
	git -C "$SRC" worktree prune
	git -C "$SRC" worktree add -q --detach "$WT" base
fi

KMAKE=(make -C "$WT" O="$SOBJ" LOCALVERSION=-devmem-series
       CC="ccache gcc" HOSTCC="ccache gcc" KBUILD_BUILD_USER=devmem
       KBUILD_BUILD_HOST=qemu)

n=0
from=${SERIES_FROM:-1}
while read -r patch commit; do
	n=$((n + 1))
	[ "$n" -ge "$from" ] || continue
	git -C "$WT" checkout -q --detach "$commit"
	# Options a patch adds (NET_DEVMEM, HDSIM...) get the fragment's
	# value from the commit that adds them on.
	"${KMAKE[@]}" -s tinyconfig >/dev/null 2>&1
	"$WT/scripts/kconfig/merge_config.sh" -m -O "$SOBJ" "$SOBJ/.config" \
		$FRAGMENT >/dev/null 2>&1
	"${KMAKE[@]}" -s olddefconfig >/dev/null 2>&1
	start=$(date +%s)
	if ! "${KMAKE[@]}" -j"$JOBS" vmlinux > "$SLOG" 2>&1; then
		grep -E 'error|Error' "$SLOG" | head -n 20 >&2
		die "patch $n, $patch, does not build (log: $SLOG)"
	fi
	if grep -E '^(\.\./)?[a-z].*warning:' "$SLOG" | head -n 5 | grep .; then
		die "patch $n, $patch, builds with warnings (log: $SLOG)"
	fi
	printf '%2d %s builds (%d s)\n' "$n" "$patch" $(($(date +%s) - start))
done < "$LIST"
if [ "$from" -gt 1 ]; then
	say "series: prefixes $from to $n build (1 to $((from - 1)) not rebuilt: SERIES_FROM)"
else
	say "series: all $n prefixes build"
fi
