#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the Debian 12 image of `make system-test` (harness/system-test.sh),
# as a systemd oneshot unit at boot, then powers off. Each boot prints
# "SYSTEM-TEST: <case>: ok|FAIL ..." lines and a closing
# "SYSTEM-TEST boot N: P passed, F failed" on the serial console.
#   every boot: the system (systemd as PID 1, udev, the packaged kernel
#	with its initramfs, e1000e loaded by udev); the packaged
#	devmem-tcp@devmem0.service prepared devmem0 from the one line of
#	/etc/devmem-tcp/devmem0.conf (header split on, devmemctl check
#	names nothing); a stream received into a udmabuf by the packaged
#	ncdevmem, which sets nothing up itself (-n) and fails on any
#	payload in host memory (-L): every byte checked (sha256 and the
#	pattern), 0 payload bytes copied by the CPU, none counted by the
#	kernel (devmemctl show)
#   boot 1: a stream sent from a udmabuf too; then the unit stopped: the
#	port as the unit found it (header split off, the check names it),
#	and started again
#   boot 2: nothing of boot 1 is left (no dmabuf, no binding, no page
#	pool with a dmabuf, no namespace)
STATE=/var/lib/devmem-system-test
PORT=5201
PATTERN=$(printf '\001\002\003\004\005\006')
BYTES=$((8 << 20))
NS=peer
TMP=$(mktemp -d)
mkdir -p "$STATE"
# e1000e_ports, from the packaged selftests' library
. /usr/lib/devmem-tcp/kselftest/drivers/net/lib/e1000e_env.sh
boot=$(($(cat "$STATE/boots" 2>/dev/null || echo 0) + 1))
echo "$boot" > "$STATE/boots"
passed=0
failed=0

say() { echo "SYSTEM-TEST: $*"; }
# check <name> <command...>
check()
{
	local name=$1

	shift
	if "$@" > "$TMP/case.log" 2>&1; then
		passed=$((passed + 1))
		say "$name: ok"
		# the figures behind it
		grep -E '^(received|sent|stats: kernel:) ' "$TMP/case.log" |
			sed 's/^/SYSTEM-TEST:   /'
	else
		failed=$((failed + 1))
		say "$name: FAIL"
		sed 's/^/SYSTEM-TEST:   /' "$TMP/case.log" | tail -n 30
	fi
}
# wait_for <seconds> <command...>
wait_for()
{
	local i

	for ((i = 0; i < $1 * 10; i++)); do
		"${@:2}" && return 0
		sleep 0.1
	done
	return 1
}

say "boot $boot of $(uname -r) ($(sed -n 's/^PRETTY_NAME="\(.*\)"/\1/p' /etc/os-release))"

system_case()
{
	[ "$(cat /proc/1/comm)" = systemd ] || { echo "PID 1 is $(cat /proc/1/comm)"; return 1; }
	systemctl is-active systemd-udevd || return 1
	[ -f "/boot/initrd.img-$(uname -r)" ] || { echo "no initramfs for $(uname -r)"; return 1; }
	dpkg-query -W "linux-image-$(uname -r)" devmem-tcp-tools || return 1
	[ "$(command -v ncdevmem)" = /usr/bin/ncdevmem ] || return 1
}

e1000e_case()
{
	[ -d /sys/module/e1000e ] || { echo "e1000e not loaded"; return 1; }
	[ -f /sys/module/e1000e/initstate ] || { echo "e1000e is built in"; return 1; }
	grep -q "^e1000e " /proc/modules || return 1
	[ "$(e1000e_ports | wc -l)" -ge 2 ] || { echo "ports: $(e1000e_ports | xargs)"; return 1; }
}

# The unit ran at boot: devmem0 prepared as its config file says
unit_case()
{
	systemctl is-active devmem-tcp@devmem0.service ||
		{ systemctl status devmem-tcp@devmem0.service; return 1; }
	devmemctl show devmem0 | tee "$TMP/show" &&
	grep -q "^devmem0 (ifindex [0-9]*): tcp-data-split on" "$TMP/show" &&
	grep -q "^  prepared by devmemctl: queues 0-0" "$TMP/show" &&
	devmemctl check devmem0 | tee "$TMP/check" &&
	grep -q "^devmem0: ok" "$TMP/check"
}

# The unit stopped: the port as it was before (header split off, named
# by the check), nothing recorded; then started again
unit_stop_case()
{
	systemctl stop devmem-tcp@devmem0.service || return 1
	devmemctl show devmem0 | tee "$TMP/show"
	grep -q "tcp-data-split off" "$TMP/show" &&
	! grep -q "prepared by devmemctl" "$TMP/show" &&
	[ ! -e /run/devmem-tcp/devmem0 ] || return 1
	devmemctl check devmem0 > "$TMP/check" && { cat "$TMP/check"; return 1; }
	cat "$TMP/check"
	grep -q "\[hds-off\]" "$TMP/check" &&
	systemctl start devmem-tcp@devmem0.service && unit_case
}

