#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# devmemctl (tools/net/devmemctl), the operator's tool, on an hdsim pair of
# 4 queues: every reason `check` names, made for real and named, each with
# its fix; `prepare` then a stream into device memory with 0 bytes copied;
# `release` puts the NIC back exactly as before (ethtool's view and
# devmemctl's own); bad input changes nothing. The NIC's state is read
# with ethtool(8), not only with the tool under test.

cd "$(dirname "$0")" || exit 1
. ../lib/ktap.sh
. ../lib/hdsim_env.sh
. ./devmem_env.sh

ID=25
PORT=5240
PATTERN=$(printf '\001\002\003\004\005\006')
TMP=$(mktemp -d)
HOLD=
export DEVMEMCTL_STATE_DIR=$TMP/state
trap '[ -n "$HOLD" ] && kill $HOLD 2>/dev/null; hdsim_cleanup; rm -rf "$TMP"' EXIT

PLAN=31
ktap_plan $PLAN
skip_all()
{
	for i in $(seq $PLAN); do ktap_skip "devmemctl $i" "$1"; done
	ktap_finish
}
[ -x ./devmemctl ] || skip_all "devmemctl not built"
[ -d /sys/bus/hdsim ] && [ -e /dev/udmabuf ] || skip_all "no hdsim or udmabuf"
command -v ethtool > /dev/null || skip_all "no ethtool(8)"
hdsim_pair "$ID" "devmemctl-peer-$ID" 192.0.2 2001:db8:7 ||
	skip_all "no hdsim pair"
NS=$HDSIM_NS
LAST=3		# the last of the 4 queues

# snapshot <file>: the NIC as ethtool and devmemctl show it
snapshot()
{
	{
		ethtool -x "$IF" 2>&1
		ethtool -n "$IF" 2>&1
		ethtool -k "$IF" | grep ntuple
		ethtool -g "$IF" 2>&1
		# bindings and NAPI ids come and go with the holder
		./devmemctl show "$IF" | grep -v '^  page pool' |
			sed -e 's/ napi [0-9]*,//' -e 's/ dmabuf [0-9]*,//' \
			    -e 's/ host memory,//'
		for c in 1 2 3 4 5 6 7 8; do
			ethtool -x "$IF" context $c > /dev/null 2>&1 &&
				echo "RSS context $c"
		done
	} > "$1"
	return 0
}

# ctl <rc> <out> <args>: devmemctl <args>, its output in $TMP/<out>;
# true if it exited <rc>
ctl()
{
	local want=$1 out=$TMP/$2 rc

	shift 2
	./devmemctl "$@" > "$out" 2>&1
	rc=$?
	[ $rc = "$want" ] && return 0
	echo "# devmemctl $* exited $rc, not $want:" >&2
	sed 's/^/#   /' "$out" >&2
	return 1
}

# names <out> <tag>...: each reason tag is in $TMP/<out>
names()
{
	local out=$TMP/$1 tag

	shift
	for tag in "$@"; do
		grep -q "\[$tag\]" "$out" ||
			{ echo "# no [$tag] in:" >&2; sed 's/^/#   /' "$out" >&2; return 1; }
	done
}

# same <before> <what>: the NIC as in snapshot <before>
same()
{
	snapshot "$TMP/now"
	diff -u "$1" "$TMP/now" > "$TMP/diff" && return 0
	echo "# $2: the NIC changed:" >&2
	sed 's/^/#   /' "$TMP/diff" >&2
	return 1
}

# hold <args>: ncdevmem bound to queue 3, waiting for a connection
hold()
{
	: > "$TMP/hold.log"
	./ncdevmem -l -n -f "$IF" -s 192.0.2.1 -p $((PORT + 9)) -t $LAST -q 1 \
		"$@" > /dev/null 2> "$TMP/hold.log" &
	HOLD=$!
	wait_line "$TMP/hold.log" "^listening"
}

unhold()
{
	kill $HOLD 2>/dev/null
	wait $HOLD 2>/dev/null
	HOLD=
	wait_no_bindings
}

FLOW4="tcp4 dst-ip 192.0.2.1 dst-port $PORT"
FLOW6="tcp6 dst-port $PORT"
./devmemctl set "$IF" tcp-data-split off hds-thresh 0 > /dev/null 2>&1
snapshot "$TMP/fresh"

