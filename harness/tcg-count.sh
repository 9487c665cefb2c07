#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The TCG plugin make bench counts with (harness/tcg-count/tcg_count.c):
# instructions per vCPU in kernel and user space, and CPU loads and stores
# into the benchmark's device memory.
#
#   tcg-count.sh fetch  include/qemu/qemu-plugin.h from Debian's qemu
#                       source package, the upstream version of the
#                       installed qemu-system-x86 (its orig tarball,
#                       checked against the archive's SHA-256), into
#                       build/tcg-count/include. From make deps.
#   tcg-count.sh build  build/tcg-count/tcg_count.so. From make tools.
#   tcg-count.sh opts <ctl> <out>
#                       the QEMU option that loads it (VM_QEMU_OPTS),
#                       driven through <ctl>, counts appended to <out>
#
# Without the header (no archive) the plugin is not built and make bench
# prints its times without counts, saying why.
. "$(dirname "$0")/lib.sh"

TC=$BUILD/tcg-count
ARCHIVE=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

fetch()
{
	local qver up line ver dir tar sum tmp

	qver=$(dpkg-query -W -f '${Version}' qemu-system-x86 2>/dev/null) ||
		{ warn "tcg-count: qemu-system-x86 is not installed"; return 0; }
	# 1:7.2+dfsg-7+deb12u18 -> 7.2+dfsg: every Debian revision of it
	# ships the same orig tarball
	up=${qver#*:}
	up=${up%-*}
	if [ "$(cat "$TC/version" 2>/dev/null)" = "$up" ] &&
	   [ -f "$TC/include/qemu-plugin.h" ]; then
		say "tcg-count: qemu-plugin.h of QEMU $up in $TC/include"
		return 0
	fi
	line=$(debian_source "$ARCHIVE" bookworm qemu 2>/dev/null) || true
	read -r ver dir tar sum <<< "$line"
	if [ -z "${tar:-}" ] || [ "$tar" != "qemu_$up.orig.tar.xz" ]; then
		warn "tcg-count: bookworm serves no qemu_$up.orig.tar.xz (${tar:-nothing}): make bench counts nothing"
		return 0
	fi
	tmp=$(mktemp -d)
	if ! curl -fsS --max-time 600 -o "$tmp/$tar" "$ARCHIVE/$dir/$tar"; then
		rm -rf "$tmp"
		warn "tcg-count: cannot download $ARCHIVE/$dir/$tar: make bench counts nothing"
		return 0
	fi
	[ "$(sha256sum < "$tmp/$tar" | cut -d' ' -f1)" = "$sum" ] ||
		{ rm -rf "$tmp"; die "tcg-count: $tar does not match the archive's SHA-256"; }
	rm -rf "$TC/include"
	mkdir -p "$TC/include"
	tar -xJf "$tmp/$tar" -C "$tmp" --wildcards '*/include/qemu/qemu-plugin.h' ||
		{ rm -rf "$tmp"; die "tcg-count: no qemu-plugin.h in $tar"; }
	cp "$tmp"/*/include/qemu/qemu-plugin.h "$TC/include/"
	rm -rf "$tmp"
	echo "$up" > "$TC/version"
	say "tcg-count: qemu-plugin.h of QEMU $up (Debian's $ver) in $TC/include"
}

build()
{
	local src=$REPO/harness/tcg-count/tcg_count.c

	if [ ! -f "$TC/include/qemu-plugin.h" ]; then
		warn "tcg-count: no qemu-plugin.h (make deps fetches it): make bench counts nothing"
		return 0
	fi
	[ "$TC/tcg_count.so" -nt "$src" ] && [ "$TC/tcg_count.so" -nt "$TC/include/qemu-plugin.h" ] &&
		return 0
	gcc -O2 -Wall -Wextra -Wno-unused-parameter -shared -fPIC \
		-I"$TC/include" -o "$TC/tcg_count.so" "$src" -lpthread ||
		die "tcg-count: the plugin does not build"
	say "tcg-count: plugin built: $TC/tcg_count.so"
}

case "${1:-}" in
fetch) fetch ;;
build) build ;;
opts)	[ -f "$TC/tcg_count.so" ] || exit 1
	echo "-plugin $TC/tcg_count.so,ctl=$2,out=$3" ;;
*) die "usage: tcg-count.sh fetch|build|opts <ctl> <out>" ;;
esac
