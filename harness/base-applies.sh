#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# base-applies.sh <version>: true if the quilt series applies, without
# fuzz, to Debian's linux-source-6.1 <version>. No build and no install:
# the package is fetched with `apt-get download` into build/archive (or
# the installed tarball is read when it is that version), only the files
# the series changes are unpacked, and quilt pushes the series onto them.
# The answer is kept per version and series in build/archive/applies-*,
# so the check costs its half minute of unpacking once.
#
# BASE_APPLIES_FUZZ=N pushes with fuzz N (rebase.sh); BASE_APPLIES_KEEP=1
# leaves the pushed stage in build/archive/stage-<version>.
# On failure, the last lines say which patch, file and hunk failed.
. "$(dirname "$0")/lib.sh"

ver=${1:?usage: base-applies.sh <linux-source-6.1 version>}
ARCH_DIR=$BUILD/archive
mkdir -p "$ARCH_DIR"
key=$(cat "$REPO/patches/series" $(sed -n 's#^\([^# ][^ ]*\.patch\).*#'"$REPO"'/patches/\1#p' \
	"$REPO/patches/series") | sha1sum | cut -c1-12)
memo=$ARCH_DIR/applies-$ver-$key-fuzz${BASE_APPLIES_FUZZ:-0}
if [ -f "$memo" ] && [ "${BASE_APPLIES_KEEP:-0}" != 1 ]; then
	cat "$memo.log" 2>/dev/null | tail -n 4 >&2
	[ "$(cat "$memo")" = yes ]
	exit
fi

# the tarball of that revision: installed, or downloaded and kept
have=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)
if [ "$have" = "$ver" ] && [ -f "$BASE_TARBALL" ]; then
	tarball=$BASE_TARBALL
	from="installed $BASE_TARBALL"
else
	deb=$ARCH_DIR/linux-source-6.1_${ver#*:}_all.deb
	if [ ! -f "$deb" ]; then
		(cd "$ARCH_DIR" && apt-get download -q "linux-source-6.1=$ver" > /dev/null 2>&1) ||
			die "cannot download linux-source-6.1 $ver"
	fi
	tarball=$ARCH_DIR/linux-source-$ver.tar.xz
	if [ ! -f "$tarball" ]; then
		dpkg-deb --fsys-tarfile "$deb" |
			tar -xO ./usr/src/linux-source-6.1.tar.xz > "$tarball.tmp"
		mv "$tarball.tmp" "$tarball"
		rm -f "$deb"
	fi
	from="$deb (downloaded, not installed)"
fi

stage=$ARCH_DIR/stage-$ver
rm -rf "$stage"
mkdir -p "$stage"
series_patched_files > "$ARCH_DIR/files"
# the tarball's top directory is linux-source-6.1/
tar -xJf "$tarball" -C "$stage" --strip-components=1 \
	--wildcards --no-wildcards-match-slash \
	$(sed 's#^#linux-source-6.1/#' "$ARCH_DIR/files") 2> "$ARCH_DIR/tar.err" || true
series_quilt_list "$ARCH_DIR/series.quilt"
rc=0
(cd "$stage" && QUILT_PATCHES="$REPO/patches" QUILT_PC=.pc \
 QUILT_SERIES="$ARCH_DIR/series.quilt" \
 quilt push -a --fuzz="${BASE_APPLIES_FUZZ:-0}") > "$memo.log" 2>&1 || rc=$?
if [ $rc = 0 ]; then
	echo yes > "$memo"
	say "series applies to linux-source-6.1 $ver ($from)"
else
	echo no > "$memo"
	# quilt names the patch it was applying, then each failed hunk
	patch=$(sed -n 's/^Applying patch //p' "$memo.log" | tail -n 1)
	grep -E 'FAILED|can.t find file|does not exist|saving rejects' "$memo.log" |
		sed -n 's/^/    /; 1,10p' >&2
	echo "series does not apply to linux-source-6.1 $ver: patch ${patch##*/} (log: $memo.log)" >&2
fi
[ "${BASE_APPLIES_KEEP:-0}" = 1 ] || rm -rf "$stage"
[ $rc = 0 ]