# Bad input: a clear error, exit 2 (usage) or 1 (refused), nothing changed
bad_input()
{
	ctl 2 out check nosuch0 && grep -q "nosuch0: no such interface" "$TMP/out" &&
	ctl 2 out prepare nosuch0 && ctl 2 out release &&
	ctl 2 out check "$IF" --flow "udp4 dst-port 1" &&
	grep -q 'starts with tcp4 or tcp6' "$TMP/out" &&
	ctl 2 out check "$IF" --flow "tcp4 dst-ip 2001:db8::1 dst-port 1" &&
	grep -q "not an address of the flow's family" "$TMP/out" &&
	ctl 2 out check "$IF" --flow "tcp4 dst-port 70000" &&
	ctl 2 out check "$IF" --flow "tcp4 src-port 5" &&
	grep -q 'needs dst-port' "$TMP/out" &&
	ctl 2 out check "$IF" --flow "tcp4 dst-port 1 proto 6" &&
	grep -q 'unknown word "proto"' "$TMP/out" &&
	ctl 2 out check "$IF" --queues 0 && ctl 2 out check "$IF" --queues 5 &&
	ctl 2 out check "$IF" --size 12Q &&
	ctl 2 out set "$IF" tcp-data-split maybe && ctl 2 out set "$IF" &&
	ctl 2 out set "$IF" hds-thresh -1 && ctl 2 out frobnicate "$IF" &&
	ctl 2 out release "$IF" --flow "$FLOW4" &&
	ctl 1 out prepare "$IF" --queues 4 &&
	grep -q "leave none of its 4 RX queues" "$TMP/out" &&
	ctl 1 out release "$IF" && grep -q "not prepared by devmemctl" "$TMP/out" &&
	ctl 2 out prepare ../x && grep -q '"../x" is no interface name' "$TMP/out" &&
	mkdir -p "$DEVMEMCTL_STATE_DIR" &&
	printf 'ifindex 1\nqueues -5 1\n' > "$DEVMEMCTL_STATE_DIR/$IF" &&
	ctl 1 out release "$IF" && grep -q "unreadable state file" "$TMP/out" &&
	rm "$DEVMEMCTL_STATE_DIR/$IF" &&
	same "$TMP/fresh" "bad input"
}
ktap_check "bad input: a precise error, and the NIC unchanged" bad_input

# device memory of a PCI function (the first one here): hdsim is none
owner_case()
{
	local pci

	pci=$(basename "$(ls -d /sys/bus/pci/devices/* | head -n 1)")
	ctl 2 out check "$IF" --owner 12:34 &&
	grep -q "not a PCI address" "$TMP/out" &&
	ctl 2 out check "$IF" --owner 0000:fe:1f.7 &&
	grep -q "no such PCI function here" "$TMP/out" &&
	ctl 1 out check "$IF" --owner "$pci" && names out p2p-not-pci
}
ktap_check "check --owner names hdsim as no PCI function; bad owners refused" \
	owner_case

# The last three reasons, made for real: no device-memory queue (nothing
# asked, prepared or bound), a driver without header split (veth), a
# flow that a rule drops (the rule's own fix is to delete it)
rest_case()
{
	local loc rc=1 p=$((PORT + 7))

	ctl 1 out check "$IF" && names out no-queues || return 1
	ip link add dmctl-v0 type veth peer name dmctl-v1 || return 1
	ctl 1 out check dmctl-v0 --queues 1 && names out hds-unsupported &&
		rc=0
	ip link del dmctl-v0
	[ $rc = 0 ] || return 1
	ethtool -K "$IF" ntuple on || return 1
	loc=$(ethtool -N "$IF" flow-type tcp4 dst-port $p action -1 |
	      sed -n 's/^Added rule with ID //p')
	[ -n "$loc" ] &&
		ctl 1 out check "$IF" --queues 1 --flow "tcp4 dst-port $p" &&
		names out flow-dropped &&
		grep -q "rule $loc" "$TMP/out" || rc=1
	[ -n "$loc" ] && ethtool -N "$IF" delete "$loc"
	ethtool -K "$IF" ntuple off
	same "$TMP/fresh" "the last three reasons" || rc=1
	return $rc
}
ktap_check "check names no device-memory queue, no header split (veth), a dropping rule" \
	rest_case

