#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl --strict over every patch in the series and every new file.
# Fails on any ERROR or WARNING; CHECKs are printed and fail too unless
# listed as accepted in harness/data/checkpatch-ignore.
. "$(dirname "$0")/lib.sh"

# spdxcheck.py runs "python3" from PATH: use Debian's, which has ply.
export PATH=/usr/bin:$PATH
CP="$SRC/scripts/checkpatch.pl"
[ -x "$CP" ] || die "no tree in $SRC (run: make tree)"
IGNORE=$(grep -v '^#' "$REPO/harness/data/checkpatch-ignore" 2>/dev/null | xargs | tr ' ' ',')
OPTS=(--strict --no-signoff --quiet --show-types --color=never
      --typedefsfile "$REPO/harness/data/checkpatch-typedefs"
      ${IGNORE:+--ignore "$IGNORE"})

fail=0
n=0
while read -r p _; do
	case "$p" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	# message-only patches are checked whole by `make series`
	grep -q '^--- ' "$REPO/patches/$p" || continue
	out=$(cd "$SRC" && "$CP" "${OPTS[@]}" "$REPO/patches/$p" 2>&1) || true
	if [ -n "$out" ]; then
		echo "checkpatch: patches/$p"
		echo "$out" | sed 's/^/    /'
		fail=1
	fi
	grep -q '^Signed-off-by: ' "$REPO/patches/$p" ||
		{ echo "checkpatch: patches/$p has no Signed-off-by"; fail=1; }
done < <(cat "$REPO/patches/series" 2>/dev/null)

for d in $KERNEL_DIRS; do
	[ -d "$REPO/$d" ] || continue
	while IFS= read -r -d '' f; do
		n=$((n + 1))
		rel=${f#"$REPO/"}
		out=$(cd "$REPO" && "$CP" "${OPTS[@]}" -f "$rel" 2>&1) || true
		if [ -n "$out" ]; then
			echo "checkpatch: $rel"
			echo "$out" | sed 's/^/    /'
			fail=1
		fi
	done < <(find "$REPO/$d" -type f \( -name '*.[ch]' -o -name Kconfig \
		 -o -name '*.rst' -o -name '*.sh' \) -print0)
done
if [ $fail = 0 ]; then
	say "checkpatch --strict: $n patches/files clean"
else
	echo "checkpatch --strict: problems found (above)"
fi
exit $fail
