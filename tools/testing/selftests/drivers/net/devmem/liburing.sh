#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# liburing's own tests of the io_uring uAPI this kernel takes from
# upstream, built unmodified with liburing's own headers: test/ring-query.c
# (IORING_REGISTER_QUERY, always with no ring) and test/zcrx.c (zero-copy
# receive with no device, over loopback). LIBURING_TESTS names the
# directory of their binaries (make check builds them from Debian's
# liburing source package); without it both skip.
#
# A liburing test exits 0 when it passed, 77 when it skipped (its last
# line says why) and with anything else when it failed.

cd "$(dirname "$0")" || exit 1
. ../lib/ktap.sh

# zcrx.t registers an area of 16 MiB of huge pages too, and skips that
# case without them: eight more 2 MiB pages while the tests run
hp=/proc/sys/vm/nr_hugepages
hp_was=$(cat "$hp" 2>/dev/null)
[ -n "$hp_was" ] && echo $((hp_was + 8)) > "$hp" 2>/dev/null
trap '[ -n "$hp_was" ] && echo "$hp_was" > "$hp" 2>/dev/null' EXIT

ktap_plan 2
for t in ring-query zcrx; do
	bin=${LIBURING_TESTS:-}/$t.t
	if [ -z "${LIBURING_TESTS:-}" ] || [ ! -x "$bin" ]; then
		ktap_skip "liburing $t" "no liburing test binaries (LIBURING_TESTS)"
		continue
	fi
	# its files (zcrx's huge pages, sockets) in a directory of its own
	dir=$(mktemp -d)
	out=$(cd "$dir" && timeout 600 "$bin" 2>&1)
	rc=$?
	rm -rf "$dir"
	case $rc in
	0)
		# a case it skipped inside a pass says so on its output
		printf '%s\n' "$out" | grep -i skip | sed 's/^/# /'
		ktap_pass "liburing $t" ;;
	77)
		ktap_skip "liburing $t" "$(printf '%s\n' "$out" | tail -n 1)" ;;
	*)
		printf '%s\n' "$out" | tail -n 20 | sed 's/^/# /'
		ktap_fail "liburing $t" "exit status $rc" ;;
	esac
done
ktap_finish
