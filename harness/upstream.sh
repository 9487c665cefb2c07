#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Upstream beside us (issue #75; plans/upstream-check.md): upstream's
# kernel as Debian serves it, built here to run the same tests on it.
#
#   upstream.sh fetch   the newest linux-source-7.x of Debian's
#                       experimental archive (apt lists of our own in
#                       build/upstream/apt; the system's sources are left
#                       alone), laid down as a git tree in build/upstream/src
#   upstream.sh build   tinyconfig + config/upstream.config, bzImage and
#                       modules in build/obj-upstream (harness/kernel.sh)
#
# Only its headers, documentation, driver-facing APIs and selftests are
# read; the tree is built, never copied from.
VARIANT=upstream
. "$(dirname "$0")/lib.sh"

UP=$BUILD/upstream
ARCHIVE=${UPSTREAM_ARCHIVE:-http://deb.debian.org/debian}
APT=(-o "Dir::Etc::sourcelist=$UP/apt/sources.list" -o Dir::Etc::sourceparts=-
     -o "Dir::State::Lists=$UP/apt/lists" -o "Dir::Cache=$UP/apt/cache")

fetch() {
	local pkg ver deb

	mkdir -p "$UP/apt/lists/partial" "$UP/apt/cache/archives/partial"
	echo "deb $ARCHIVE experimental main" > "$UP/apt/sources.list"
	apt-get "${APT[@]}" -q update > "$UP/apt/update.log" 2>&1 ||
		{ tail -n 5 "$UP/apt/update.log"; die "apt-get update of experimental failed"; }
	# the newest upstream version served, picked as the 6.1 base is:
	# by version, whatever revision the archive has that day
	pkg=$(apt-cache "${APT[@]}" pkgnames linux-source-7. | grep -x 'linux-source-7\.[0-9]*' |
		sort -V | tail -n 1)
	[ -n "$pkg" ] || die "experimental serves no linux-source-7.x"
	ver=$(apt-cache "${APT[@]}" policy "$pkg" | awk '/Candidate:/ {print $2}')
	if [ "$(cat "$UP/version" 2>/dev/null)" = "$pkg $ver" ] && [ -d "$SRC/.git" ]; then
		say "upstream: $pkg $ver in $SRC"
		return
	fi
	say "upstream: downloading $pkg $ver"
	(cd "$UP" && apt-get "${APT[@]}" -q download "$pkg=$ver" > /dev/null 2>&1) ||
		die "apt-get download $pkg=$ver failed"
	deb=$(ls "$UP/${pkg}_"*"_all.deb" | head -n 1)
	rm -rf "$SRC"
	mkdir -p "$SRC"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$pkg.tar.xz" |
		tar -xJ -C "$SRC" --strip-components=1
	git -C "$SRC" init -q
	# (-f: Debian's .gitignore ignores the top level of its tarball)
	git -C "$SRC" add -A -f
	git -C "$SRC" -c user.name=devmem -c user.email=devmem@localhost \
		commit -q -m "$pkg $ver (Debian experimental)"
	git -C "$SRC" tag base
	rm -f "$deb"
	echo "$pkg $ver" > "$UP/version"
	say "upstream: $pkg $ver in $SRC ($(make -s -C "$SRC" kernelversion))"
}

case "${1:-}" in
fetch) fetch ;;
build)
	[ -d "$SRC/.git" ] || die "no upstream tree (run: harness/upstream.sh fetch)"
	VARIANT=upstream "$REPO/harness/kernel.sh"
	;;
*) die "usage: upstream.sh fetch|build" ;;
esac
