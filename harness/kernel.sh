#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure (tinyconfig + fragment) and build bzImage out of tree with ccache.
. "$(dirname "$0")/lib.sh"
build_lock

need_cmd ccache ccache
need_cmd flex flex
need_cmd bison bison
[ -d "$SRC/.git" ] || die "no tree in $SRC (run: make tree)"

mkdir -p "$OBJ"
# Relative paths in the preprocessed output let clones share the ccache.
export CCACHE_BASEDIR=$BUILD
KMAKE=(make -C "$SRC" O="$OBJ" LOCALVERSION="$LOCALVERSION"
       CC="ccache gcc" HOSTCC="ccache gcc" KBUILD_BUILD_USER=devmem
       KBUILD_BUILD_HOST=qemu)

stamp=$OBJ/.stamp-config
# FRAGMENT may name several files, merged in order (debug = base + debug).
read -r -a FRAGS <<< "$FRAGMENT"
# the fleet fragment is written from Debian's config and the tree
case " $FRAGMENT " in
*" $BUILD/fleet.config "*) "$REPO/harness/fleet-config.sh" ;;
esac
want_stamp=$(cat "${FRAGS[@]}" | sha1sum | cut -d' ' -f1)
# config_lost: the options of the fragments that .config does not have as
# asked (typos, missing deps), one line each
config_lost() {
	local line opt val

	while IFS= read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		opt=${line%%=*}; val=${line#*=}
		if [ "$val" = n ]; then
			grep -q "^$opt=" "$OBJ/.config" && echo "  $opt should be unset"
		elif ! grep -qx "$line" "$OBJ/.config"; then
			echo "  $line requested, got: $(grep "^$opt=\|# $opt " "$OBJ/.config" || echo unset)"
		fi
	done < <(cat "${FRAGS[@]}" | tac | awk -F= '/^CONFIG_/ && !seen[$1]++' | tac)
	return 0
}
# A kept .config is checked too: an incremental build whose tree once
# lacked a Kconfig entry (a patch left out) has lost that option for good.
if [ ! -f "$OBJ/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want_stamp" ] ||
   [ -n "$(config_lost)" ]; then
	say "config: tinyconfig + $(for f in "${FRAGS[@]}"; do basename "$f"; done | paste -sd+)"
	"${KMAKE[@]}" -s tinyconfig >/dev/null
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" "${FRAGS[@]}" >/dev/null
	# (the fragments set some options twice: only the last one counts)
	"${KMAKE[@]}" -s olddefconfig > /dev/null 2> "$OBJ/.olddefconfig.err" ||
		{ cat "$OBJ/.olddefconfig.err" >&2; die "olddefconfig failed"; }
	grep -v 'warning: override: reassigning to symbol' "$OBJ/.olddefconfig.err" >&2 || true
	# Every option of the fragment must have survived.
	lost=$(config_lost)
	[ -z "$lost" ] || die "config fragment options did not survive olddefconfig:
$lost"
	echo "$want_stamp" > "$stamp"
fi

# A modular config (the suite's kernel) builds its modules too: modpost then
# checks every symbol a module takes (exported, GPL, namespace imported).
targets=bzImage
grep -qx CONFIG_MODULES=y "$OBJ/.config" && targets="bzImage modules"
say "kernel: building $targets with $JOBS jobs (cold: 10-20 min; log: $LOGS/kernel-build.log)"
mkdir -p "$LOGS"
start=$(date +%s)
if ! "${KMAKE[@]}" -j"$JOBS" $targets > "$LOGS/kernel-build.log" 2>&1; then
	grep -E 'error|Error|modpost' "$LOGS/kernel-build.log" | head -n 40 >&2
	die "kernel build failed (full log: $LOGS/kernel-build.log)"
fi
grep -E '(warning|error):' "$LOGS/kernel-build.log" | grep -E '^(\.\./)?[a-z]' | head -n 20 || true
say "kernel: $(cat "$OBJ/include/config/kernel.release") built in $(($(date +%s) - start)) s"
