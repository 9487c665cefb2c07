#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Open a shell in build/quilt: a checkout of the pristine base with the
# series pushed and QUILT_PATCHES pointing at this repo's patches/, so that
# `quilt new/add/edit/refresh/header` edit the real series.
. "$(dirname "$0")/lib.sh"

Q=$BUILD/quilt
[ -d "$SRC/.git" ] || die "no tree in $SRC (run: make tree)"
if [ -d "$Q/.pc" ] && [ "${FRESH:-0}" != 1 ]; then
	say "reusing $Q (FRESH=1 to start over)"
else
	git -C "$SRC" worktree remove --force "$Q" 2>/dev/null || rm -rf "$Q"
	git -C "$SRC" worktree prune
	say "checking out the base into $Q"
	git -C "$SRC" worktree add -q --detach "$Q" base
	# the patches quilt applies (message-only ones carry new files)
	series_quilt_list "$BUILD/series.quilt"
	(cd "$Q" && QUILT_PATCHES="$REPO/patches" QUILT_PC=.pc \
	 QUILT_SERIES="$BUILD/series.quilt" quilt push -a -q) ||
		die "series does not apply"
fi
cd "$Q"
export QUILT_PATCHES=$REPO/patches QUILT_PC=.pc QUILT_SERIES=$BUILD/series.quilt
export QUILT_REFRESH_ARGS="-p ab --no-timestamps --no-index --sort"
say "quilt shell in $Q; 'exit' when done, then: make tree check"
exec "${SHELL:-bash}" -i
