#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# liburing's own tests, unmodified, against our kernel: test/ring-query.c
# (IORING_REGISTER_QUERY), test/zcrx.c (zero-copy receive) and
# test/nop32.c, nop32-overflow.c and cq-peek-batch-mixed.c (CQE_MIXED
# rings).
#
#   liburing.sh fetch   Debian's liburing source package (the version of
#                       config/liburing-version if the archive serves it,
#                       else the newest it serves, with a warning) into
#                       build/liburing/src, its orig tarball checked against
#                       the archive's SHA-256. From make deps (the set-up).
#   liburing.sh build   the library, those tests and the zcrx example,
#                       with the package's own headers (as a user of
#                       liburing builds them): build/liburing/src/test/
#                       <test>.t, build/liburing/src/examples/zcrx. From
#                       make tools.
#
# run-kselftests.sh hands the directory to the guest as LIBURING_TESTS,
# where drivers/net/devmem/liburing.sh runs them. A machine that cannot
# fetch the package still runs make check: the cases skip, saying so.
. "$(dirname "$0")/lib.sh"

LU=$BUILD/liburing
# the tests of liburing's test/ that drivers/net/devmem/liburing.sh runs
TESTS="ring-query zcrx nop32 nop32-overflow cq-peek-batch-mixed"
WANT=$(cat "$REPO/config/liburing-version")
ARCHIVE=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# liburing 2.15 is served by sid and forky, not by bookworm
SUITES="sid forky"

# served <suite>: liburing's source package in the suite (debian_source)
served() { debian_source "$ARCHIVE" "$1" liburing; }

fetch()
{
	local suite line pick= from= ver dir tar sum tmp

	if [ "$(cat "$LU/version" 2>/dev/null)" = "$WANT" ] &&
	   [ -f "$LU/src/test/zcrx.c" ]; then
		say "liburing $WANT in $LU (Debian's source package)"
		return 0
	fi
	for suite in $SUITES; do
		line=$(served "$suite" 2>/dev/null | head -n 1) || true
		[ -n "$line" ] || continue
		if [ -z "$pick" ] || [ "${line%% *}" = "$WANT" ]; then
			pick=$line
			from=$suite
		fi
		[ "${line%% *}" = "$WANT" ] && break
	done
	if [ -z "$pick" ]; then
		warn "liburing: no suite of $ARCHIVE serves its source package: liburing.sh will skip"
		return 0
	fi
	read -r ver dir tar sum <<< "$pick"
	[ "$ver" = "$WANT" ] ||
		warn "liburing: the archive serves $ver, not $WANT (config/liburing-version): testing $ver"
	tmp=$(mktemp -d)
	if ! curl -fsS --max-time 300 -o "$tmp/$tar" "$ARCHIVE/$dir/$tar"; then
		rm -rf "$tmp"
		warn "liburing: cannot download $ARCHIVE/$dir/$tar: liburing.sh will skip"
		return 0
	fi
	if [ "$(sha256sum < "$tmp/$tar" | cut -d' ' -f1)" != "$sum" ]; then
		rm -rf "$tmp"
		die "liburing: $tar does not match the archive's SHA-256"
	fi
	rm -rf "$LU"
	mkdir -p "$LU/src"
	tar -xf "$tmp/$tar" -C "$LU/src" --strip-components=1 ||
		die "liburing: cannot unpack $tar"
	rm -rf "$tmp"
	echo "$ver" > "$LU/version"
	say "liburing $ver in $LU (Debian's source package, $from)"
}

build()
{
	local t built

	if [ ! -f "$LU/src/configure" ]; then
		warn "liburing: no source in $LU/src (make deps fetches it): liburing.sh will skip"
		return 0
	fi
	built=1
	for t in $TESTS; do
		[ -x "$LU/src/test/$t.t" ] || built=0
	done
	if [ $built = 1 ] && [ -x "$LU/src/examples/zcrx" ]; then
		say "liburing $(cat "$LU/version"): tests built in $LU/src/test"
		return 0
	fi
	(
		cd "$LU/src" &&
		./configure > "$LU/build.log" 2>&1 &&
		make -j"$JOBS" -C src >> "$LU/build.log" 2>&1 &&
		for t in $TESTS; do
			make -C test "$t.t" >> "$LU/build.log" 2>&1 || exit 1
		done &&
		make -C examples zcrx >> "$LU/build.log" 2>&1
	) || die "liburing: build failed (log: $LU/build.log)"
	say "liburing $(cat "$LU/version"): $TESTS built in $LU/src/test, the zcrx example in $LU/src/examples"
}

case "${1:-}" in
fetch) fetch ;;
build) build ;;
*) die "usage: liburing.sh fetch|build" ;;
esac
