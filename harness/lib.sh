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
	FRAGMENT="$REPO/config/devmem.config $REPO/config/memcg.config $REPO/config/kprobes.config $REPO/config/debug.config"
	LOCALVERSION=-devmem-debug
elif [ "$VARIANT" = kcsan ]; then
	# the data-race detector (config/kcsan.config): KASAN excludes it,
	# so a kernel of its own (harness/kcsan.sh, make check-kcsan)
	OBJ=$BUILD/obj-kcsan
	LOGS=$BUILD/logs-kcsan
	KST=$BUILD/kselftest-kcsan
	FRAGMENT="$REPO/config/devmem.config $REPO/config/memcg.config $REPO/config/kprobes.config $REPO/config/kcsan.config"
	LOCALVERSION=-devmem-kcsan
elif [ "$VARIANT" = iommu ]; then
	# the kernel and kselftests of the default variant, booted with the
	# e1000e ports behind an emulated Intel IOMMU (harness/vm.sh)
	OBJ=$BUILD/obj
	LOGS=$BUILD/logs-iommu
	KST=$BUILD/kselftest
	FRAGMENT="$REPO/config/devmem.config $REPO/config/memcg.config $REPO/config/kprobes.config $BUILD/fleet.config"
	LOCALVERSION=-devmem
	export VM_IOMMU=1
elif [ "$VARIANT" = p2p ]; then
	# the kernel and kselftests of the default variant, booted with a
	# PCIe switch holding BAR memory and an e1000e port (harness/vm.sh)
	OBJ=$BUILD/obj
	LOGS=$BUILD/logs-p2p
	KST=$BUILD/kselftest
	FRAGMENT="$REPO/config/devmem.config $REPO/config/memcg.config $REPO/config/kprobes.config $BUILD/fleet.config"
	LOCALVERSION=-devmem
	export VM_P2P=1
elif [ "$VARIANT" = noinet ]; then
	# built, never booted: the devmem core and SO_DEVMEM_DONTNEED
	# without CONFIG_INET (harness/build-noinet.sh)
	OBJ=$BUILD/obj-noinet
	LOGS=$BUILD/logs-noinet
	KST=$BUILD/kselftest-noinet
	FRAGMENT=$REPO/config/noinet.config
	LOCALVERSION=-devmem-noinet
elif [ "$VARIANT" = fuzz ]; then
	# the debug kernel with KCOV and DWARF, booted by syzkaller
	# (harness/fuzz.sh, make fuzz)
	OBJ=$BUILD/obj-fuzz
	LOGS=$BUILD/logs-fuzz
	KST=$BUILD/kselftest-fuzz
	FRAGMENT="$REPO/config/devmem.config $REPO/config/memcg.config $REPO/config/kprobes.config $REPO/config/debug.config $REPO/config/fuzz.config"
	LOCALVERSION=-devmem-fuzz
elif [ "$VARIANT" = e1000e-only ]; then
	# built, never booted: e1000e as the only user of page_pool
	# (harness/build-e1000e-only.sh)
	OBJ=$BUILD/obj-e1000e-only
	LOGS=$BUILD/logs-e1000e-only
	KST=$BUILD/kselftest-e1000e-only
	FRAGMENT=$REPO/config/e1000e-only.config
	LOCALVERSION=-devmem-e1000e-only
elif [ "$VARIANT" = upstream ]; then
	# upstream's kernel, not ours (harness/upstream.sh, issue #75): its
	# own tree, objects and logs
	SRC=$BUILD/upstream/src
	OBJ=$BUILD/obj-upstream
	LOGS=$BUILD/logs-upstream
	KST=$BUILD/kselftest-upstream
	FRAGMENT=$REPO/config/upstream.config
	LOCALVERSION=-upstream
