# SPDX-License-Identifier: GPL-2.0
# The devmem TX cases, shared by the drivers that send from device
# memory (devmem_tx.sh: hdsim, e1000e_tx.sh: e1000e); sourced after
# devmem_env.sh. The caller sets IF (host end), PEER (in NS), NS, PORT,
# PATTERN, TMP, and defines:
#   tx_fetched	bytes the device fetched from device memory so far, or
#		nothing when the driver has no such counter
#   tx_delete	removes IF's device (the last case of a run)

BUFINFO=/sys/kernel/debug/dma_buf/bufinfo

# wait_no_dmabufs [seconds]: until no dmabuf is alive in the kernel
# (every binding and udmabuf gone; 10 s)
wait_no_dmabufs()
{
	local i

	for i in $(seq $((${1:-10} * 10))); do
		[ "$(sed -n 's/^Total \([0-9]*\) objects.*/\1/p' "$BUFINFO")" = 0 ] &&
			return 0
		sleep 0.1
	done
	echo "# left: $(grep -c '^[0-9]' "$BUFINFO") dmabufs"
	ss -tanemoi | sed 's/^/# /'
	sed 's/^/# /' "$BUFINFO"
	return 1
}

# listen_peer <v4|v6> [sha256]: socat in NS, writing to $TMP/recv, or
# with "sha256" only the sha256 of what it received to $TMP/recv.sha256
# (long streams); SPID: the last process of the two
listen_peer()
{
	local i listen

	listen="TCP$([ "$1" = v6 ] && echo 6)-LISTEN:$PORT,reuseaddr"
	: > "$TMP/recv"
	if [ "${2:-}" = sha256 ]; then
		ip netns exec "$NS" socat -u "$listen" STDOUT 2> "$TMP/socat.err" |
			sha256sum > "$TMP/recv.sha256" &
	else
		ip netns exec "$NS" socat -u "$listen" "OPEN:$TMP/recv,creat,trunc" \
			2> "$TMP/socat.err" &
	fi
	SPID=$!
	for i in $(seq 100); do
		ip netns exec "$NS" ss -Hltn "sport = :$PORT" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# tx_checked <bytes> <fetched before> <calls>: ncdevmem's report says
# every byte went out of device memory (in <calls> sendmsg calls unless
# empty) and none was copied; the device fetched them all if it counts
tx_checked()
{
	local bytes=$1 before=$2 calls=${3:-[0-9]*} after
	local none="0 completions copied"

	sed 's/^/# /' "$TMP/tx.out" "$TMP/tx.err"
	grep -q "^sent $bytes bytes from device memory in $calls sendmsg calls, $none" \
		"$TMP/tx.out" || return 1
	after=$(tx_fetched)
	[ -z "$after" ] || [ $((after - before)) -ge "$bytes" ] || {
		echo "# the device fetched $((after - before)) bytes from device memory"
		return 1
	}
	wait_no_dmabufs
}

# tx_case <v4|v6> <server addr> <input file> [ncdevmem args]: one send
# to socat, checked by sha256
tx_case()
{
	local family=$1 addr=$2 in=$3 before rc

	shift 3
	listen_peer "$family" || { echo "# socat did not listen"; return 1; }
	before=$(tx_fetched)
	./ncdevmem -f "$IF" -s "$addr" -p $PORT "$@" < "$in" \
		> "$TMP/tx.out" 2> "$TMP/tx.err"
	rc=$?
	wait $SPID
	[ $rc = 0 ] || { cat "$TMP/tx.err"; echo "# ncdevmem exited $rc"; return 1; }
	[ "$(sha256sum < "$in")" = "$(sha256sum < "$TMP/recv")" ] ||
		{ echo "# sha256 differs ($(stat -c %s "$TMP/recv") bytes received)"; return 1; }
	tx_checked "$(stat -c %s "$in")" "$before"
}

# stream_case <server addr> <MiB>: a pattern made on the fly, through a
# 1 MiB dmabuf whose halves are reused once their sends completed (one
# sendmsg per half); both ends only keep a sha256
stream_case()
{
	local addr=$1 bytes=$(($2 << 20)) before rc i

	listen_peer v4 sha256 || { echo "# socat did not listen"; return 1; }
	before=$(tx_fetched)
	yes "$PATTERN" | head -c $bytes | tee >(sha256sum > "$TMP/sent.sha256") |
		./ncdevmem -f "$IF" -s "$addr" -p $PORT --size $((1 << 20)) \
		> "$TMP/tx.out" 2> "$TMP/tx.err"
	rc=$?
	wait $SPID
	[ $rc = 0 ] || { cat "$TMP/tx.err"; echo "# ncdevmem exited $rc"; return 1; }
	# tee's sha256sum may still be finishing
	for i in $(seq 100); do
		[ -s "$TMP/sent.sha256" ] && break
		sleep 0.1
	done
	[ "$(cat "$TMP/sent.sha256")" = "$(cat "$TMP/recv.sha256")" ] ||
		{ echo "# sha256 differs"; return 1; }
	tx_checked $bytes "$before" $((bytes >> 19))
}

# d2d <from netns cmd> <from if> <to netns cmd> <to if> <server addr>:
# ncdevmem TX into ncdevmem RX, 8 MiB of "$TMP/stream8". Each end gets
# 300 s (an 8 MiB case takes seconds): a sender that failed must not
# leave the script waiting on a receiver that no connection will reach.
d2d()
{
	local from_ns=$1 from_if=$2 to_ns=$3 to_if=$4 addr=$5 rpid rc

	: > "$TMP/rx.log"
	$to_ns timeout 300 ./ncdevmem -l -f "$to_if" -s "$addr" -p $PORT -v 7 \
		--sha256 > "$TMP/rx.out" 2> "$TMP/rx.log" &
	rpid=$!
	wait_line "$TMP/rx.log" "^listening" ||
		{ echo "# no listener: $(cat "$TMP/rx.log")"; return 1; }
	$from_ns timeout 300 ./ncdevmem -f "$from_if" -s "$addr" -p $PORT \
		< "$TMP/stream8" > "$TMP/tx.out" 2> "$TMP/tx.err"
	rc=$?
	[ $rc = 0 ] || kill $rpid 2>/dev/null
	if ! wait $rpid || [ $rc != 0 ]; then
		echo "# sender exited $rc"
		sed 's/^/# /' "$TMP/tx.out" "$TMP/tx.err" "$TMP/rx.out" "$TMP/rx.log"
		$from_ns ss -tni | sed 's/^/# sender: /'
		$to_ns ss -tni | sed 's/^/# receiver: /'
		return 1
	fi
	sed 's/^/# /' "$TMP/tx.out" "$TMP/tx.err"
	grep -q "^received $((8 << 20)) bytes: $((8 << 20)) in device memory" "$TMP/rx.out" ||
		{ sed 's/^/# /' "$TMP/rx.out"; return 1; }
	grep -q "sha256 $(sha256sum < "$TMP/stream8" | cut -d' ' -f1)" "$TMP/rx.out" ||
		{ echo "# sha256 differs"; return 1; }
	wait_no_dmabufs
}

# in_flight <kill|delete> <server addr>: a 256 MiB send from device
# memory, hit two seconds in by SIGKILL or by tx_delete; every dmabuf
# must be gone afterwards. With the device gone, nothing acknowledges
# the skbs in flight: they hold the binding until TCP gives the
# orphaned socket up, which one orphan retry makes quick.
in_flight()
{
	local pid retries rc

	listen_peer v4 || return 1
	yes "$PATTERN" | head -c $((256 << 20)) |
		./ncdevmem -f "$IF" -s "$2" -p $PORT --size $((4 << 20)) \
		> "$TMP/tx.out" 2> "$TMP/tx.err" &
	pid=$!
	sleep 2
	case $1 in
	kill)
		kill -9 $pid
		;;
	delete)
		retries=$(sysctl -n net.ipv4.tcp_orphan_retries)
		sysctl -qw net.ipv4.tcp_orphan_retries=1
		tx_delete
		sleep 1
		kill -9 $pid
		;;
	esac
	wait $pid
	kill $SPID 2>/dev/null
	wait $SPID 2>/dev/null
	wait_no_dmabufs 60
	rc=$?
	[ -n "$retries" ] && sysctl -qw net.ipv4.tcp_orphan_retries="$retries"
	return $rc
}
