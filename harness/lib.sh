# SPDX-License-Identifier: GPL-2.0
# Common settings for the harness scripts. Sourced, not executed.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$REPO/build}
SRC=$BUILD/src			# base + our files + series (a git repo)
HDR=$BUILD/headers		# headers_install output
VENV=$BUILD/venv
# VARIANT=debug selects the debug kernel (KASAN, lockdep, kmemleak...):
# same tree and kselftests, own objects and logs.
VARIANT=${VARIANT:-}
if [ "$VARIANT" = debug ]; then
	OBJ=$BUILD/obj-debug
	LOGS=$BUILD/logs-debug
	KST=$BUILD/kselftest-debug
	FRAGMENT="$REPO/config/devmem.config $REPO/config/debug.config"
	LOCALVERSION=-devmem-debug
else
	OBJ=$BUILD/obj		# out-of-tree kernel objects
	LOGS=$BUILD/logs
	KST=$BUILD/kselftest	# installed kselftests
	FRAGMENT=$REPO/config/devmem.config
	LOCALVERSION=-devmem
fi
JOBS=${JOBS:-$(($(nproc) + 1))}

# Directories of the repo that hold new kernel files.
KERNEL_DIRS="net include drivers Documentation samples tools"

BASE_TARBALL=/usr/src/linux-source-6.1.tar.xz

say()  { printf '==> %s\n' "$*"; }
warn() { printf '\n!!! WARNING: %s\n\n' "$*" >&2; }
die()  { printf 'error: %s\n' "$*" >&2; exit 1; }

pinned_version() {
	grep -v '^#' "$REPO/config/base-version" | head -n1 | tr -d ' '
}

# need_cmd <command> <debian package>
need_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found; it is in Debian package '$2' (run: make deps)"
}

vng_bin() {
	echo "$VENV/bin/vng"
}