ktap_check "check names header split off, with its fix" \
	eval 'ctl 1 out check "$IF" --queues 1 && names out hds-off &&
	      grep -q "fix: devmemctl set $IF tcp-data-split on" "$TMP/out"'

ktap_check "set: tcp-data-split on, hds-thresh 256, as ethtool reads them" \
	eval './devmemctl set "$IF" tcp-data-split on hds-thresh 256 &&
	      ethtool -g "$IF" | grep -q "TCP data split:.*on" &&
	      ./devmemctl show "$IF" | grep -q "tcp-data-split on, hds-thresh 256"'

ktap_check "check names hds-thresh above 0, with its fix" \
	eval 'ctl 1 out check "$IF" --queues 1 && names out hds-thresh &&
	      grep -q "fix: devmemctl set $IF hds-thresh 0" "$TMP/out"'
./devmemctl set "$IF" hds-thresh 0

ktap_check "check names a device-memory queue in the default RSS context" \
	eval 'ctl 1 out check "$IF" --queues 1 && names out rss-default &&
	      grep -q "fix: ethtool -X $IF equal $LAST" "$TMP/out"'

ktap_check "check names a flow that no rule steers" \
	eval 'ethtool -X "$IF" equal $LAST &&
	      ctl 1 out check "$IF" --queues 1 --flow "$FLOW4" &&
	      names out flow-unsteered && ! names out rss-default 2> /dev/null'

ktap_check "check names a flow steered to a host-memory queue" \
	eval 'ethtool -K "$IF" ntuple on &&
	      loc=$(ethtool -N "$IF" flow-type tcp4 dst-port $PORT action 1 |
		    sed -n "s/^Added rule with ID //p") &&
	      ctl 1 out check "$IF" --queues 1 --flow "$FLOW4" &&
	      names out flow-host-queue &&
	      grep -q "rule $loc steers it to queue(s) 1," "$TMP/out" &&
	      ethtool -N "$IF" delete "$loc"'
ethtool -K "$IF" ntuple off
ethtool -X "$IF" default

# show: what devmem readers got in host memory, per queue (devmem-stats)
host_copies_case()
{
	local loc pid rc p=$((PORT + 5))

	ethtool -X "$IF" equal $LAST && ethtool -K "$IF" ntuple on || return 1
	loc=$(ethtool -N "$IF" flow-type tcp4 dst-port $p action 1 |
	      sed -n 's/^Added rule with ID //p')
	: > "$TMP/hc.log"
	./ncdevmem -l -n -f "$IF" -s 192.0.2.1 -p $p -t $LAST -q 1 \
		--allow-host > "$TMP/hc.out" 2> "$TMP/hc.log" &
	pid=$!
	if wait_line "$TMP/hc.log" "^listening"; then
		head -c $((1 << 20)) /dev/zero |
			ip netns exec "$NS" socat -u STDIN TCP:192.0.2.1:$p
	else
		kill $pid
	fi
	wait $pid
	rc=$?
	ethtool -N "$IF" delete "$loc"
	ethtool -K "$IF" ntuple off
	ethtool -X "$IF" default
	wait_no_bindings
	if [ $rc != 0 ]; then
		sed 's/^/#   /' "$TMP/hc.log" >&2
		return 1
	fi
	./devmemctl show "$IF" > "$TMP/show"
	grep -q "rx queue 1: payload readers got in host memory: devmem 1048576 bytes" \
		"$TMP/show" || { sed 's/^/#   /' "$TMP/show" >&2; return 1; }
}
ktap_check "show: 1 MiB a devmem reader got in host memory, on its queue" \
	host_copies_case

