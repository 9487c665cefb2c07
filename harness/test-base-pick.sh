#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host check: the choice of the Debian base (harness/base-pick.sh) over
# fake archive listings; no apt, no network. Each case gives the pin,
# what dpkg has installed, what the archive serves and which versions the
# series applies to, and the action and version expected.
. "$(dirname "$0")/lib.sh"
. "$REPO/harness/base-pick.sh"

pass=0
fail=0

# applies_to: the fake "series applies" command; APPLY lists versions
applies_to() {
	case " $APPLY " in *" $1 "*) return 0 ;; esac
	return 1
}
BASE_APPLIES=applies_to

# expect <name> <wanted "action version"> <got line>
expect() {
	local got

	got=$(cut -d' ' -f1,2 <<< "$3")
	if [ "$got" = "$2" ]; then
		pass=$((pass + 1))
		printf 'ok   %s: %s\n' "$1" "$3"
	else
		fail=$((fail + 1))
		printf 'FAIL %s: wanted "%s", got "%s"\n' "$1" "$2" "$3"
	fi
}

# The archive of 2026-11-28: linux-source-6.1 at five revisions in the
# security archive and two in bookworm; linux-config-6.1 at two.
SERVED="6.1.192-3 6.1.192-2 6.1.192-1 6.1.190-1 6.1.187-1 6.1.176-1 6.1.170-3"
CFG_SERVED="6.1.192-3 6.1.176-1"
APPLY=

expect "pin served, nothing installed" "install 6.1.192-2" \
	"$(base_pick 6.1.192-2 "" $SERVED)"
expect "pin served and installed" "keep 6.1.192-2" \
	"$(base_pick 6.1.192-2 6.1.192-2 $SERVED)"
expect "pin served, an older revision installed: upgraded" "install 6.1.192-2" \
	"$(base_pick 6.1.192-2 6.1.192-1 $SERVED)"
expect "pin gone, same upstream served: the newest revision" "install 6.1.192-3" \
	"$(base_pick 6.1.192-2 "" 6.1.192-3 6.1.192-1 6.1.176-1)"
expect "pin gone, same upstream served, an older one installed" "install 6.1.192-3" \
	"$(base_pick 6.1.192-2 6.1.192-1 6.1.192-3 6.1.176-1)"
expect "pin gone and installed: kept" "keep 6.1.192-2" \
	"$(base_pick 6.1.192-2 6.1.192-2 6.1.192-3)"
expect "installed newer than the pin: kept, not downgraded" "keep 6.1.192-3" \
	"$(base_pick 6.1.192-2 6.1.192-3 $SERVED)"
expect "installed newer than the pin, pin gone" "keep 6.1.192-4" \
	"$(base_pick 6.1.192-2 6.1.192-4 6.1.192-3)"
expect "dpkg order: ~ sorts before the release" "install 6.1.192-3" \
	"$(base_pick 6.1.192-1 "" 6.1.192-3~bpo12+1 6.1.192-3 6.1.176-1)"

APPLY="6.1.195-1 6.1.176-1"
expect "only another upstream served, it applies" "install 6.1.195-1" \
	"$(base_pick 6.1.192-2 "" 6.1.195-1 6.1.176-1)"
APPLY="6.1.176-1"
expect "only other upstreams served, the newest does not apply" "install 6.1.176-1" \
	"$(base_pick 6.1.192-2 "" 6.1.195-1 6.1.176-1)"
APPLY=
expect "only other upstreams served, none applies" "none -" \
	"$(base_pick 6.1.192-2 "" 6.1.195-1 6.1.176-1)"
APPLY="6.1.195-1"
expect "other upstream installed and applies: kept" "keep 6.1.195-1" \
	"$(base_pick 6.1.192-2 6.1.195-1 6.1.176-1)"
APPLY="6.1.176-1"
expect "an older upstream applies but apt would downgrade" "none -" \
	"$(base_pick 6.1.192-2 6.1.195-1 6.1.176-1)"
APPLY=

expect "nothing served, nothing installed" "none -" \
	"$(base_pick 6.1.192-2 "")"
expect "nothing served, the pin installed" "keep 6.1.192-2" \
	"$(base_pick 6.1.192-2 6.1.192-2)"

expect "config at the source's revision" "exact 6.1.192-3" \
	"$(config_pick 6.1.192-3 $CFG_SERVED)"
expect "config and source at different revisions" "same-upstream 6.1.192-3" \
	"$(config_pick 6.1.192-2 $CFG_SERVED)"
expect "config only of another upstream" "other 6.1.192-3" \
	"$(config_pick 6.1.190-1 $CFG_SERVED)"
expect "no config served" "none -" "$(config_pick 6.1.192-2)"

echo "base-pick: $pass passed, $fail failed"
[ "$fail" = 0 ]
