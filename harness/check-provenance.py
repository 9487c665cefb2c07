#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every patch of the series says what it stands for upstream, and no
patch fixes another patch of the series.

check-provenance.py <patches dir>

- The message of each patch in <dir>/series ends (last paragraph before
  the trailers) with one provenance paragraph: "Upstream: ...",
  "6.1-only: ..." or "Not upstream: ...", and has no other.
- No "Fixes:" line names a patch of the series: a fix goes into the
  patch that brought the code (README.md, "Changing a file that exists in 6.1").
Exit 1 with one line per problem; else print the counts.
"""
import re
import sys

KINDS = ("Upstream: ", "6.1-only: ", "Not upstream: ")
TRAILER = re.compile(r"^([A-Z][A-Za-z-]*-(by|to)|Link|Fixes|Closes|Cc): ")


def message(text):
    """Subject and body of a patch file, trailers included."""
    head, _, _ = text.partition("\n---\n")
    lines = head.split("\n")
    subject, i = "", 0
    while i < len(lines) and lines[i]:
        if lines[i].startswith("Subject: "):
            subject = lines[i][len("Subject: "):]
            while i + 1 < len(lines) and lines[i + 1].startswith(" "):
                i += 1
                subject += lines[i]
        i += 1
    subject = re.sub(r"^\[PATCH[^]]*\] ", "", subject)
    return subject, lines[i + 1:]


def paragraphs(body):
    paras, cur = [], []
    for line in body:
        if line.strip():
            cur.append(line)
        elif cur:
            paras.append(cur)
            cur = []
    if cur:
        paras.append(cur)
    return paras


def check(pdir):
    names = [l.strip() for l in open(f"{pdir}/series")
             if l.strip() and not l.startswith("#")]
    texts = {n: open(f"{pdir}/{n}").read() for n in names}
    subjects = {n: message(texts[n])[0] for n in names}
    problems, counts = [], {k: 0 for k in KINDS}
    for n in names:
        _, body = message(texts[n])
        paras = paragraphs(body)
        while paras and all(TRAILER.match(l) for l in paras[-1]):
            trailers = paras.pop()
            for t in trailers:
                if not t.startswith("Fixes: "):
                    continue
                for other, subj in subjects.items():
                    if f'("{subj}")' in t:
                        problems.append(f"{n}: Fixes: names {other}, a patch "
                                        "of the series: fold the fix into it")
        prov = [p for p in paras if p[0].startswith(KINDS)]
        if len(prov) != 1:
            problems.append(f"{n}: {len(prov)} provenance paragraphs "
                            "(Upstream:/6.1-only:/Not upstream:), want 1")
            continue
        if prov[0] is not paras[-1]:
            problems.append(f"{n}: the provenance paragraph is not the "
                            "message's last")
        counts[[k for k in KINDS if prov[0][0].startswith(k)][0]] += 1
    return names, problems, counts


def main():
    names, problems, counts = check(sys.argv[1])
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"provenance: {len(names)} patches: "
          + ", ".join(f"{counts[k]} {k.strip(': ')}" for k in KINDS)
          + "; no Fixes: inside the series")
    return 0


if __name__ == "__main__":
    sys.exit(main())