# A reader that keeps its fragments: a queue bound by ncdevmem (hold), a
# flow steered to it, read by a Python reader with MSG_SOCK_DEVMEM that
# counts its SCM_DEVMEM_DMABUF cmsgs and gives no token back: show lists
# its socket with exactly that many tokens and its process; closed, none
tokens_case()
{
	local loc pid rc=1 p=$((PORT + 6)) held line

	hold || return 1
	ethtool -X "$IF" equal $LAST && ethtool -K "$IF" ntuple on || return 1
	loc=$(ethtool -N "$IF" flow-type tcp4 dst-port $p action $LAST |
	      sed -n 's/^Added rule with ID //p')
	: > "$TMP/tk.out"
	python3 - "$p" > "$TMP/tk.out" 2>&1 <<-'EOF' &
		import socket, sys, time
		MSG_SOCK_DEVMEM, SCM_DEVMEM_DMABUF = 0x2000000, 79
		s = socket.socket()
		s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
		s.bind(("192.0.2.1", int(sys.argv[1])))
		s.listen(1)
		print("listening", flush=True)
		c, _ = s.accept()
		got = frags = 0
		while got < 65536:
		    data, anc, _, _ = c.recvmsg(65536, 65536, MSG_SOCK_DEVMEM)
		    if not data:
		        break
		    got += len(data)
		    frags += sum(1 for lvl, typ, _ in anc
		                 if lvl == socket.SOL_SOCKET and typ == SCM_DEVMEM_DMABUF)
		print("held", frags, got, flush=True)
		time.sleep(60)
	EOF
	pid=$!
	if wait_line "$TMP/tk.out" "^listening"; then
		head -c 65536 /dev/zero |
			ip netns exec "$NS" socat -u STDIN TCP:192.0.2.1:$p
		wait_line "$TMP/tk.out" "^held [1-9][0-9]* 65536$" &&
		held=$(sed -n 's/^held \([0-9]*\) .*/\1/p' "$TMP/tk.out") &&
		./devmemctl show "$IF" > "$TMP/show" &&
		line="^  192.0.2.1:$p <- 192.0.2.2:[0-9]*: $held tokens"
		line+=" (socket [0-9]*, pid $pid (python3), uid 0)$"
		grep -q "$line" "$TMP/show" && rc=0
		[ $rc = 0 ] && echo "# a reader holding $held tokens listed"
		[ $rc = 0 ] || sed 's/^/#   /' "$TMP/show" "$TMP/tk.out" >&2
	fi
	kill $pid
	wait $pid 2> /dev/null
	# its socket closed: the tokens given back, no socket listed
	./devmemctl show "$IF" | grep -q "^sockets holding tokens" && rc=1
	ethtool -N "$IF" delete "$loc"
	ethtool -K "$IF" ntuple off
	ethtool -X "$IF" default
	unhold
	return $rc
}
ktap_check "show: a reader's socket with the tokens it holds, its process" \
	tokens_case

ktap_check "check names a bound queue in the default RSS context (the binding's queues)" \
	eval 'hold && ctl 1 out check "$IF" && names out rss-default &&
	      grep -q "queue(s) $LAST are in the default" "$TMP/out"'
ktap_check "prepare refuses a queue already bound, and changes nothing" \
	eval 'snapshot "$TMP/bound" && ctl 1 out prepare "$IF" &&
	      grep -q "queue $LAST already has a binding" "$TMP/out" &&
	      same "$TMP/bound" "prepare refused"'
unhold

xdp_case()
{
	ip link set dev "$IF" xdpgeneric obj xdp_pass.bpf.o sec xdp || return 1
	ctl 1 out check "$IF" --queues 1 --try-bind && names out xdp bind-refused
	local rc=$?

	ip link set dev "$IF" xdpgeneric off
	return $rc
}
ktap_check "check names XDP, and --try-bind shows the kernel refusing the bind" xdp_case

ktap_check "check --try-bind: the kernel's refusal of header split off" \
	eval './devmemctl set "$IF" tcp-data-split off &&
	      ctl 1 out check "$IF" --queues 1 --try-bind &&
	      names out hds-off bind-refused &&
	      grep "bind-refused" "$TMP/out" | grep -q "queue $LAST: bind-rx fails"'

ktap_check "check names a udmabuf over udmabuf's size limit" \
	eval 'ctl 1 out check "$IF" --queues 1 --size 1T && names out udmabuf-limit'

