#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A test killed by its timeout never runs its teardown: its hdsim device,
# with the address and flow rules on it, and its peer namespace stay. The
# next test must pass anyway. Run the last test of recv alone (DEVMEM_ONLY)
# and kill it with SIGKILL in its body, as the harness does at a timeout,
# check the leftovers are there, then run a test of recv again: the
# fixture's setup, which every recv test runs first, must remove them, the
# test must pass and nothing may be left. (The whole of recv runs as a
# test of its own.)

cd "$(dirname "$0")" || exit 1
. ../lib/ktap.sh
. ./devmem_env.sh

TMP=$(mktemp -d)
trap 'pkill -KILL -x recv; rm -rf "$TMP"' EXIT

ktap_plan 3
if [ ! -d /sys/bus/hdsim ] || [ ! -e /dev/udmabuf ]; then
	for i in 1 2 3; do ktap_skip "recovery $i" "no hdsim or udmabuf"; done
	ktap_finish
fi
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

# 1. kill recv in the body of its last test. Only that body receives
# into device memory here, so frags counted since before recv started
# mean it is receiving; it holds every token until the stream has
# stalled for a second, so it is still in the body when we see them.
# Kill at once: a sample taken late (a loaded host delays the guest's
# loop) must not let the body finish first. The frag count is read
# before recv starts, not when its device appears: by then the body may
# already hold the whole dmabuf, with no frag coming until it gives it
# back near its end (the race a loaded CI run lost).
# The wait uses shell builtins only: an exec costs seconds on a debug
# kernel under TCG.
LAST="recv.exhausted_dmabuf_drops_then_recovers"
last_test_bound()
{
	# it runs alone, so its fixture is the only one to create hdsim31
	[ -e /sys/bus/hdsim/devices/hdsim31 ] &&
		[ "$(tcp_rx_frags)" -gt "$frags0" ]
}
frags0=$(tcp_rx_frags)
# only that test runs: the others skip before their setup
DEVMEM_ONLY=${LAST#recv.} ./recv > "$TMP/killed.log" 2>&1 &
set_up=0
for i in $(seq 3000); do
	if last_test_bound; then
		set_up=1
		break
	fi
	sleep 0.1
done
pkill -KILL -x recv
wait 2>/dev/null
sleep 0.5
left=$(ls /sys/bus/hdsim/devices 2>/dev/null | xargs)
if [ $set_up = 1 ] && [ -n "$left" ] && [ -e /run/netns/recv-31 ]; then
	ktap_pass "recv killed in $LAST: $left and netns recv-31 left behind"
else
	ktap_fail "recv killed mid-test" \
		"set up $set_up, devices '$left', netns: $(ls /run/netns 2>/dev/null | xargs)"
	sed 's/^/# /' "$TMP/killed.log"
fi

# 2. the next run cleans up first and passes
if DEVMEM_ONLY=dontneed_rejects_bad_input ./recv > "$TMP/next.log" 2>&1 &&
   grep -q "^ok .* recv.dontneed_rejects_bad_input$" "$TMP/next.log" &&
   grep -q "removing hdsim31 left by a killed test" "$TMP/next.log"; then
	ktap_pass "next recv test removes the leftovers and passes"
else
	ktap_fail "next run of recv" "exit or no cleanup line"
	grep -E "^(not ok|# setup|#.*FAIL)" "$TMP/next.log" | sed 's/^/# /'
fi

# 3. and leaves nothing behind itself
wait_no_bindings
left=$(ls /sys/bus/hdsim/devices 2>/dev/null | xargs)
if [ -z "$left" ] && [ ! -e /run/netns/recv-31 ] &&
   [ "$(live_bindings)" = 0 ]; then
	ktap_pass "nothing left after it: no hdsim device, netns or binding"
else
	ktap_fail "leftovers" "devices '$left', bindings $(live_bindings)"
fi
ktap_finish