else
	# The kernel of the suite, of make demo and make bench: the series
	# with the networking options of Debian 12's own 6.1 config, modules
	# where Debian has modules, hdsim, e1000e and p2pbuf as modules
	# (harness/fleet-config.sh writes build/fleet.config from Debian's
	# config; harness/kernel.sh runs it first)
	OBJ=$BUILD/obj		# out-of-tree kernel objects
	LOGS=$BUILD/logs
	KST=$BUILD/kselftest	# installed kselftests
	FRAGMENT="$REPO/config/devmem.config $REPO/config/memcg.config $REPO/config/kprobes.config $BUILD/fleet.config"
	LOCALVERSION=-devmem
fi
# LOGS_SUFFIX: a second log directory of the same variant, for a second
# VM booted beside the first (debug.sh runs its subset in two)
LOGS=$LOGS${LOGS_SUFFIX:-}
JOBS=${JOBS:-$(($(nproc) + 1))}

# Directories of the repo that hold new kernel files.
KERNEL_DIRS="net include drivers Documentation samples tools io_uring"

BASE_TARBALL=/usr/src/linux-source-6.1.tar.xz

# Builds of the whole tree in other configs (build-noinet.sh,
# build-e1000e-only.sh) are recorded in patches/configs.built, as
# series-build.sh records the prefixes: "<variant> <hash>", the hash of
# what the build reads (build_inputs_hash). `make check` builds a variant
# only when the record does not match, and records it when it builds;
# commit that file with the patches.
CONFIGS_BUILT=$REPO/patches/configs.built

# build_inputs_hash: a hash of what the build of $SRC as $VARIANT reads:
# the tree's change from the base outside the paths vmlinux never reads
# (full blob ids, no rename detection: the same text on any machine), the
# base's version, the config fragments and the scripts that configure and
# build it.
build_inputs_hash()
{
	local f

	{
		git -C "$SRC" -c core.quotepath=on diff --full-index --no-renames \
			--no-color --no-ext-diff base -- . ':(exclude)Documentation' \
			':(exclude)tools/testing' ':(exclude)tools/net' \
			':(exclude)samples' ':(exclude)MAINTAINERS'
		tree_version
		for f in $FRAGMENT "$REPO/harness/kernel.sh" \
			 "$REPO/harness/build-$VARIANT.sh"; do
			sha1sum < "$f"
		done
	} | sha1sum | cut -c1-40
}

# build_recorded <variant>: true if patches/configs.built has the
# variant with the hash of what its build reads now.
build_recorded()
{
	grep -qsx "$1 $(build_inputs_hash)" "$CONFIGS_BUILT"
}

# record_build <variant>: write the variant's line in patches/configs.built.
record_build()
{
	local h

	h=$(build_inputs_hash)
	{
		grep -s -v "^$1 " "$CONFIGS_BUILT" ||
			echo "# Whole-tree builds in other configs (harness/lib.sh: record_build)"
		echo "$1 $h"
	} > "$CONFIGS_BUILT.new"
	mv "$CONFIGS_BUILT.new" "$CONFIGS_BUILT"
}

# mmss <seconds>: "m:ss"
mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

# say <message>: a step. Under .ci/run (DEVMEM_T0, the epoch it began),
# prefixed with the minutes and seconds since then, so the CI log shows
# where its time goes.
say()
{
	if [ -n "${DEVMEM_T0:-}" ]; then
		printf '==> [%s] %s\n' "$(mmss $(($(date +%s) - DEVMEM_T0)))" "$*"
	else
		printf '==> %s\n' "$*"
	fi
}
warn() { printf '\n!!! WARNING: %s\n\n' "$*" >&2; }
die()  { printf 'error: %s\n' "$*" >&2; exit 1; }

# Records of the series' prefixes that built (patches/series.built,
# patches/kselftests.built): "<patch> <hash of what the build read>".
# prefix_record_init <file> <comment line>...: a new record's header
prefix_record_init() {
	local f=$1

	shift
	[ -f "$f" ] || printf '# %s\n' "$@" > "$f"
}

# prefix_record <file> <patch> <hash>: replace the patch's line.
prefix_record() {
	awk -v p="$2" '$1 != p' "$1" > "$1.new"
	echo "$2 $3" >> "$1.new"
	mv "$1.new" "$1"
}

