#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Lay down the kernel tree under build/src:
#   base commit (tag "base") = pristine Debian linux-source-6.1
#   one commit on top       = our new files + patches/series applied with quilt
# Only files whose content changed are rewritten, so incremental kernel builds
# stay incremental. Edits made by hand in build/src are never overwritten:
# the script refuses (or, with FORCE=1, saves them under build/saved-edits-*).
. "$(dirname "$0")/lib.sh"
build_lock

need_cmd quilt quilt
need_cmd git git

# No automatic gc: after the base tree's commit (75,000 loose objects) it
# would repack in the background for minutes, holding the build lock
# (an inherited file descriptor) while the kernel build waits for it.
GIT_ID=(-c "user.name=$(git -C "$REPO" config user.name || echo devmem)"
	-c "user.email=$(git -C "$REPO" config user.email || echo devmem@localhost)"
	-c gc.auto=0)
g() { git -C "$SRC" "${GIT_ID[@]}" "$@"; }

want=$(pinned_version)
have=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)
[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL missing; it is in Debian package 'linux-source-6.1' (run: make deps)"
[ "$have" = "$want" ] || warn "building on linux-source-6.1 $have, not the pinned $want"

check_clean() {
	local dirty
	dirty=$(g status --porcelain --untracked-files=all | head -n 20)
	[ -z "$dirty" ] && return 0
	if [ "${FORCE:-0}" = 1 ]; then
		local save="$BUILD/saved-edits-$(date +%Y%m%d-%H%M%S)"
		mkdir -p "$save"
		g diff HEAD > "$save/tracked.diff"
		g ls-files --others --exclude-standard -z |
			(cd "$SRC" && xargs -0r cp --parents -t "$save") || true
		g reset -q --hard HEAD
		g clean -q -fd
		warn "hand edits in $SRC moved aside to $save"
		return 0
	fi
	echo "$dirty" >&2
	die "$SRC has edits made by hand (above). Move them into the repo (new file or quilt patch), or rerun with FORCE=1 to save them under build/ and continue."
}

# 1. Base tree
if [ -d "$SRC/.git" ] && [ "$(cat "$BUILD/base-version" 2>/dev/null)" = "$have" ]; then
	check_clean
else
	if [ -d "$SRC/.git" ]; then
		check_clean
		say "base changed ($(cat "$BUILD/base-version" 2>/dev/null) -> $have): re-creating $SRC"
	fi
	say "unpacking linux-source-6.1 $have into $SRC (about 1.5 GB)"
	rm -rf "$SRC.new" "$SRC"
	mkdir -p "$SRC.new"
	tar -xJf "$BASE_TARBALL" --strip-components=1 -C "$SRC.new"
	git -C "$SRC.new" init -q
	say "committing the base tree"
	git -C "$SRC.new" add -f -A
	git -C "$SRC.new" "${GIT_ID[@]}" commit -q -m "Debian linux-source-6.1 $have"
	git -C "$SRC.new" tag base
	mv "$SRC.new" "$SRC"
	echo "$have" > "$BUILD/base-version"
	rm -rf "$OBJ/.stamp-config"
fi

# 2. Stage: the files the series touches (from base) + our new files.
STAGE=$BUILD/stage
rm -rf "$STAGE"
mkdir -p "$STAGE"
patched=$(series_patched_files)
for f in $patched; do
	if g cat-file -e "base:$f" 2>/dev/null; then
		mkdir -p "$STAGE/$(dirname "$f")"
		g show "base:$f" > "$STAGE/$f"
		chmod --reference="$SRC/$f" "$STAGE/$f" 2>/dev/null || true
	fi
done
for d in $KERNEL_DIRS; do
	[ -d "$REPO/$d" ] || continue
	while IFS= read -r -d '' f; do
		rel=${f#"$REPO/"}
		if g cat-file -e "base:$rel" 2>/dev/null; then
			die "$rel exists in the 6.1 base: change it with a quilt patch, not a copy"
		fi
		mkdir -p "$STAGE/$(dirname "$rel")"
		cp -p "$f" "$STAGE/$rel"
	done < <(find "$REPO/$d" -type f -print0)
done

FILTERED=$BUILD/series.quilt
series_quilt_list "$FILTERED"
if [ -s "$FILTERED" ]; then
	say "applying $(wc -l < "$FILTERED") patches with quilt"
	if ! (cd "$STAGE" && QUILT_PATCHES="$REPO/patches" QUILT_PC=.pc \
	      QUILT_SERIES="$FILTERED" \
	      quilt push -a -q --fuzz=0 >"$BUILD/quilt.log" 2>&1); then
		cat "$BUILD/quilt.log" >&2
		failing=$(cd "$STAGE" && QUILT_PATCHES="$REPO/patches" QUILT_PC=.pc \
			  QUILT_SERIES="$FILTERED" quilt next 2>/dev/null || true)
		die "patch '${failing:-?}' does not apply to linux-source-6.1 $have"
	fi
fi
rm -rf "$STAGE/.pc"

# 3. Sync stage -> src, touching only what changed.
changed=0
wanted=$(cd "$STAGE" && find . -type f | sed 's#^\./##' | sort)
for f in $wanted; do
	if ! cmp -s "$STAGE/$f" "$SRC/$f"; then
		mkdir -p "$SRC/$(dirname "$f")"
		cp -p "$STAGE/$f" "$SRC/$f"
		touch "$SRC/$f"
		changed=$((changed + 1))
	fi
done
for f in $(g diff --name-only base HEAD); do
	# a here-string, not a pipe: grep -q may exit before echo has
	# written everything, and pipefail would take that for "not wanted"
	grep -qxF "$f" <<< "$wanted" && continue
	if g cat-file -e "base:$f" 2>/dev/null; then
		g checkout -q base -- "$f"
	else
		rm -f "$SRC/$f"
	fi
	changed=$((changed + 1))
done

# 4. Exactly one commit on top of base.
g reset -q --soft base
g add -A
[ -n "$wanted" ] && (cd "$SRC" && echo "$wanted" | xargs -r git add -f --)
g commit -q --allow-empty -m "devmem TCP for 6.1: new files + patches/series"
echo "$have" > "$BUILD/base-version"
say "tree: $changed file(s) updated; $(g diff --shortstat base HEAD | sed 's/^ //')"