# devmem1 in namespace $NS: IF 198.51.100.1, PEER .2; the names are the
# .link files' (system-test.sh)
pair()
{
	IF=devmem0
	PEER=devmem1
	e1000e_ports | grep -qx $IF && e1000e_ports | grep -qx $PEER ||
		{ echo "ports: $(e1000e_ports | xargs)"; return 1; }
	ip netns add $NS && ip link set "$PEER" netns $NS || return 1
	ip addr add 198.51.100.1/24 dev "$IF" && ip link set "$IF" up || return 1
	ip -n $NS addr add 198.51.100.2/24 dev "$PEER" &&
		ip -n $NS link set "$PEER" up && ip -n $NS link set lo up || return 1
	# QEMU's model sends TSO frames as IP fragments: the sender segments
	ip netns exec $NS ethtool -K "$PEER" tso off > /dev/null
	wait_for 20 grep -q 1 "/sys/class/net/$IF/carrier" || return 1
	wait_for 20 ip netns exec $NS grep -q 1 "/sys/class/net/$PEER/carrier"
}

live_bindings()
{
	ncdevmem --pools | grep -o 'dmabuf [1-9][0-9]*' | sort -u | wc -l
}

rx_case()
{
	local want got pid

	want=$(yes "$PATTERN" | head -c $BYTES | sha256sum | cut -d' ' -f1)
	ncdevmem -l -n -L -f "$IF" -s 198.51.100.1 -p $PORT -v 7 --sha256 --stats \
		> "$TMP/rx.out" 2> "$TMP/rx.err" &
	pid=$!
	wait_for 30 grep -q '^listening' "$TMP/rx.err" || { cat "$TMP/rx.err"; return 1; }
	yes "$PATTERN" | head -c $BYTES |
		ip netns exec $NS socat -u STDIN TCP:198.51.100.1:$PORT || return 1
	wait $pid || { cat "$TMP/rx.err" "$TMP/rx.out"; return 1; }
	cat "$TMP/rx.out"
	got=$(sed -n 's/^sha256 //p' "$TMP/rx.out")
	grep -q "^received $BYTES bytes: $BYTES in device memory" "$TMP/rx.out" &&
	grep -q ": 0 errors" "$TMP/rx.out" && [ "$got" = "$want" ] &&
	grep '^stats: kernel: ' "$TMP/rx.out" |
		grep -q " $BYTES bytes left in device memory, 0 payload bytes copied" &&
	wait_for 10 test "$(live_bindings)" = 0 || return 1
	# nothing the kernel counted as copied on any queue of the port
	devmemctl show "$IF" | tee "$TMP/show"
	! grep -q "payload readers got in host memory" "$TMP/show" &&
	! grep -q "not counted by this kernel" "$TMP/show"
}

tx_case()
{
	local want spid

	ethtool -K "$IF" tso on > /dev/null
	yes "$PATTERN" | head -c $BYTES > "$TMP/send"
	want=$(sha256sum < "$TMP/send" | cut -d' ' -f1)
	ip netns exec $NS socat -u TCP-LISTEN:$((PORT + 1)),reuseaddr STDOUT |
		sha256sum > "$TMP/recv.sha256" &
	spid=$!
	wait_for 10 ip netns exec $NS ss -Hltn "sport = :$((PORT + 1))" | grep -q . ||
		return 1
	ncdevmem -f "$IF" -s 198.51.100.2 -p $((PORT + 1)) < "$TMP/send" \
		> "$TMP/tx.out" 2> "$TMP/tx.err" || { cat "$TMP/tx.err"; return 1; }
	wait $spid
	cat "$TMP/tx.out"
	[ "$(cut -d' ' -f1 "$TMP/recv.sha256")" = "$want" ] ||
		{ echo "sha256 differs"; return 1; }
	grep -q "^sent $BYTES bytes from device memory in [0-9]* sendmsg calls, 0 completions copied" \
		"$TMP/tx.out"
}

left_behind_case()
{
	local dmabufs

	dmabufs=$(sed -n 's/^Total \([0-9]*\) objects.*/\1/p' /sys/kernel/debug/dma_buf/bufinfo)
	[ "$dmabufs" = 0 ] || { echo "$dmabufs dmabufs"; return 1; }
	[ "$(live_bindings)" = 0 ] || { ncdevmem --pools; return 1; }
	[ -z "$(ip netns list)" ] || { echo "namespaces: $(ip netns list)"; return 1; }
	[ "$(e1000e_ports | wc -l)" -ge 2 ]
}

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
check "systemd, udev, the packaged kernel and its initramfs" system_case
check "e1000e loaded by udev for the 82574L" e1000e_case
[ "$boot" -ge 2 ] && check "nothing of boot 1 left (dmabufs, bindings, namespaces)" left_behind_case
check "devmem-tcp@devmem0.service prepared devmem0 from its config at boot" unit_case
check "two e1000e ports named by .link files, devmem1 in a namespace" pair
check "receive on the unit's set-up: 8 MiB into a udmabuf, every byte checked, 0 copied" rx_case
[ "$boot" = 1 ] && check "send: 8 MiB from a udmabuf, sha256 at the peer" tx_case
[ "$boot" = 1 ] && check "the unit stopped leaves devmem0 as it found it, then starts again" unit_stop_case
ip netns del $NS 2>/dev/null
rm -rf "$TMP"
echo "SYSTEM-TEST boot $boot: $passed passed, $failed failed"
