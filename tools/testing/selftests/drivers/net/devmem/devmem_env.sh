# SPDX-License-Identifier: GPL-2.0
# Shared setup for the devmem shell selftests; sourced after
# ../lib/ktap.sh and ../lib/hdsim_env.sh (hdsim port pairs) or
# ../lib/e1000e_env.sh: leak checks over netlink page-pool-get, the
# kernel's devmem counters in debugfs, rx_case, one validated stream
# into device memory, and seq_case/conn_case, bind cycles and connections
# on one binding (use IF, NS, PORT, PATTERN, TMP with "$TMP/data", and
# RX_ENV, set by the caller).

NCDEVMEM=${NCDEVMEM:-./ncdevmem}
TCP_RX=/sys/kernel/debug/devmem/tcp_rx

# Bindings still alive: distinct dmabuf ids of the page pools (a binding
# lives as long as a pool uses it, bound or detached with net_iovs out).
live_bindings()
{
	"$NCDEVMEM" --pools | grep -o 'dmabuf [1-9][0-9]*' | sort -u | wc -l
}

# wait_no_bindings [seconds]: until no binding is alive (10 s)
wait_no_bindings()
{
	local i

	for i in $(seq $((${1:-10} * 10))); do
		[ "$(live_bindings)" = 0 ] && return 0
		sleep 0.1
	done
	return 1
}

# stall_report <receiver pid> <interface>: what a stream that stopped
# moving leaves to read, as ktap comments: where the receiver sleeps,
# both ends' TCP sockets, the port's non-zero counters, the page pools
# and the kernel log's tail
stall_report()
{
	{
		echo "receiver $1 sleeps in:"
		cat "/proc/$1/stack"
		ss -tnmi
		ip netns exec "$NS" ss -tnmi
		ethtool -S "$2" | grep -v ': 0$'
		"$NCDEVMEM" --pools
		dmesg | tail -n 30
	} 2>&1 | sed 's/^/# /'
}

# bounded_stream <receiver pid> <interface> <sender command...>: the
# sender runs for at most 120 s, then the receiver has 60 s to finish.
# A stream that stops moving fails the case with a stall_report, the
# receiver killed, instead of hanging the run until the test's timeout.
# Returns the receiver's exit status, or 1 on a stall or a failed sender.
bounded_stream()
{
	local pid=$1 dev=$2 src=0

	shift 2
	timeout 120 "$@" || { src=$?; echo "# sender: exit $src"; }
	if ! timeout 60 tail --pid="$pid" -f /dev/null; then
		echo "# the stream stalled"
		stall_report "$pid" "$dev"
		kill -9 "$pid"
		wait "$pid" 2>/dev/null
		return 1
	fi
	wait "$pid" && [ $src = 0 ]
}

# killed_mid_stream <server addr> [ncdevmem args]: a 256 MiB stream from
# NS; the receiver is SIGKILLed two seconds in, with tokens out and data
# in flight. Succeeds when every binding is gone afterwards.
killed_mid_stream()
{
	local addr=$1 pid spid

	shift
	./ncdevmem -l -s "$addr" -p $PORT -v 7 "$@" \
		> /dev/null 2> "$TMP/kill.log" &
	pid=$!
	wait_line "$TMP/kill.log" "^listening" ||
		{ echo "# no listener: $(cat "$TMP/kill.log")"; return 1; }
	yes "$PATTERN" | head -c $((256 << 20)) |
		ip netns exec "$NS" socat -u STDIN TCP:"$addr":$PORT \
		2>/dev/null &
	spid=$!
	sleep 2
	kill -9 $pid
	wait $pid 2>/dev/null
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
	wait_no_bindings || { echo "# left: $("$NCDEVMEM" --pools)"; return 1; }
}

# Device-memory fragments handed out so far, all sockets (shell builtins
# only: cheap to poll).
tcp_rx_frags()
{
	local name value

	while read -r name value; do
		[ "$name" = frags ] && { echo "$value"; return; }
	done < "$TCP_RX"
	echo 0
}

# frags_of <ncdevmem output>: the cmsgs it received into device memory
frags_of()
{
	sed -n 's/^received .* in device memory (\([0-9]*\) frags).*/\1/p' "$1"
}

# streams_skipped <name>: true, and the case reported skipped, when
# DEVMEM_STREAMS=0 and the case only varies sizes, families or senders:
# the debug kernel's and the IOMMU run's subsets leave those to the run on
# the plain kernel and keep the lifetimes.
streams_skipped()
{
	[ "${DEVMEM_STREAMS:-1}" = 0 ] || return 1
	ktap_skip "$1" "DEVMEM_STREAMS=0: the plain kernel's run has it"
}

# stream_check <name> <cmd...>: ktap_check unless streams_skipped
stream_check()
{
	streams_skipped "$1" || ktap_check "$@"
}

