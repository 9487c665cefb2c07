#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM: bind cost for dmabufs of several sizes, a few runs
# each, then devmem vs copy receive of the same stream.
# usage: guest-bench.sh <kselftest dir> <bind csv> <rx csv>
# NIC=e1000e: the receive part only, on the VM's e1000e pair (QEMU's
# 82574L model writes the payload itself, so the guest CPU pays nothing
# for the "DMA"), 64 MiB streams at MTU 1500 and 9000, 64 KiB reads,
# 4, 8 and 32 KiB net_iovs, 5 interleaved runs; the sender segments in software (e1000e_env.sh:
# QEMU 7.2's model would send its TSO frames as IP fragments).
# NIC=large: hdsim with large net_iovs (-b: 4, 16, 64 KiB) and packing
# (rx-gro-hw) off and on, against plain recv(), at MTU 1500 and 9000,
# 1 MiB reads, 3 interleaved runs; then the bind cost of 1 GiB at 4 KiB
# and 64 KiB net_iovs.
KST=$1
CSV=$2
RXCSV=$3
BIN=$KST/drivers/net/devmem/ncdevmem
HERE=$(dirname "$(readlink -f "$0")")
STAT=$KST/drivers/net/devmem/devmemstat
REPS=5
NS=bench-peer
NIC=${NIC:-hdsim}
export PATH=$PATH:/usr/sbin:/sbin
# Where each side runs. Under TCG on two vCPUs (the default): the
# receiver on CPU 1; the senders, and with them hdsim's NAPI (its
# "DMA" copy runs in NAPI, scheduled on the CPU that transmitted), on
# CPU 0. On a guest with more vCPUs (harness/device-kvm.sh):
#   BENCH_RX_CPU     the receivers' CPU
#   BENCH_TX_CPUS    the senders' CPUs (a list, 3,4,5; sender i on entry i mod n)
#   BENCH_NAPI_CPU   threaded NAPI on the receiving port, its kthreads
#                    pinned to this CPU, apart from receiver and senders
RX_CPU=${BENCH_RX_CPU:-1}
IFS=', ' read -r -a TX_CPUS <<< "${BENCH_TX_CPUS:-0}"
NAPI_CPU=${BENCH_NAPI_CPU:-}
tx_cpu() { echo "${TX_CPUS[$(($1 % ${#TX_CPUS[@]}))]}"; }
# pin_napi: the receiving port's NAPI kthreads onto NAPI_CPU (again
# after each bind: a queue restart can make new ones)
pin_napi()
{
	local pre="napi/$IF-" c n=0

	[ -n "$NAPI_CPU" ] || return 0
	echo 1 > /sys/class/net/"$IF"/threaded || return 1
	pre=${pre:0:15}		# a task's comm holds 15 characters
	for c in /proc/[0-9]*/comm; do
		[[ "$(cat "$c" 2>/dev/null)" == "$pre"* ]] || continue
		c=${c%/comm}
		taskset -pc "$NAPI_CPU" "${c#/proc/}" > /dev/null || return 1
		n=$((n + 1))
	done
	echo "bench: $n NAPI threads of $IF on CPU $NAPI_CPU"
	[ $n -gt 0 ]
}
. "$KST/drivers/net/lib/hdsim_env.sh"
. "$KST/drivers/net/lib/e1000e_env.sh"

debugfs_mounted
RXPS=0
PACK=off
SOCAT_BLOCK=
if [ "$NIC" = e1000e ]; then
	e1000e_pair $NS 192.0.2 2001:db8:2 || { echo "$E1000E_WHY"; exit 1; }
	SIZES=
	MIB=64
elif [ "$NIC" = large ]; then
	# 8 queues: 0-3 for the rest, 4-7 for the scaling part's bindings
	HDSIM_QUEUES=8 hdsim_pair 8 $NS 192.0.2 2001:db8:2 || exit 1
	SIZES=
	MIB=64
	# every write() ends in PSH, which closes an aggregate (as GRO):
	# the sender writes 1 MiB at a time, as a GPU data mover would
	SOCAT_BLOCK="-b 1048576"
