#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every new file or directory of the series (patches/files.map) is covered
# by an F: line of our MAINTAINERS entry, and every F: line covers one.
. "$(dirname "$0")/lib.sh"

MAINT=$REPO/patches/maintainers-add-devmem-tcp.patch
mapfile -t pats < <(sed -n 's/^+F:[[:space:]]*//p' "$MAINT")
[ ${#pats[@]} -gt 0 ] || die "no F: lines in $MAINT"
mapfile -t paths < <(grep -v '^#' "$REPO/patches/files.map" | awk 'NF {print $2}' | sort -u)

# covers <pattern> <path>: a directory pattern covers what is below it,
# a file pattern (wildcards allowed) the files it matches
covers() {
	case $1 in
	*/) [[ $2/ == "$1"* ]] ;;
	*) [[ $2 == $1 ]] ;;
	esac
}

bad=0
for p in "${paths[@]}"; do
	hit=0
	for f in "${pats[@]}"; do
		covers "$f" "$p" && { hit=1; break; }
	done
	[ $hit = 1 ] || { echo "no F: line covers $p"; bad=$((bad + 1)); }
done
for f in "${pats[@]}"; do
	hit=0
	for p in "${paths[@]}"; do
		covers "$f" "$p" && { hit=1; break; }
	done
	# a pattern may also name a file that was in 6.1 before the series
	[ $hit = 1 ] || [ -e "$SRC/$f" ] ||
		{ echo "F: $f covers no file of the series"; bad=$((bad + 1)); }
done
[ $bad = 0 ] || die "$bad MAINTAINERS problem(s) (above)"
echo "MAINTAINERS: ${#pats[@]} F: lines cover the ${#paths[@]} new paths of files.map"
