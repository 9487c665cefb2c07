#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The debug kernel (KASAN, lockdep, kmemleak...: config/debug.config):
# build it and its kselftests, boot it, run the tests.
#   debug.sh subset	the tests in harness/data/debug-subset (make check)
#   debug.sh all	the whole suite (make check-debug)
# The 1 GiB stream is cut to DEVMEM_LONG_MIB (default 128) there.
# lib.sh derives the object, kselftest and log paths from VARIANT
export VARIANT=debug
. "$(dirname "$0")/lib.sh"

H=$REPO/harness
args=
if [ "${1:-subset}" = subset ]; then
	args=$(grep -v '^#' "$REPO/harness/data/debug-subset" | sed 's/^/-t /' | xargs)
fi
mkdir -p "$LOGS"
if ! "$H/kernel.sh" || ! "$H/tools.sh"; then
	printf 'FAIL\tdebug kernel build\n' > "$LOGS/results"
	exit 1
fi
CHECK_LABEL="debug kernel" KSELFTEST_ARGS="$args" \
	DEVMEM_LONG_MIB=${DEVMEM_LONG_MIB:-128} "$H/run-kselftests.sh"