else
	hdsim_pair 8 $NS 192.0.2 2001:db8:2 || exit 1
	SIZES="64 256 1024"
	MIB=64
fi
"$BIN" -f "$IF" --hds on || { echo "bench: tcp-data-split on $IF failed"; exit 1; }
# e1000e resets for the split (and for an MTU change): the link is down
# for a while, and a send started then fails with "No route to host"
link_up() {
	[ "$NIC" != e1000e ] || e1000e_wait_link ||
		{ echo "bench: no carrier on $IF/$PEER within 10 s"; return 1; }
}
link_up || exit 1

echo "size_mib,run,niovs,netlink_bind_us,mem_bytes,bytes_per_niov,rx_page_size" > "$CSV"
for mib in $SIZES; do
	for run in $(seq $REPS); do
		out=$("$BIN" -f "$IF" --bind-only --size $((mib << 20))) || {
			echo "bind of $mib MiB failed"; exit 1; }
		echo "$out" | sed -n 's/^bind size_bytes=[0-9]* rx_page_size=\([0-9]*\) niovs=\([0-9]*\) netlink_bind_us=\([0-9]*\) mem_bytes=\([0-9]*\) bytes_per_niov=\([0-9.]*\)$/'"$mib,$run"',\2,\3,\4,\5,\1/p' >> "$CSV"
		sleep 0.5
	done
done

# Receive: the same sender and stream into devmem (recvmsg + DONTNEED)
# and into a plain recv() buffer, interleaved.
head -c $((MIB << 20)) /dev/zero | tr '\0' 'x' > /tmp/bench.data

# rx_field <sed regex with one group>: that group from ncdevmem's report
rx_field()
{
	sed -n "s/$1/\\1/p" /tmp/rx.out
}

# rx <mode> <read size> <rep> <dontneed batch>
# TCG_CTL, TCG_OUT: the control file and the counts of make bench's TCG
# plugin (harness/tcg-count.sh), on the share; unset, nothing is counted.
# tcg_mark <label>: the plugin's totals at this point, once it wrote them
tcg_mark()
{
	local i

	[ -n "${TCG_CTL:-}" ] || return 0
	echo "mark $1" >> "$TCG_CTL"
	for i in $(seq 500); do
		grep -q "^$1 " "$TCG_OUT" && return 0
		sleep 0.02
	done
	echo "bench: the TCG plugin did not answer $1"
	return 1
}

# tcg_counts <label>: instructions from <label>-b to <label>-e, as
# ",<receiver vCPU kernel>,<receiver vCPU user>,<other vCPUs kernel>,
# <other vCPUs user>", then the bytes kernel and user instructions (any
# vCPU) loaded from and stored to the window (TCG_MEM=1: the plugin
# counts memory, and rx() set the window), ",<kernel>,<user>"; empty
# fields for what is not counted
tcg_counts()
{
	[ -n "${TCG_CTL:-}" ] || { echo ",,,,,,"; return 0; }
	awk -v b="$1-b" -v e="$1-e" -v rx="$RX_CPU" -v mem="${TCG_MEM:-0}" '
	$1 == b { for (i = 2; i <= NF; i++) B[i] = $i }
	$1 == e { for (i = 2; i <= NF; i++) E[i] = $i; n = NF }
	END {
		# <label>, the window bytes: kernel loads and stores, user
		# loads and stores; then kernel and user per vCPU
		rk = 6 + 2 * rx
		for (i = 6; i < n; i += 2) {
			if (i == rk)
				continue
			ok += E[i] - B[i]
			ou += E[i + 1] - B[i + 1]
		}
		printf ",%.0f,%.0f,%.0f,%.0f", E[rk] - B[rk],
		       E[rk + 1] - B[rk + 1], ok, ou
		if (mem == 1)
			printf ",%.0f,%.0f\n", E[2] + E[3] - B[2] - B[3],
			       E[4] + E[5] - B[4] - B[5]
		else
			printf ",,\n"
	}' "$TCG_OUT"
}

