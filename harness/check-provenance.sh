#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every patch says what it stands for upstream (Upstream:, 6.1-only: or
# Not upstream:) and none carries a Fixes: tag that names another patch
# of the series. The check is first shown to catch both on a copy of the
# series with one provenance paragraph removed and one such Fixes: added.
. "$(dirname "$0")/lib.sh"

py=$REPO/harness/check-provenance.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cp "$REPO"/patches/series "$REPO"/patches/*.patch "$tmp"/
mapfile -t names < <(grep -v '^#' "$tmp/series" | grep .)
first=${names[0]} last=${names[-1]}
# the first patch loses its provenance, the last one fixes the first
python3 - "$py" "$tmp/$first" "$tmp/$last" <<'PY'
import importlib.util, re, sys
spec = importlib.util.spec_from_file_location("prov", sys.argv[1])
prov = importlib.util.module_from_spec(spec)
spec.loader.exec_module(prov)
a, b = sys.argv[2:]
subj = prov.message(open(a).read())[0]
t = open(a).read()
t = re.sub(r"\n\n(Upstream|6\.1-only|Not upstream): .*?\n\n", "\n\n", t,
           count=1, flags=re.S)
open(a, "w").write(t)
t = open(b).read()
t = t.replace("\nSigned-off-by: ",
              f'\nFixes: 0123456789ab ("{subj}")\nSigned-off-by: ', 1)
open(b, "w").write(t)
PY
out=$(python3 "$py" "$tmp") && die "a doctored series passed: $out"
grep -q "^$first: 0 provenance" <<< "$out" ||
	die "a patch without provenance was not caught: $out"
grep -q "^$last: Fixes: names $first" <<< "$out" ||
	die "a Fixes: inside the series was not caught: $out"

python3 "$py" "$REPO/patches"
