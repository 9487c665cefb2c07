#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The syzkaller descriptions of fuzz/descriptions/ agree with our uAPI:
# every constant they use has, in their .const files, the amd64 value that
# build/src's headers give it, and every struct they mark with "# uapi:"
# has the C layout. Needs neither syzkaller nor Go: the headers are
# compiled with gcc.
. "$(dirname "$0")/lib.sh"
[ -d "$SRC/include/uapi" ] || die "$SRC has no tree: run make tree"
need_cmd gcc gcc
exec /usr/bin/python3 "$REPO/harness/check-fuzz-descriptions.py" "$SRC" \
	"$REPO/fuzz/descriptions"