# tcg_window <receiver pid> <mode>: the plugin's window becomes the
# pages the payload lands in: the receiver's udmabuf, or for copy its own
# buffer (harness/tcg-count/window.py); nothing without TCG_MEM=1. A
# udmabuf's pages are held in WINDOW_PID until tcg_window_end, so that
# they are not reused, and counted, after the receiver exits.
WINDOW_PID=
tcg_window()
{
	local i

	[ "${TCG_MEM:-0}" = 1 ] || return 0
	echo clear >> "$TCG_CTL"
	if [ "$2" = copy ]; then
		python3 "$HERE/tcg-count/window.py" anon "$1" >> "$TCG_CTL"
		return
	fi
	rm -f /tmp/window.lines
	python3 "$HERE/tcg-count/window.py" udmabuf "$1" hold > /tmp/window.lines &
	WINDOW_PID=$!
	# the lines are whole once it says it holds the pages
	for i in $(seq 500); do
		[ "$(tail -n 1 /tmp/window.lines 2>/dev/null)" = held ] && break
		kill -0 $WINDOW_PID 2>/dev/null || break
		sleep 0.02
	done
	[ "$(tail -n 1 /tmp/window.lines 2>/dev/null)" = held ] ||
		{ echo "bench: no window for $1"; return 1; }
	grep '^window ' /tmp/window.lines >> "$TCG_CTL"
}

# tcg_window_end: the held pages go
tcg_window_end()
{
	[ -n "$WINDOW_PID" ] || return 0
	kill $WINDOW_PID
	wait $WINDOW_PID 2>/dev/null
	WINDOW_PID=
}

# TCG_ATTR: a directory on the share; the first run of each path then
# has the receiver vCPU's instructions by block dumped there, next to
# this boot's kallsyms (harness/tcg-count/attribute.py maps them)
[ -n "${TCG_ATTR:-}" ] && cat /proc/kallsyms > "$TCG_ATTR/$NIC-kallsyms"

# tcg_dump <file> [touchers]: the receiver vCPU's blocks since the last
# "zero", or the instructions that touched the window since it was set
tcg_dump()
{
	local i

	rm -f "$1"
	echo "${2:-dump} $1" >> "$TCG_CTL"
	for i in $(seq 500); do
		[ "$(tail -n 1 "$1" 2>/dev/null)" = done ] && return 0
		sleep 0.02
	done
	echo "bench: the TCG plugin did not dump $1"
	return 1
}