# rx_case <name> <server addr> <bytes> <sender> [ncdevmem args]: one
# validated stream; MAX_FRAGS=n in the environment caps its cmsgs
rx_case()
{
	local name=$1 addr=$2 bytes=$3 sender=$4
	local log=$TMP/rx.log out=$TMP/rx.out want got pid rc

	shift 4
	if [ "$sender" = pipe ]; then
		want=$(yes "$PATTERN" | head -c "$bytes" | sha256sum | cut -d' ' -f1)
	else
		head -c "$bytes" < "$TMP/data" > "$TMP/send"
		want=$(sha256sum < "$TMP/send" | cut -d' ' -f1)
	fi

	: > "$log"
	env $RX_ENV ./ncdevmem -l -f "$IF" -s "$addr" -p $PORT -v 7 --sha256 \
		--stats "$@" > "$out" 2> "$log" &
	pid=$!
	if ! wait_line "$log" "^listening"; then
		kill $pid 2>/dev/null
		ktap_fail "$name" "ncdevmem did not start: $(cat "$log")"
		return
	fi

	case $sender in
	socat)	ip netns exec "$NS" socat -u "FILE:$TMP/send" \
			"TCP:$(socat_addr "$addr"):$PORT" ;;
	ncat)	ip netns exec "$NS" ncat --send-only "$addr" $PORT \
			< "$TMP/send" ;;
	pipe)	# stream generated on the fly: "$TMP/send" is the pattern
		yes "$PATTERN" | head -c "$bytes" |
			ip netns exec "$NS" socat -u STDIN \
			"TCP:$(socat_addr "$addr"):$PORT" ;;
	esac || kill $pid 2>/dev/null
	wait $pid
	rc=$?

	got=$(sed -n 's/^sha256 //p' "$out")
	if [ $rc != 0 ]; then
		ktap_fail "$name" "ncdevmem exit $rc: $(cat "$log" "$out")"
	elif ! grep -q "^received $bytes bytes: $bytes in device memory" "$out"; then
		ktap_fail "$name" "not all in device memory: $(head -n1 "$out")"
	elif ! grep -q ": 0 errors" "$out"; then
		ktap_fail "$name" "validation: $(grep validated "$out")"
	elif [ "$got" != "$want" ]; then
		ktap_fail "$name" "sha256 $got, sender $want"
	elif ! grep "^stats: kernel: " "$out" |
	     grep -q " $bytes bytes left in device memory, 0 payload bytes copied"; then
		ktap_fail "$name" "kernel counters: $(grep '^stats: kernel' "$out")"
	elif ! wait_no_bindings; then
		ktap_fail "$name" "binding left behind: $("$NCDEVMEM" --pools)"
	elif [ -n "${MAX_FRAGS:-}" ] && [ "$(frags_of "$out")" -gt "$MAX_FRAGS" ]; then
		ktap_fail "$name" "$(frags_of "$out") frags (cmsgs), more than $MAX_FRAGS"
	else
		got="$bytes bytes in $(frags_of "$out") frags"
		ktap_pass "$name ($got, sha256 ok, 0 copied by the CPU)"
	fi
}

# seq_case <server addr>: bind -> receive -> unbind, three times over
seq_case()
{
	local addr=$1 log=$TMP/seq.log out=$TMP/seq.out pid i ok=1

	head -c $((2 << 20)) < "$TMP/data" > "$TMP/send"
	for i in 1 2 3; do
		: > "$log"
		./ncdevmem -l -f "$IF" -s "$addr" -p $PORT -v 7 \
			> "$out" 2> "$log" &
		pid=$!
		wait_line "$log" "^listening" || ok=0
		ip netns exec "$NS" socat -u "FILE:$TMP/send" \
			"TCP:$(socat_addr "$addr"):$PORT" || ok=0
		wait $pid || ok=0
		grep -q ": 0 errors" "$out" || ok=0
	done
	[ $ok = 1 ]
}

# conn_case <server addr>: several connections, one after the other, on
# one binding
conn_case()
{
	local addr=$1 log=$TMP/conn.log out=$TMP/conn.out pid i ok=1

	head -c $((4 << 20)) < "$TMP/data" > "$TMP/send"
	./ncdevmem -l -f "$IF" -s "$addr" -p $PORT -v 7 --connections 3 \
		> "$out" 2> "$log" &
	pid=$!
	wait_line "$log" "^listening" || ok=0
	for i in 1 2 3; do
		ip netns exec "$NS" socat -u "FILE:$TMP/send" \
			"TCP:$(socat_addr "$addr"):$PORT" || ok=0
	done
	wait $pid || ok=0
	[ "$(grep -c "^connection [123]: 4194304 bytes, 0 errors" "$out")" = 3 ] || ok=0
	grep -q "^received 12582912 bytes: 12582912 in device memory" "$out" || ok=0
	[ $ok = 1 ] || cat "$log" "$out"
	[ $ok = 1 ]
}
