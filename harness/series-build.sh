#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build every prefix of the series: check out each commit of the series
# in turn (build/series-build, a worktree kept between runs) and build
# vmlinux with config/devmem.config into build/obj-series, with
# ccache. Consecutive commits share their objects, so each step rebuilds
# what the patch touched. Prints "<patch> builds" per patch and stops at
# the first that does not.
#
# Usage: series-build.sh <file of "patch commit" lines, in series order>
# SERIES_FROM=N starts at patch N (the earlier prefixes built before).
#
# Each prefix that builds is recorded in patches/series.built with a hash
# of what its build reads: the patch's own diff (its quilt patch and the
# new files it lands, as the commit has them) without documentation,
# selftests and tools, and the config fragment. Commit that file with
# the series. SERIES_STALE=1 (make check) builds only the
# prefixes the record does not match, and those that touch a file a
# stale prefix touches, at most SERIES_STALE_MAX of them (default 2: a
# cold prefix build is about 10 minutes on 2 cores); with more it fails
# and asks for `make series`.
. "$(dirname "$0")/lib.sh"

LIST=$1
RECORD=$REPO/patches/series.built
prefix_record_init "$RECORD" \
	"Prefixes of the series that built (harness/series-build.sh): patch," \
	"hash of what its build reads and of the config. Written by the build."
WT=$BUILD/series-build
SOBJ=$BUILD/obj-series
SLOG=$LOGS/series-build.log
export CCACHE_BASEDIR=$BUILD
mkdir -p "$SOBJ" "$LOGS"

series_worktree "$WT"

KMAKE=(make -C "$WT" O="$SOBJ" LOCALVERSION=-devmem-series
       CC="ccache gcc" HOSTCC="ccache gcc" KBUILD_BUILD_USER=devmem
       KBUILD_BUILD_HOST=qemu)

# Every prefix builds as the small kernel: tinyconfig + devmem.config
# (the test kernel's Debian options are written from the tree itself,
# harness/fleet-config.sh, and would make every prefix stale).
FRAGMENT=$REPO/config/devmem.config
frag_hash=$(cat $FRAGMENT | sha1sum | cut -c1-40)
# What the build of prefix <commit> reads of it: its own diff outside
# the paths vmlinux never reads (documentation, selftests, tools, the
# sample, MAINTAINERS), and the config fragment. Full blob ids and no
# rename detection: the same text on any machine.
NOT_BUILT=(':(exclude)Documentation' ':(exclude)tools/testing'
	   ':(exclude)tools/net' ':(exclude)samples' ':(exclude)MAINTAINERS')
prefix_diff() {
	git -C "$SRC" -c core.quotepath=on diff-tree -r --full-index \
		--no-renames --no-color --no-ext-diff --no-commit-id "$@"
}
prefix_hash() {
	{
		prefix_diff -p "$1^" "$1" -- . "${NOT_BUILT[@]}"
		echo "$frag_hash"
	} | sha1sum | cut -c1-40
}

record() { prefix_record "$RECORD" "$@"; }

if [ "${SERIES_STALE:-0}" = 1 ]; then
	# Stale: no line for the patch with this hash. A prefix that shares
	# a file with an earlier stale one is built as well: the earlier
	# change may have moved what it patches.
	stale_files=
	stale=0
	total=0
	: > "$BUILD/series-stale"
	while read -r patch commit; do
		total=$((total + 1))
		files=$(prefix_diff --name-only "$commit^" "$commit" -- . "${NOT_BUILT[@]}")
		build=0
		grep -qx "$patch $(prefix_hash "$commit")" "$RECORD" || build=1
		for f in $files; do
			case " $stale_files " in *" $f "*) build=1 ;; esac
		done
		[ $build = 1 ] || continue
		stale=$((stale + 1))
		stale_files="$stale_files $files"
		echo "$patch $commit $total" >> "$BUILD/series-stale"
	done < "$LIST"
	if [ $stale = 0 ]; then
		say "series: all $total prefixes recorded as built (patches/series.built)"
		exit 0
	fi
	say "series: $stale of $total prefixes not recorded as built:"
	awk '{print "  " $3 " " $1}' "$BUILD/series-stale"
	[ $stale -le "${SERIES_STALE_MAX:-2}" ] ||
		die "more than ${SERIES_STALE_MAX:-2} prefixes to build: run make series and commit patches/series.built"
	LIST=$BUILD/series-stale
fi

n=0
from=${SERIES_FROM:-1}
while read -r patch commit idx; do
	n=$((n + 1))
	[ "$n" -ge "$from" ] || continue
	idx=${idx:-$n}
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
		die "patch $idx, $patch, does not build (log: $SLOG)"
	fi
	if grep -E '^(\.\./)?[a-z].*warning:' "$SLOG" | head -n 5 | grep .; then
		die "patch $idx, $patch, builds with warnings (log: $SLOG)"
	fi
	record "$patch" "$(prefix_hash "$commit")"
	printf '%2d %s builds (%d s)\n' "$idx" "$patch" $(($(date +%s) - start))
done < "$LIST"
prefix_record_tidy "$RECORD"
if [ "${SERIES_STALE:-0}" = 1 ]; then
	say "series: the $n prefixes not recorded build; the rest are recorded as built"
elif [ "$from" -gt 1 ]; then
	say "series: prefixes $from to $n build (1 to $((from - 1)) not rebuilt: SERIES_FROM)"
else
	say "series: all $n prefixes build"
fi