rx()
{
	local mode=$1 rs=$2 rep=$3 batch=$4 port=$((6100 + RANDOM % 800)) args
	local tl=rx$$-$RANDOM$RANDOM attr=

	if [ -n "${TCG_ATTR:-}" ] && [ "$rep" = 1 ]; then
		attr=$TCG_ATTR/$NIC-$mode-$RXPS-$PACK-$(cat /sys/class/net/"$IF"/mtu).dump
	fi

	if [ "$mode" != copy ]; then
		args="-f $IF --stats --dontneed-batch $batch"
		[ "$RXPS" != 0 ] && args="$args -b $RXPS"
		[ "$mode" = uring ] && args="$args --uring"
		[ "$mode" = zcrx ] && args="$args --zcrx"
	else
		args="--copy"
	fi
	# receiver on RX_CPU, the sender on its first TX CPU, NAPI with
	# the sender or on NAPI_CPU (above)
	[ "$NIC" = large ] && { ethtool -K "$IF" rx-gro-hw $PACK || return 1; }
	# devmem runs: the payload bytes the CPU copied come from the
	# kernel's tracepoints, through devmemstat (its BPF programs run in
	# the receiver's context: their cost is in the receiver's CPU time)
	local spid=
	if [ "$mode" = devmem ] || [ "$mode" = uring ]; then
		"$STAT" -q > /tmp/stat.out 2>&1 &
		spid=$!
		wait_line /tmp/stat.out "^devmemstat: watching" || return 1
	fi
	: > /tmp/rx.log
	taskset -c "$RX_CPU" "$BIN" -l -s 192.0.2.1 -p $port --read-size "$rs" $args \
		> /tmp/rx.out 2> /tmp/rx.log &
	local pid=$!
	wait_line /tmp/rx.log "^listening"
	pin_napi || return 1
	tcg_window $pid "$mode" || { kill $pid $spid; return 1; }
	[ -n "$attr" ] && echo "zero $RX_CPU" >> "$TCG_CTL"
	tcg_mark "$tl-b" || return 1
	# a stream takes seconds; one that stalls is reported, with what
	# the NIC and both sockets say, instead of hanging the benchmark
	if ! ip netns exec $NS taskset -c "$(tx_cpu 0)" timeout 120 socat -u $SOCAT_BLOCK \
	     FILE:/tmp/bench.data TCP:192.0.2.1:$port ||
	   ! timeout 60 tail --pid=$pid -f /dev/null; then
		echo "stalled: $mode run $rep, MTU $(cat /sys/class/net/"$IF"/mtu)"
		ss -tinm; ip netns exec $NS ss -tinm
		ethtool -S "$IF" | grep -v ': 0$'
		"$BIN" --pools
		if [ -n "${BENCH_DIAG:-}" ]; then
			ip netns exec $NS ethtool -S "$PEER" | grep -v ': 0$'
			ethtool -d "$IF" | grep -E "RCTL|RDH|RDT|RDLEN|RDBA|ICR|IMS|receive|Receive" | head -40
			grep -E "enp|eth|CPU" /proc/interrupts
			ip neigh; ip -n $NS neigh
			ip netns exec $NS ping -c 2 -W 2 192.0.2.1
			ethtool -S "$IF" | grep -E "rx_packets|rx_no_buf|missed"
			cat /tmp/rx.log
			dmesg | tail -20
		fi
		kill $pid $spid
		return 1
	fi
	wait $pid || { cat /tmp/rx.log; kill $spid; return 1; }
	tcg_mark "$tl-e" || return 1
	if [ -n "$attr" ]; then
		tcg_dump "$attr" || return 1
		if [ "${TCG_MEM:-0}" = 1 ]; then
			tcg_dump "${attr%.dump}.touch" touchers || return 1
		fi
	fi
	tcg_window_end
	if [ -n "$spid" ]; then
		kill -INT $spid
		wait $spid || { cat /tmp/stat.out; return 1; }
	fi
	local bytes time cpu dn calls
	bytes=$(rx_field '^received \([0-9]*\) bytes.*')
	time=$(rx_field '^stats: time \([0-9.]*\) s.*')
	cpu=$(rx_field '.*receiver cpu \([0-9.]*\) s.*')
	dn=$(rx_field '^stats: DONTNEED \([0-9]*\) ns per token.*')
	calls=$(rx_field '^stats: recvmsg.*DONTNEED calls \([0-9]*\).*')
	# syscalls that moved the stream, cmsgs, and payload bytes the CPU
	# copied: devmemstat's count for devmem, every byte for recv()
	local rcalls frags copied
	if [ "$mode" = uring ] || [ "$mode" = zcrx ]; then
		rcalls=$(rx_field '^stats: io_uring_enter calls \([0-9]*\),.*')
	elif [ "$mode" = devmem ]; then
		rcalls=$(rx_field '^stats: recvmsg calls \([0-9]*\),.*')
	fi
	if [ "$mode" = zcrx ]; then
		# zcrx: the kernel's own counts, from the ring's fdinfo; no
		# DONTNEED, buffers go back through the refill ring
		frags=$(rx_field '^stats: kernel: \([0-9]*\) frags.*')
		copied=$(rx_field '^stats: kernel: .* \([0-9]*\) payload bytes copied.*')
		calls=0
	elif [ "$mode" != copy ]; then
		frags=$(rx_field '^stats: kernel: \([0-9]*\) frags.*')
		copied=$(sed -n 's/^summary: .* \([0-9]*\) payload bytes copied by the CPU.*/\1/p' /tmp/stat.out)
		[ -n "$copied" ] || { echo "no devmemstat summary:"; cat /tmp/stat.out; return 1; }
	else
		rcalls=$(rx_field '^stats: recv calls \([0-9]*\)')
		frags=0
		copied=$bytes
	fi
	echo "$mode,$rs,$rep,$bytes,$time,$cpu,$batch,${dn:-0},${calls:-0},${rcalls:-0},${frags:-0},${copied:-0},$(cat /sys/class/net/"$IF"/mtu),$RXPS,$PACK$(tcg_counts "$tl")" >> "$RXCSV"
}

