#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Turn the tree into `git format-patch` sub-series in build/series/<name>/:
# one commit per quilt patch, each also adding the new files that
# patches/files.map assigns to it. Then prove the series: `git am` onto the
# pristine base must reproduce build/src exactly, every patch must pass
# checkpatch.pl --strict, and every prefix of the series must build, the
# kernel and its kselftests
# (harness/series-build.sh, harness/series-kselftests.sh).
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no tree in $SRC (run: make tree)"
# spdxcheck.py runs "python3" from PATH: use Debian's, which has ply.
export PATH=/usr/bin:$PATH
MAP=$REPO/patches/files.map
OUT=$BUILD/series
WT=$BUILD/series-wt
VERIFY=$BUILD/series-verify

# The committer: the repo's git identity, or (a fresh CI machine may have
# none) the author of the patches, which is the same.
author=$(sed -n 's/^From: //p' "$REPO/patches/$(grep -m1 '^[^#]' "$REPO/patches/series")")
NAME=$(git -C "$REPO" config user.name || echo "${author% <*}")
EMAIL=$(git -C "$REPO" config user.email || { e=${author##*<}; echo "${e%>}"; })
g() { git -C "$1" -c "user.name=$NAME" -c "user.email=$EMAIL" "${@:2}"; }

# Every new file must belong to a patch (several, when it grows across
# them: see content_at).
mapped=$(grep -v '^\s*\(#\|$\)' "$MAP" | awk '{print $2}')
unmapped=0
for d in $KERNEL_DIRS; do
	[ -d "$REPO/$d" ] || continue
	while IFS= read -r f; do
		rel=${f#"$REPO/"}
		hit=0
		for m in $mapped; do
			case "$rel" in "$m"|"$m"/*) hit=1; break ;; esac
		done
		[ $hit = 1 ] || { echo "unmapped new file: $rel"; unmapped=1; }
	done < <(find "$REPO/$d" -type f)
done
[ $unmapped = 0 ] || die "add the files above to patches/files.map"

for w in "$WT" "$VERIFY"; do
	git -C "$SRC" worktree remove --force "$w" 2>/dev/null || rm -rf "$w"
done
git -C "$SRC" worktree prune
say "series: building commits on a worktree of the base"
git -C "$SRC" worktree add -q --detach "$WT" base

# moved_to <file>: "<patch> <new path>" of the row that moves <file>
# ("<patch> <new path> from <file>"), nothing if no patch moves it
moved_to() { awk -v m="$1" '$3 == "from" && $4 == m {print $1, $2; exit}' "$MAP"; }

# content_at <patch> <file> <out>: the file as it is after <patch>: its
# final content with the deltas of the patches after <patch> that name it
# taken back out, last first. A file a later patch moves away has, as its
# final content, the moved file's before that patch: the moved file's
# after it, less the delta of the move, if it also changes the file.
content_at()
{
	local p=$1 m=$2 out=$3 q d later mv mp

	# the patches naming <file>, in series order, after <patch>, last first
	# (<patch> may name the directory <file> is in)
	later=$(awk -v m="$m" -v p="$p" 'NR == FNR {if ($2 == m) named[$1] = 1; next}
		/^[^#]/ && NF {if (after && named[$1]) print $1; if ($1 == p) after = 1}' \
		"$MAP" "$REPO/patches/series" | tac)
	mv=$(moved_to "$m")
	if [ -n "$mv" ]; then
		mp=${mv% *}
		content_at "$mp" "${mv#* }" "$out"
		d=$REPO/patches/deltas/${mp%.patch}/${mv#* }.diff
		if [ -f "$d" ]; then
			patch -s -R -F 0 --no-backup-if-mismatch -r - "$out" < "$d" ||
				die "the delta of the move to ${mv#* } does not take back out"
		fi
	else
		cp -a "$REPO/$m" "$out"
	fi
	for q in $later; do
		d=$REPO/patches/deltas/${q%.patch}/$m.diff
		[ -f "$d" ] || die "no delta $d for $m at $q"
		patch -s -R -F 0 --no-backup-if-mismatch -r - "$out" < "$d" ||
			die "the delta of ${q%.patch} to $m no longer takes back out of the final $m: refresh it"
	done
}

# every delta belongs to a later row of files.map
for d in $(cd "$REPO/patches" && find deltas -type f -name '*.diff' 2>/dev/null); do
	q=${d#deltas/}; q=${q%%/*}.patch
	m=${d#deltas/*/}; m=${m%.diff}
	awk -v q="$q" -v m="$m" '$1 == q && $2 == m {f = 1} END {exit !f}' "$MAP" ||
		die "patches/$d: no files.map line \"$q $m\""
done

n=0
while read -r p _; do
	case "$p" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	if grep -q '^--- ' "$REPO/patches/$p"; then
		g "$WT" am -q "$REPO/patches/$p" ||
			die "git am of patches/$p failed"
	else
		# message only: its commit is made of the new files it owns
		tmp=$(mktemp -d)
		git -C "$WT" mailinfo "$tmp/msg" "$tmp/patch" \
			< "$REPO/patches/$p" > "$tmp/info"
		{ sed -n 's/^Subject: //p' "$tmp/info"; echo; cat "$tmp/msg"; } > "$tmp/commit"
		g "$WT" commit -q --allow-empty -F "$tmp/commit"
		rm -rf "$tmp"
	fi
	# <patch> <file> [from <the file's path before>]
	while read -r m from old; do
		if [ "$from" = from ]; then
			g "$WT" rm -q -- "$old"
		fi
		mkdir -p "$WT/$(dirname "$m")"
		if [ -d "$REPO/$m" ]; then
			cp -a "$REPO/$m" "$WT/$m"
			# its files that later patches change, as after <patch>
			while read -r f; do
				content_at "$p" "$f" "$WT/$f"
			done < <(awk -v m="$m/" 'index($2, m) == 1 {print $2}' "$MAP" | sort -u)
		else
			content_at "$p" "$m" "$WT/$m"
		fi
		g "$WT" add -f -- "$m"
	done < <(awk -v p="$p" '$1 == p {print $2, $3, $4}' "$MAP")
	g "$WT" commit -q --amend --no-edit --allow-empty
done < "$REPO/patches/series"

# Every prefix builds, the kernel and the kselftests. SERIES_BUILD=0
# skips that (a cold run rebuilds most of the kernel once per patch that
# touches a widely included header); SERIES_BUILD=stale builds only the
# prefixes that patches/series.built and patches/kselftests.built do not
# record as built (series-build.sh, series-kselftests.sh).
grep -v '^\s*\(#\|$\)' "$REPO/patches/series" | awk '{print $1}' |
	paste -d' ' - <(git -C "$WT" rev-list --reverse base..HEAD) \
	> "$BUILD/series-commits"
case ${SERIES_BUILD:-1} in
1)	"$REPO/harness/series-build.sh" "$BUILD/series-commits"
	"$REPO/harness/series-kselftests.sh" "$BUILD/series-commits" ;;
stale)	SERIES_STALE=1 "$REPO/harness/series-build.sh" "$BUILD/series-commits"
	SERIES_STALE=1 "$REPO/harness/series-kselftests.sh" "$BUILD/series-commits" ;;
esac

if ! git -C "$WT" diff --quiet HEAD "$(git -C "$SRC" rev-parse HEAD)"; then
	git -C "$WT" diff --stat HEAD "$(git -C "$SRC" rev-parse HEAD)" | tail -n 20
	die "series does not reproduce build/src (differences above; run make tree?)"
fi

# Sub-series: "# sub-series <name>" lines in patches/series start one;
# each is emitted in build/series/<name>/ with the cover letter
# patches/covers/<name> (first line the subject, then the text), its
# patches numbered 1..n of that sub-series. patches/cover-letter, the
# whole set and the changes between versions, goes to build/series/README.
rm -rf "$OUT"
mkdir -p "$OUT"
awk '/^# sub-series / {name = $3; next}
     /^[^#]/ && NF {if (name == "") {print "patch before the first sub-series: " $1 > "/dev/stderr"; exit 1}
		    print name}' "$REPO/patches/series" > "$BUILD/series-parts" ||
	die "patches/series: every patch belongs to a sub-series"
parts=$(uniq "$BUILD/series-parts")
nparts=$(echo "$parts" | wc -l)
commits=($(git -C "$WT" rev-list --reverse base..HEAD))
i=0 k=0
for part in $parts; do
	k=$((k + 1))
	cnt=$(grep -cx "$part" "$BUILD/series-parts")
	[ "$cnt" -le 15 ] || die "sub-series $part has $cnt patches (netdev takes at most 15)"
	[ -f "$REPO/patches/covers/$part" ] || die "no cover letter patches/covers/$part"
	first=${commits[$i]}
	last=${commits[$((i + cnt - 1))]}
	i=$((i + cnt))
	g "$WT" format-patch -q --cover-letter --subject-prefix="PATCH 6.1" \
		-o "$OUT/$part" "$first^..$last"
	python3 - "$OUT/$part/0000-cover-letter.patch" "$REPO/patches/covers/$part" "$k/$nparts" <<'PY'
import sys
cover, blurb_file, part = sys.argv[1:]
subject, _, blurb = open(blurb_file).read().partition('\n\n')
text = open(cover).read()
text = text.replace('*** SUBJECT HERE ***', f'{subject.strip()} (part {part})')
text = text.replace('*** BLURB HERE ***', blurb.rstrip('\n'))
open(cover, 'w').write(text)
PY
done
[ "$i" = "${#commits[@]}" ] || die "sub-series cover $i of ${#commits[@]} commits"
cp "$REPO/patches/cover-letter" "$OUT/README"

say "series: verifying with git am on a pristine base, one sub-series after the other"
git -C "$SRC" worktree add -q --detach "$VERIFY" base
for part in $parts; do
	g "$VERIFY" am -q --empty=keep $(ls "$OUT/$part"/*.patch | grep -v '/0000-') ||
		die "git am of build/series/$part failed"
done
git -C "$VERIFY" diff --quiet HEAD "$(git -C "$SRC" rev-parse HEAD)" ||
	die "git am result differs from build/src"

# checkpatch, one patch per process on every CPU: a failing patch's
# report is followed by its name
fail=0
ls "$OUT"/*/*.patch | grep -v '/0000-' |
	(cd "$SRC" && xargs -P "$(nproc)" -I{} sh -c \
		'out=$(scripts/checkpatch.pl --strict --quiet --color=never \
			--ignore FILE_PATH_CHANGES --typedefsfile "$1" "$2") ||
		 { printf "%s\n  ^ %s\n" "$out" "${2##*/}"; exit 1; }' \
		checkpatch "$REPO/harness/data/checkpatch-typedefs" {}) || fail=1
git -C "$SRC" worktree remove --force "$VERIFY"
git -C "$SRC" worktree remove --force "$WT"
[ $fail = 0 ] || die "checkpatch --strict found problems in the series"
say "series: $n patches in $nparts sub-series of at most 15, each with its cover letter, in $OUT/<name>/; git am of one after the other onto base reproduces the tree; checkpatch --strict clean"