# An application without CAP_IPC_LOCK, its RLIMIT_MEMLOCK 1 MiB: an 8 MiB
# zcrx area of host memory is named, with the prlimit that fixes it; the
# fix applied, it is not; a 512 KiB area is not; a process with
# CAP_IPC_LOCK (this one) is charged nothing
memlock_case()
{
	local app fix rc=1

	setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps=-all \
		bash -c 'ulimit -l 1024 && exec sleep 60' &
	app=$!
	for i in $(seq 50); do
		[ "$(cat /proc/$app/comm 2>/dev/null)" = sleep ] && break
		sleep 0.1
	done
	if ctl 1 out check "$IF" --queues 1 --zcrx-area 8M --pid $app &&
	   names out memlock &&
	   grep -q "over the RLIMIT_MEMLOCK of pid $app (sleep, uid 65534), 1048576 bytes" \
		"$TMP/out" &&
	   ! ./devmemctl check "$IF" --queues 1 --zcrx-area 512K --pid $app |
		grep -q "\[memlock\]" &&
	   ! ./devmemctl check "$IF" --queues 1 --zcrx-area 8M --pid 1 |
		grep -q "\[memlock\]" &&
	   fix=$(sed -n 's/^ *fix: \(prlimit --pid [^,]*\),.*/\1/p' "$TMP/out") &&
	   [ -n "$fix" ] && $fix &&
	   ! ./devmemctl check "$IF" --queues 1 --zcrx-area 8M --pid $app |
		grep -q "\[memlock\]" &&
	   ctl 2 out check "$IF" --pid $app &&
	   grep -q "goes with --zcrx-area" "$TMP/out" &&
	   ctl 2 out check "$IF" --zcrx-area 8M --pid 0 &&
	   grep -q "no such process" "$TMP/out" &&
	   ctl 2 out check "$IF" --zcrx-area 16777216T &&
	   grep -q "16777216T: not a size" "$TMP/out" &&
	   ctl 2 out check "$IF" --zcrx-area 18446744073709551616 &&
	   grep -q "not a size" "$TMP/out"; then
		rc=0
	fi
	kill $app
	wait $app 2> /dev/null
	return $rc
}
ktap_check "check names a zcrx area over the application's RLIMIT_MEMLOCK, with its fix" \
	memlock_case

# prepare a fresh NIC for one queue and one flow
snapshot "$TMP/before"
ktap_check "prepare: header split, RSS off queue $LAST, a rule for the flow" \
	eval 'ctl 0 prep prepare "$IF" --flow "$FLOW4" &&
	      ethtool -g "$IF" | grep -q "TCP data split:.*on" &&
	      ! ethtool -x "$IF" | grep -q "^ *[0-9]*: .*\b$LAST\b" &&
	      ethtool -n "$IF" | grep -q "Action: Direct to queue $LAST" &&
	      [ -f "$DEVMEMCTL_STATE_DIR/$IF" ]'
ktap_check "check after prepare: ok for the flow" \
	eval 'ctl 0 out check "$IF" --flow "$FLOW4" && grep -q "$IF: ok" "$TMP/out"'
ktap_check "prepare twice is refused, and changes nothing" \
	eval 'snapshot "$TMP/prepared" && ctl 1 out prepare "$IF" &&
	      grep -q "already prepared" "$TMP/out" &&
	      same "$TMP/prepared" "second prepare"'

# devmem_env.sh's stream: bound by ncdevmem -n (no NIC set-up of its own)
rx_case "after prepare: a stream of 4 MiB into device memory, 0 copied" \
	192.0.2.1 $((4 << 20)) pipe -n -t $LAST -q 1 -L

ktap_check "release is refused while the queue is bound, and changes nothing" \
	eval 'hold && ctl 1 out release "$IF" &&
	      grep -q "queue $LAST still has a binding" "$TMP/out" &&
	      same "$TMP/prepared" "release while bound" && unhold'
ktap_check "release: the NIC exactly as before prepare" \
	eval 'ctl 0 out release "$IF" && same "$TMP/before" release &&
	      [ ! -e "$DEVMEMCTL_STATE_DIR/$IF" ]'

ktap_check "prepare of 2 queues, IPv4 and IPv6 flows: an RSS context over them" \
	eval 'ctl 0 prep prepare "$IF" --queues 2 --flow "$FLOW4" --flow "$FLOW6" &&
	      ethtool -x "$IF" context 1 > /dev/null &&
	      [ "$(ethtool -n "$IF" | grep -c "RSS Context ID: 1")" = 2 ] &&
	      ctl 0 out check "$IF" --flow "$FLOW4" --flow "$FLOW6"'
ktap_check "release of 2 queues: the NIC exactly as before" \
	eval 'ctl 0 out release "$IF" && same "$TMP/before" "release of 2"'

