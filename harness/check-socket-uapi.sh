#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# devmem's socket options, control messages and recv flag have upstream's
# numbers on every architecture, and no other option takes them
# (harness/check-socket-uapi.py), in the tree make tree laid down.
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/arch" ] || die "no kernel tree in $SRC (run: make tree)"
exec /usr/bin/python3 "$REPO/harness/check-socket-uapi.py" "$SRC"
