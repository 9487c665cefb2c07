#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every call of a function that reads skb data past the linear part, in
# the patched tree, is classified in Documentation/networking/
# devmem-skb-readers.rst for its file and function; no line says "open".
. "$(dirname "$0")/lib.sh"

DOC=$REPO/Documentation/networking/devmem-skb-readers.rst
DIRS="net drivers include kernel security crypto fs lib block sound io_uring"
[ -d "$SRC/net" ] || die "no patched tree in $SRC (make tree)"

# the readers are the ones the document lists, in its "What is classified"
readers=$(sed -n '/^What is classified/,/^One line per file/p' "$DOC" |
	grep -o '``[a-z_]*()``' | tr -d '`()' | sort -u)
[ -n "$readers" ] || die "no reader list in $DOC"
re=$(echo $readers | tr ' ' '|')

# "path reader" for every classified line of the table
table=$(awk '/^The table/ {t = 1} t && /^  [^ ]/ {p = $1}
	t && /^    [^ ]/ {
		if ($2 !~ /^(cannot|handled|fixed)$/ || NF < 3)
			print "BAD " p " " $0
		else
			print p " " $1
	}' "$DOC" | sort -u)
bad=$(grep '^BAD ' <<< "$table" || true)
[ -z "$bad" ] || die "malformed or open line(s) in $DOC:"$'\n'"$bad"

tree=$(cd "$SRC" && grep -rnowE --include='*.c' --include='*.h' "($re)" \
	$DIRS 2>/dev/null | awk -F: '{print $1 " " $NF}' | sort -u)
missing=$(comm -23 <(echo "$tree") <(echo "$table"))
if [ -n "$missing" ]; then
	echo "$missing" | sed 's/^/  unclassified: /'
	die "$(echo "$missing" | wc -l) call site(s) not in $DOC"
fi
stale=$(comm -13 <(echo "$tree") <(echo "$table") | wc -l)
echo "skb readers: $(echo "$tree" | wc -l) file/function pairs classified" \
	"($stale line(s) of the table no longer match a call)"