# prefix_record_tidy <file>: in series order; patches that left the
# series are forgotten
prefix_record_tidy() {
	awk 'NR == FNR { if (/^#/) print; else line[$1] = $0; next }
	     $1 in line { print line[$1] }' \
		"$1" <(grep -v '^\s*\(#\|$\)' "$REPO/patches/series") > "$1.new"
	mv "$1.new" "$1"
}

# series_worktree <dir>: a worktree of build/src for the prefixes (kept
# between runs)
series_worktree() {
	git -C "$1" rev-parse -q --verify HEAD >/dev/null 2>&1 && return
	rm -rf "$1"
	git -C "$SRC" worktree prune
	git -C "$SRC" worktree add -q --detach "$1" base
}

# apt_install <package[=version]>...: asks apt only for what it can do
# without removing or downgrading anything (-y refuses downgrades; a
# simulation first catches removals), so a refusal leaves dpkg as it was
apt_install() {
	local sim

	if [ "$(id -u)" != 0 ]; then
		echo "Missing packages. Run as root:"
		echo "  apt-get update && apt-get install -y --no-install-recommends $*"
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	sim=$(apt-get install -s --no-install-recommends "$@" 2>&1) ||
		{ apt-get update -q > /dev/null &&
		  sim=$(apt-get install -s --no-install-recommends "$@" 2>&1); } ||
		{ echo "$sim" | tail -n 5 >&2; die "apt cannot install: $*"; }
	if grep -q '^Remv ' <<< "$sim"; then
		grep '^Remv ' <<< "$sim" >&2
		die "apt would remove the packages above to install $*: nothing done"
	fi
	say "apt: installing $*"
	# stale lists name files the mirror no longer has: update, once
	apt-get install -y -q --no-install-recommends "$@" > "$BUILD/apt.log" 2>&1 ||
		{ apt-get update -q >> "$BUILD/apt.log" 2>&1 &&
		  apt-get install -y -q --no-install-recommends "$@" >> "$BUILD/apt.log" 2>&1; } ||
		{ tail -n 20 "$BUILD/apt.log" >&2; die "apt-get install failed (log: $BUILD/apt.log)"; }
}

# build_lock: one tree, kernel or kselftest build of build/ at a time
# (two `make` runs, a helper's and CI's, would write the same objects);
# held until the script exits
build_lock() {
	mkdir -p "$BUILD"
	exec 8> "$BUILD/.build.lock"
	if ! flock -n 8; then
		say "waiting for another build of $BUILD to finish"
		flock 8
	fi
}

# Options outside net/ that the test kernel takes from Debian's config
# (fleet-config.sh says why; debian-config.sh keeps their values)
FLEET_BASE_OPTIONS="MULTIUSER SECURITY SECURITY_NETWORK AUDIT IA32_EMULATION
	LEDS_CLASS LEDS_TRIGGERS CONFIGFS_FS NFS_FS"

# series_patched_files: the base files the quilt series changes, one a
# line (tree.sh stages them from the base; base-applies.sh and rebase.sh
# take them out of another revision's tarball)
series_patched_files() {
	local p

	[ -f "$REPO/patches/series" ] || return 0
	grep -v '^\s*\(#\|$\)' "$REPO/patches/series" | while read -r p _; do
		sed -n -e 's#^--- [^/]*/##p' -e 's#^+++ [^/]*/##p' "$REPO/patches/$p" |
			sed 's/\t.*//'
	done | grep -vx 'dev/null' | sort -u || true
}

# series_quilt_list <file>: the patches quilt applies, in order, into
# <file>. Patches that only carry a commit message (their commit adds
# new files, see patches/files.map) have nothing for quilt to apply.
series_quilt_list() {
	local p

	: > "$1"
	[ -f "$REPO/patches/series" ] || return 0
	grep -v '^\s*\(#\|$\)' "$REPO/patches/series" | while read -r p _; do
		if grep -q '^--- ' "$REPO/patches/$p"; then echo "$p"; fi
	done > "$1"
}

pinned_version() {
	grep -v '^#' "$REPO/config/base-version" | head -n1 | tr -d ' '
}

# tree_version: the Debian revision build/src was laid down from (the
# pin, unless harness/base-pick.sh had to choose another)
tree_version() {
	cat "$BUILD/base-version" 2>/dev/null || pinned_version
}

# need_cmd <command> <debian package>
# debian_source <archive> <suite> <package>: "<version> <directory> <orig
# tarball> <sha256>" of the source package in the suite's Sources index
# (the first entry), or nothing
debian_source()
{
	curl -fsS --max-time 120 "$1/dists/$2/main/source/Sources.xz" |
		xz -dc | awk -v want="$3" '
		/^Package: / { pkg = $2; ver = dir = tar = sum = ""; insha = 0 }
		pkg != want { next }
		/^Version: / { ver = $2 }
		/^Directory: / { dir = $2 }
		/^Checksums-Sha256:/ { insha = 1; next }
		/^[^ ]/ { insha = 0 }
		insha && $3 ~ /\.orig\.tar\.(gz|xz)$/ { sum = $1; tar = $3 }
		/^$/ && pkg == want && tar != "" {
			print ver, dir, tar, sum; pkg = ""
		}
		END { if (pkg == want && tar != "") print ver, dir, tar, sum }'
}

need_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found; it is in Debian package '$2' (run: make deps)"
}