echo "mode,read_size,rep,bytes,time_s,cpu_s,dontneed_batch,dontneed_ns_per_token,dontneed_calls,recv_calls,frags,cpu_copied_bytes,mtu,rx_page_size,packing,rx_kernel_insns,rx_user_insns,other_kernel_insns,other_user_insns,kernel_touch_bytes,user_touch_bytes" > "$RXCSV"
# rxscale <layout> <connections> <rep>: that many senders at once, the
# stream split evenly, received with ncdevmem --connections N --parallel
# (one thread polls them all; 64 KiB net_iovs):
#   queue	one devmem queue, ncdevmem's own NIC setup
#   rss4	queues 4-7 of one binding, an RSS context over them and a
#		flow rule into it (ncdevmem -n, as upstream's benchmark
#		client sets a NIC up)
#   bind4	4 bindings (4 dmabufs), queues 4-7, one ncdevmem each with
#		N/4 connections, a flow rule per port (ncdevmem -n)
#   copy	plain recv() into a user buffer, the same connections
#   uring	as queue, received through one io_uring (a multishot
#		recvmsg per connection, ncdevmem --uring --parallel)
#   zcrx	one zcrx instance on one queue, one ring reading the
#		connections one after the other (ncdevmem --zcrx)
#   zshare	the same instance shared by N rings, one per connection,
#		in N threads (ncdevmem --zcrx --zcrx-rings N: the rings
#		past the first import it)
# The CPU figure is the receiving threads' CPU time, summed.
rxscale()
{
	local layout=$1 n=$2 rep=$3 port=$((6100 + RANDOM % 700)) i k
	local procs=1 per=$2 pids= rpids= args ctx= rules=

	[ "$layout" = bind4 ] && { procs=4; per=$((n / 4)); }
	# queues 0-3 take what no rule steers (ncdevmem's own setup, in
	# the queue and uring runs, leaves the default table behind)
	case $layout in
	rss4|bind4)
		ethtool -X "$IF" equal 4 && ethtool -K "$IF" ntuple on || return 1 ;;
	esac
	head -c $(((MIB << 20) / n)) /tmp/bench.data > /tmp/bench.part
	case $layout in
	queue) args="-f $IF -b 65536 --parallel" ;;
	uring) args="-f $IF -b 65536 --parallel --uring" ;;
	zcrx) args="-f $IF -b 65536 --zcrx" ;;
	zshare) args="-f $IF -b 65536 --zcrx --zcrx-rings $n" ;;
	copy) args="--copy --parallel" ;;
	rss4)
		ctx=$(ethtool -X "$IF" context new start 4 equal 4 |
		      sed -n 's/^New RSS context is \([0-9]*\)$/\1/p')
		[ -n "$ctx" ] || { echo "no RSS context on $IF"; return 1; }
		rules=$(ethtool -N "$IF" flow-type tcp4 dst-ip 192.0.2.1 \
			dst-port $port context "$ctx" |
			sed -n 's/^Added rule with ID \([0-9]*\)$/\1/p')
		[ -n "$rules" ] || { echo "no flow rule into RSS context $ctx"; return 1; }
		args="-n -f $IF -b 65536 --parallel -t 4 -q 4"
		;;
	bind4)
		for k in 0 1 2 3; do
			rules="$rules $(ethtool -N "$IF" flow-type tcp4 \
				dst-ip 192.0.2.1 dst-port $((port + k)) action $((4 + k)) |
				sed -n 's/^Added rule with ID \([0-9]*\)$/\1/p')"
		done
		[ "$(echo $rules | wc -w)" = 4 ] ||
			{ echo "flow rules to queues 4-7: only '$rules'"; return 1; }
		;;
	esac
	for k in $(seq 0 $((procs - 1))); do
		[ "$layout" = bind4 ] &&
			args="-n -f $IF -b 65536 --parallel -t $((4 + k)) -q 1"
		: > /tmp/rx$k.log
		taskset -c "$RX_CPU" "$BIN" -l -s 192.0.2.1 -p $((port + k)) --stats \
			--read-size 1048576 --connections $per $args \
			> /tmp/rx$k.out 2> /tmp/rx$k.log &
		rpids="$rpids $!"
		wait_line /tmp/rx$k.log "^listening" ||
			{ cat /tmp/rx$k.log; kill $rpids; return 1; }
	done
	pin_napi || { kill $rpids; return 1; }
	for i in $(seq 0 $((n - 1))); do
		ip netns exec $NS taskset -c "$(tx_cpu "$i")" timeout 300 socat -u $SOCAT_BLOCK \
			FILE:/tmp/bench.part TCP:192.0.2.1:$((port + i % procs)) &
		pids="$pids $!"
	done
	wait $pids
	local rc=0 bytes=0 time=0 cpu=0 frags=0 dn=0 held=0 f
	for k in $(seq 0 $((procs - 1))); do
		set -- $rpids
		shift $k
		if ! timeout 120 tail --pid=$1 -f /dev/null || ! wait $1; then
			echo "$layout run with $n connections failed"
			cat /tmp/rx$k.log /tmp/rx$k.out
			kill $1 2>/dev/null
			rc=1
			continue
		fi
		f=/tmp/rx$k.out
		bytes=$((bytes + $(sed -n 's/^received \([0-9]*\) bytes.*/\1/p' $f)))
		time=$(awk -v a=$time -v b="$(sed -n 's/^stats: time \([0-9.]*\) s.*/\1/p' $f)" \
		       'BEGIN { print (b > a ? b : a) }')
		cpu=$(awk -v a=$cpu -v b="$(sed -n 's/.*receiver cpu \([0-9.]*\) s.*/\1/p' $f)" \
		      'BEGIN { print a + b }')
		# the cmsgs this receiver got (the kernel's own count in
		# "stats: kernel:" is system-wide: all four bind4 receivers)
		frags=$((frags + $(sed -n 's/^received [0-9]* bytes: [0-9]* in device memory (\([0-9]*\) frags).*/\1/p' $f | grep . || echo 0)))
		dn=$((dn + $(sed -n 's/^stats: recvmsg.*DONTNEED calls \([0-9]*\).*/\1/p' $f | grep . || echo 0)))
		held=$((held + $(sed -n 's/^parallel: [0-9]* connections, \([0-9]*\) tokens held.*/\1/p' $f | grep . || echo 0)))
	done
	for k in $rules; do ethtool -N "$IF" delete "$k"; done
	[ -n "$ctx" ] && ethtool -X "$IF" context "$ctx" delete
	[ $rc = 0 ] || return 1
	echo "$layout,$n,$rep,$bytes,$time,$cpu,$frags,$dn,$held" >> "$SCALECSV"
}

