# SPDX-License-Identifier: GPL-2.0
# Shared setup for the devmem shell selftests; sourced after
# ../lib/ktap.sh and ../lib/hdsim_env.sh (hdsim port pairs) or
# ../lib/e1000e_env.sh: leak checks over netlink page-pool-get, the
# kernel's devmem counters in debugfs, and rx_case, one validated stream
# into device memory (uses IF, NS, PORT, PATTERN, TMP with "$TMP/data",
# and RX_ENV, set by the caller).

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

# rx_case <name> <server addr> <bytes> <sender> [ncdevmem args...]
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
	else
		ktap_pass "$name ($bytes bytes, sha256 ok, 0 copied by the CPU)"
	fi
}
