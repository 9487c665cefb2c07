#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# liburing's own tests of the io_uring uAPI this kernel takes from
# upstream, built unmodified with liburing's own headers: test/ring-query.c
# (IORING_REGISTER_QUERY, always with no ring) and test/zcrx.c (zero-copy
# receive with no device, over loopback); test/nop32.c, nop32-overflow.c
# and cq-peek-batch-mixed.c (CQE_MIXED rings, which zcrx takes: 32-byte
# CQEs, the filler at the ring's end, the overflow list); and liburing's
# example server, examples/zcrx.c, receiving a stream from a peer
# namespace on an hdsim queue, each byte checked against the pattern it
# expects, every payload byte written by the device into the area.
# LIBURING_TESTS names the directory of the test binaries, the example
# beside it in ../examples (make check builds them from Debian's liburing
# source package); without it all skip.
#
# A liburing test exits 0 when it passed, 77 when it skipped (its last
# line says why) and with anything else when it failed.

cd "$(dirname "$0")" || exit 1
. ../lib/ktap.sh
. ../lib/hdsim_env.sh

# zcrx.t registers an area of 16 MiB of huge pages too, and skips that
# case without them: eight more 2 MiB pages while the tests run
hp=/proc/sys/vm/nr_hugepages
hp_was=$(cat "$hp" 2>/dev/null)
[ -n "$hp_was" ] && echo $((hp_was + 8)) > "$hp" 2>/dev/null
trap '[ -n "$hp_was" ] && echo "$hp_was" > "$hp" 2>/dev/null' EXIT

# example_case: liburing's examples/zcrx on queue $Q of an hdsim port,
# the flow steered there and header split on; a stream of the pattern it
# checks (-v: 'a' to 'z' over and over) from the peer namespace
example_case()
{
	local name="liburing examples/zcrx over hdsim" bin port=8000 q=2
	local bytes=$((8 << 20)) log got dev0 dev1 pid

	bin=${LIBURING_TESTS:-}/../examples/zcrx
	if [ -z "${LIBURING_TESTS:-}" ] || [ ! -x "$bin" ]; then
		ktap_skip "$name" "no liburing example binary (LIBURING_TESTS)"
		return
	fi
	if [ ! -d /sys/bus/hdsim ]; then
		ktap_skip "$name" "no hdsim driver (CONFIG_HDSIM)"
		return
	fi
	if ! hdsim_pair 31 liburing-peer-31 192.0.31 2001:db8:31; then
		ktap_fail "$name" "no hdsim pair"
		return
	fi
	# Debian 12's ethtool has no tcp-data-split: devmemctl sets it
	if ! ./devmemctl set "$IF" tcp-data-split on > /dev/null ||
	   ! ethtool -K "$IF" ntuple on ||
	   ! ethtool -N "$IF" flow-type tcp4 dst-port $port action $q \
		> /dev/null; then
		ktap_fail "$name" "cannot split headers or steer the flow"
		hdsim_cleanup
		return
	fi
	dev0=$(ethtool -S "$IF" | sed -n "s/^ *rx${q}_devmem_payload_bytes: //p")
	log=$(mktemp)
	# its lines as they come (to a file, printf would hold them)
	stdbuf -oL "$bin" -i "$IF" -q $q -p $port -v -S $((16 << 20)) \
		> "$log" 2>&1 &
	pid=$!
	for i in $(seq 100); do
		ss -Hltn "sport = :$port" | grep -q . && break
		sleep 0.1
	done
	yes abcdefghijklmnopqrstuvwxyz | tr -d '\n' | head -c $bytes |
		ip netns exec "$HDSIM_NS" socat -u STDIN TCP:192.0.31.1:$port
	wait_line "$log" "^Connection terminated"
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	got=$(sed -n 's/^Connection terminated: received \([0-9]*\).*/\1/p' "$log")
	dev1=$(ethtool -S "$IF" | sed -n "s/^ *rx${q}_devmem_payload_bytes: //p")
	if [ "$got" != "$bytes" ]; then
		printf '%s\n' "$(tail -n 5 "$log")" | sed 's/^/# /'
		ktap_fail "$name" "received ${got:-nothing} of $bytes bytes"
	elif [ $((dev1 - dev0)) -lt $bytes ]; then
		ktap_fail "$name" \
			"the device wrote $((dev1 - dev0)) of $bytes bytes"
	else
		ktap_pass "$name ($bytes bytes checked, $((dev1 - dev0)) written by the device)"
	fi
	rm -f "$log"
	hdsim_cleanup
}

TESTS="ring-query zcrx nop32 nop32-overflow cq-peek-batch-mixed"
ktap_plan 6
for t in $TESTS; do
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
example_case
ktap_finish
