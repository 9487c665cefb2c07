#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make rebase [REBASE_TO=<version>]`: follow Debian's 6.1. Moves the base
# to the newest linux-source-6.1 the archive serves (or REBASE_TO):
#   1. apt-get update, and the target chosen (never a downgrade);
#   2. the series pushed onto the target's files with quilt, fuzz allowed;
#      a patch that does not apply stops it here, nothing changed, with
#      the patch, file and hunk named; patches that applied with an
#      offset or fuzz are refreshed in patches/;
#   3. the target installed with apt, config/base-version moved, the tree
#      laid down again, config/debian-net.config rewritten from Debian's
#      config of the same revision (debian-config.sh);
#   4. the kernel and kselftests rebuilt (make tools), the series' records
#      (patches/series.built, kselftests.built: SERIES_BUILD=stale) and the
#      other configs' builds (configs.built) brought up to date, and the
#      host checks run (the package version follows base-version: deb.sh);
#   5. a summary of what moved, and what to commit.
# REBASE_NO_UPDATE=1 skips apt-get update; REBASE_CHECKS=0 stops after 3.
. "$(dirname "$0")/lib.sh"
. "$REPO/harness/base-pick.sh"

[ "$(id -u)" = 0 ] || die "make rebase installs linux-source-6.1 with apt: run it as root"
start=$(date +%s)
old=$(pinned_version)
have=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)

# 1. The target
if [ "${REBASE_NO_UPDATE:-0}" != 1 ]; then
	say "rebase: apt-get update"
	apt-get update -q > /dev/null || warn "apt-get update failed: using the lists as they are"
fi
served=$(apt-cache madison linux-source-6.1 2>/dev/null | awk '{print $3}')
newest=$(printf '%s\n' $served | vers_sort | sed -n 1p)
target=${REBASE_TO:-$newest}
[ -n "$target" ] || die "the archive serves no linux-source-6.1"
grep -qxF "$target" <<< "$served" || [ "$target" = "$have" ] ||
	die "linux-source-6.1 $target is not served (served: $(echo $served))"
[ -z "$have" ] || [ "$have" = "$target" ] || ! newer "$have" "$target" ||
	die "installed linux-source-6.1 $have is newer than $target: not downgraded"
say "rebase: pinned $old, installed ${have:-none}, newest served ${newest:-none}; moving to $target"

# 2. The series onto the target's files, fuzz allowed
stage=$BUILD/archive/stage-$target
if ! BASE_APPLIES_FUZZ=2 BASE_APPLIES_KEEP=1 "$REPO/harness/base-applies.sh" "$target"; then
	log=$(ls -t "$BUILD"/archive/applies-"$target"-*-fuzz2.log | sed -n 1p)
	patch=$(sed -n 's/^Applying patch //p' "$log" | tail -n 1)
	echo >&2
	echo "rebase stopped: patch ${patch##*/} does not apply to linux-source-6.1 $target:" >&2
	# quilt prints the file before its hunks: keep the pairs
	sed -n '/^Applying patch '"${patch//\//\\/}"'/,$p' "$log" |
		grep -E '^patching file|FAILED|can.t find file|saving rejects' | sed 's/^/    /' >&2
	echo "nothing was changed; the pin stays at $old (log: $log)" >&2
	exit 1
fi
refreshed=()
(
	cd "$stage"
	export QUILT_PATCHES=$REPO/patches QUILT_PC=.pc QUILT_SERIES=$BUILD/archive/series.quilt
	# no quiltrc (Debian's adds --backup): the patches' own style
	export QUILT_DIFF_OPTS=--show-c-function
	q() { quilt --quiltrc - "$@"; }
	q pop -a -q > /dev/null
	while out=$(q push --fuzz=2 2>&1); do
		p=$(q top)
		if grep -qE 'offset|fuzz' <<< "$out"; then
			q refresh -p ab --no-timestamps --no-index --sort > /dev/null
			echo "${p##*/}"
		fi
		[ -n "$(q next 2>/dev/null)" ] || break
	done
) > "$BUILD/archive/refreshed"
mapfile -t refreshed < "$BUILD/archive/refreshed"
rm -rf "$stage"
if [ ${#refreshed[@]} -gt 0 ]; then
	say "rebase: ${#refreshed[@]} patches applied with offset or fuzz, refreshed:"
	printf '    %s\n' "${refreshed[@]}"
else
	say "rebase: every patch applies to $target as it is (no offset, no fuzz)"
fi

# 3. Install, pin, tree, Debian's config
[ "$have" = "$target" ] || apt_install "linux-source-6.1=$target"
sed -i "s/^$old\$/$target/" "$REPO/config/base-version"
[ "$(pinned_version)" = "$target" ] || die "could not write config/base-version"
"$REPO/harness/tree.sh"
"$REPO/harness/debian-config.sh" update
[ "${REBASE_CHECKS:-1}" = 1 ] || { say "rebase: REBASE_CHECKS=0: no build, no checks"; exit 0; }

# 4. Builds, records and the host checks
"$REPO/harness/kernel.sh"
"$REPO/harness/tools.sh"
SERIES_BUILD=stale SERIES_STALE_MAX=999 "$REPO/harness/series.sh"
"$REPO/harness/build-noinet.sh" > "$LOGS/build-noinet.log" 2>&1 ||
	die "the INET=n kernel does not build on $target (log: $LOGS/build-noinet.log)"
"$REPO/harness/build-e1000e-only.sh" > "$LOGS/build-e1000e-only.log" 2>&1 ||
	die "the e1000e-only kernel does not build on $target (log: $LOGS/build-e1000e-only.log)"
HOST_CHECKS_SKIP="build-noinet build-e1000e-only" "$REPO/harness/host-checks.sh"
failed=$(grep -c '^FAIL' "$LOGS/host-results" || true)

# 5. What moved
t=$(($(date +%s) - start))
echo
say "rebase: linux-source-6.1 $old -> $target in $((t / 60)) min $((t % 60)) s"
echo "    patches refreshed: ${#refreshed[@]}${refreshed:+ (${refreshed[*]})}"
echo "    Debian's changes in $target (/usr/share/doc/linux-source-6.1/changelog.Debian.gz):"
zcat /usr/share/doc/linux-source-6.1/changelog.Debian.gz 2>/dev/null |
	awk 'NR > 1 && /^linux/ {stop = 1} !stop {print "      " $0}' | sed -n 1,30p
echo "    host checks: $(grep -c '^PASS' "$LOGS/host-results") passed, $failed failed"
echo "    to commit: git add config/ patches/ && git commit (then make check)"
git -C "$REPO" status --short config patches | sed 's/^/      /'
[ "$failed" = 0 ]