vng_bin() {
	echo "$VENV/bin/vng"
}

# What in a guest kernel log fails any run: oopses and WARNs, sanitizers,
# lockdep, hung tasks, kmemleak. One regex for check, demo and bench.
SPLAT_RE='(Kernel panic|BUG:|WARNING:|Oops|general protection|KASAN|UBSAN|kmemleak: [0-9]+ new suspected|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU|INFO: task .* blocked)'
# On the KCSAN kernel its data-race reports are not failures of the run
# that met them: harness/kcsan-report.py sorts them (ours or 6.1's,
# explained or not) and fails the run on an unexplained one of ours.
if [ "$VARIANT" = kcsan ]; then
	SPLAT_RE=${SPLAT_RE/BUG:/BUG: ([^K]|K[^C])}
fi

# run_slow_kernel <label> <run_kselftest.sh arguments>: the tests on the
# debug or KCSAN kernel, several times slower under TCG: the 1 GiB
# streams cut (receive to DEVMEM_LONG_MIB, default 128; send to
# DEVMEM_TX_LONG_MIB, default 8), the netlink fuzzer to FUZZ_NL_MSGS
# (10,000) and the remote peer's to PEER_FUZZ_ROUNDS (1)
run_slow_kernel()
{
	CHECK_LABEL="$1" KSELFTEST_ARGS="$2" \
		DEVMEM_LONG_MIB=${DEVMEM_LONG_MIB:-128} \
		DEVMEM_TX_LONG_MIB=${DEVMEM_TX_LONG_MIB:-8} \
		FUZZ_NL_MSGS=${FUZZ_NL_MSGS:-10000} \
		PEER_FUZZ_ROUNDS=${PEER_FUZZ_ROUNDS:-1} "$REPO/harness/run-kselftests.sh"
}

# splats_in <log...>: print the problems found with context; status 0 if any
splats_in()
{
	grep -qsE "$SPLAT_RE" "$@" || return 1
	echo
	echo "!!! the kernel reported problems:"
	grep -hsE -A 12 "$SPLAT_RE" "$@" | head -n 60
	return 0
}

# splat_count <log...>: how many problem lines the logs hold
splat_count()
{
	grep -csE "$SPLAT_RE" "$@" | awk -F: '{s += $NF} END {print s + 0}'
}

# summary <results file...>: the closing line from PASS/FAIL/SKIP lines
summary()
{
	local all passed failed skipped line

	all=$(cat "$@" 2>/dev/null || true)
	passed=$(echo "$all" | grep -c '^PASS' || true)
	failed=$(echo "$all" | grep -c '^FAIL' || true)
	skipped=$(echo "$all" | grep -c '^SKIP' || true)
	line="$passed passed, $failed failed"
	[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
	echo "$line"
}