if [ "$NIC" = large ]; then
	SCALECSV=${CSV%/*}/scale-large.csv
	echo "layout,connections,rep,bytes,time_s,cpu_s,frags,dontneed_calls,tokens_held_max" > "$SCALECSV"
	# SCALE_ONLY=1 (make bench BENCH_ONLY=scale): the connections part
	MTUS="1500 9000"
	[ "${SCALE_ONLY:-0}" = 1 ] && MTUS=
	# PATHS_ONLY=1 (make bench BENCH_ONLY=paths): the receive paths at
	# MTU 1500, nothing else
	SIZES="4096 16384 65536"
	if [ "${PATHS_ONLY:-0}" = 1 ]; then
		MTUS=1500 SIZES=
	fi
	for mtu in $MTUS; do
		ip link set "$IF" mtu $mtu && ip -n $NS link set "$PEER" mtu $mtu &&
			link_up || { echo "bench: MTU $mtu failed"; exit 1; }
		for rep in 1 2 3; do
			for RXPS in $SIZES; do
				for PACK in off on; do
					rx devmem 1048576 $rep 1024 || exit 1
				done
			done
			if [ "${PATHS_ONLY:-0}" = 1 ]; then
				RXPS=4096 PACK=off
				rx devmem 1048576 $rep 1024 || exit 1
				RXPS=65536 PACK=on
				rx devmem 1048576 $rep 1024 || exit 1
			fi
			RXPS=0 PACK=off
			rx copy 1048576 $rep 0 || exit 1
			# the same receive through io_uring (ncdevmem --uring)
			[ $mtu = 1500 ] || continue
			RXPS=4096 PACK=off
			rx uring 1048576 $rep 1024 || exit 1
			RXPS=65536 PACK=on
			rx uring 1048576 $rep 1024 || exit 1
			# and through io_uring zero-copy receive
			RXPS=4096 PACK=off
			rx zcrx 1048576 $rep 1024 || exit 1
			RXPS=65536 PACK=on
			rx zcrx 1048576 $rep 1024 || exit 1
			# one queue, two connections: one ring reads both,
			# or two rings share the instance, a connection each
			ethtool -K "$IF" rx-gro-hw on || exit 1
			rxscale zcrx 2 $rep || exit 1
			rxscale zshare 2 $rep || exit 1
		done
	done
	ip link set "$IF" mtu 1500 && ip -n $NS link set "$PEER" mtu 1500 &&
		link_up || { echo "bench: MTU 1500 failed"; exit 1; }
	if [ "${PATHS_ONLY:-0}" = 1 ]; then
		echo "BENCH DONE"
		exit 0
	fi
	ethtool -K "$IF" rx-gro-hw on || exit 1
	# BENCH_SCALE_CONNS (1,4,16,64), BENCH_SCALE_REPS (3): fewer rows
	# (make vm-bundle-test)
	BENCH_SCALE_CONNS=${BENCH_SCALE_CONNS:-1,4,16,64}
	for rep in $(seq "${BENCH_SCALE_REPS:-3}"); do
		for n in ${BENCH_SCALE_CONNS//,/ }; do
			for layout in queue rss4 bind4 copy uring; do
				[ $layout = bind4 ] && [ $n -lt 4 ] && continue
				rxscale $layout $n $rep || exit 1
			done
		done
	done
	ethtool -X "$IF" default
	ethtool -K "$IF" rx-gro-hw off
	BIND_MIBS="1024 4096"
	[ "${SCALE_ONLY:-0}" = 1 ] && BIND_MIBS=
	for mib in $BIND_MIBS; do
		for RXPS in 4096 65536; do
			for run in 1 2 3; do
				out=$("$BIN" -f "$IF" --bind-only --size $((mib << 20)) -b $RXPS) || {
					echo "bind of $mib MiB at $RXPS failed"; exit 1; }
				echo "$out" | sed -n 's/^bind size_bytes=[0-9]* rx_page_size=\([0-9]*\) niovs=\([0-9]*\) netlink_bind_us=\([0-9]*\) mem_bytes=\([0-9]*\) bytes_per_niov=\([0-9.]*\)$/'"$mib,$run"',\2,\3,\4,\5,\1/p' >> "$CSV"
			done
		done
	done
	echo "BENCH DONE"
	exit 0
fi
# tx <devmem|zerocopy|copy> <rep>: the VM's host end sends TX_MIB to a
# socat in NS that throws it away; the sender's figures (thread CPU
# time, calls, completion notifications, copied completions) from
# ncdevmem --tx-bench, the same 64 MiB buffer sent over and over
tx()
{
	local mode=$1 rep=$2 port=$((6100 + RANDOM % 800)) spid i out

	ip netns exec $NS taskset -c 0 socat -u TCP-LISTEN:$port,reuseaddr \
		OPEN:/dev/null 2> /tmp/tx-socat.err &
	spid=$!
	for i in $(seq 100); do
		ip netns exec $NS ss -Hltn "sport = :$port" | grep -q . && break
		sleep 0.1
	done
	out=$(taskset -c 1 timeout 300 "$BIN" -s 192.0.2.2 -p $port -f "$IF" \
		--tx-bench $mode --bytes $((TX_MIB << 20))) ||
		{ echo "tx-bench $mode run $rep failed: $out"; kill $spid; return 1; }
	wait $spid
	echo "$out" | sed -n 's/^tx-bench \([a-z]*\): bytes \([0-9]*\) time \([0-9.]*\) s sender cpu \([0-9.]*\) s calls \([0-9]*\) notifications \([0-9]*\) copied \([0-9]*\)$/\1,'"$rep"',\2,\3,\4,\5,\6,\7/p' >> "$TXCSV"
}

if [ "$NIC" = e1000e ]; then
	for mtu in 1500 9000; do
		ip link set "$IF" mtu $mtu && ip -n $NS link set "$PEER" mtu $mtu &&
			link_up || { echo "bench: MTU $mtu failed"; exit 1; }
		# 4 KiB net_iovs, and the large ones e1000e takes (8 and
		# 32 KiB payload buffers, from a hugetlb udmabuf); zcrx into
		# the udmabuf at 4 KiB
		for rep in $(seq "${BENCH_E1000E_REPS:-5}"); do
			for RXPS in 0 8192 32768; do
				rx devmem 65536 $rep 1024 || exit 1
			done
			RXPS=0
			rx zcrx 65536 $rep 1024 || exit 1
			rx copy 65536 $rep 0 || exit 1
		done
	done
	# send: the host end's TSO on (the model cuts its frames; the
	# receiver here is a plain socket, which reassembles them)
	ip link set "$IF" mtu 1500 && ip -n $NS link set "$PEER" mtu 1500 &&
		link_up || { echo "bench: MTU 1500 failed"; exit 1; }
	TXCSV=${CSV%/*}/tx-e1000e.csv
	TX_MIB=256
	echo "mode,rep,bytes,time_s,cpu_s,calls,notifications,copied" > "$TXCSV"
	for rep in $(seq "${BENCH_E1000E_REPS:-5}"); do
		for mode in devmem zerocopy copy; do
			tx $mode $rep || exit 1
		done
	done
	echo "BENCH DONE"
	exit 0
fi
for rep in 1 2 3; do
	for rs in 65536 4096 1048576; do
		rx devmem $rs $rep 1024 || exit 1
		rx copy $rs $rep 0 || exit 1
	done
done
for batch in 1 8 32 128; do
	rx devmem 65536 1 $batch || exit 1
done
echo "BENCH DONE"