# apply: the boot-time path (devmem-tcp@.service), from a config file
export DEVMEMCTL_CONFIG_DIR=$TMP/conf
mkdir -p "$DEVMEMCTL_CONFIG_DIR"
printf '# test\nqueues 2\n\nflow %s\nflow %s\n' "$FLOW4" "$FLOW6" \
	> "$DEVMEMCTL_CONFIG_DIR/$IF.conf"
ktap_check "apply: prepares as the config file says, twice in a row" \
	eval 'ctl 0 out apply "$IF" && ctl 0 out apply "$IF" &&
	      [ "$(ethtool -n "$IF" | grep -c "RSS Context ID")" = 2 ] &&
	      ctl 0 out check "$IF" --flow "$FLOW4" --flow "$FLOW6" &&
	      ctl 0 out release "$IF" && same "$TMP/before" "apply, release"'

bad_config()
{
	printf 'queues 1\nflow tcp4 dst-port 5201 vlan 3\n' > "$TMP/bad1.conf"
	printf 'queues one\n' > "$TMP/bad2.conf"
	printf 'queue 1\n' > "$TMP/bad3.conf"
	ctl 2 out apply "$IF" --config "$TMP/bad1.conf" &&
	grep -q "bad1.conf:2: unknown word \"vlan\"" "$TMP/out" &&
	ctl 2 out apply "$IF" --config "$TMP/bad2.conf" &&
	grep -q "bad2.conf:1: queues \"one\"" "$TMP/out" &&
	ctl 2 out apply "$IF" --config "$TMP/bad3.conf" &&
	grep -q "bad3.conf:1: unknown line \"queue\"" "$TMP/out" &&
	ctl 2 out apply "$IF" --config "$TMP/none.conf" &&
	ctl 2 out prepare "$IF" --config "$TMP/bad1.conf" &&
	same "$TMP/before" "bad config"
}
ktap_check "apply: a bad config file is refused by line, and changes nothing" \
	bad_config

ktap_check "apply while the prepared queues are bound is refused" \
	eval 'ctl 0 out apply "$IF" && hold &&
	      snapshot "$TMP/applied" && ctl 1 out apply "$IF" &&
	      grep -q "still has a binding" "$TMP/out" &&
	      same "$TMP/applied" "apply while bound"; rc=$?; unhold;
	      ctl 0 out release "$IF" && [ $rc = 0 ]'

# release leaves what is no longer prepare's: a rule someone put in the
# place of its own, and ntuple, which that rule needs
foreign_rule()
{
	local loc

	ctl 0 out prepare "$IF" --flow "$FLOW4" || return 1
	loc=$(ethtool -n "$IF" | sed -n 's/^Filter: //p')
	ethtool -N "$IF" delete "$loc" &&
	ethtool -N "$IF" flow-type tcp4 dst-port 7 action 1 loc "$loc" &&
	ctl 0 out release "$IF" &&
	grep -q "rule $loc is not the one prepare added: left" "$TMP/out" &&
	grep -q "ntuple left on: 1 rule" "$TMP/out" &&
	ethtool -n "$IF" | grep -q "Action: Direct to queue 1"
	local rc=$?

	ethtool -N "$IF" delete "$loc"
	ethtool -K "$IF" ntuple off
	same "$TMP/before" "foreign rule cleaned up" && return $rc
}
ktap_check "release leaves a rule that is not its own, and ntuple for it" \
	foreign_rule

# prepare failing half way (the device's 8 RSS contexts taken) undoes all
fail_half_way()
{
	local c

	for c in $(seq 8); do
		ethtool -X "$IF" context new equal 2 > /dev/null || return 1
	done
	snapshot "$TMP/full"
	ctl 1 out prepare "$IF" --queues 2 --flow "$FLOW4" &&
		grep -q "cannot make an RSS context" "$TMP/out" &&
		grep -q "nothing changed" "$TMP/out" &&
		same "$TMP/full" "prepare failed half way" &&
		[ ! -e "$DEVMEMCTL_STATE_DIR/$IF" ]
	local rc=$?

	for c in $(seq 8); do ethtool -X "$IF" context $c delete; done
	return $rc
}
ktap_check "prepare failing half way undoes what it did" fail_half_way

ktap_check "the NIC at the end as at the start of the prepare cases" \
	same "$TMP/before" "end"

ktap_finish
