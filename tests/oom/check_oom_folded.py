#!/usr/bin/env python3
"""`make oom-test`, part 4: whole reports wrapped. Every shared report is
folded whole, every line longer than N cut into rows, three ways: hard
(`fold -w N`, a terminal: inside a word as readily as at a space), at
spaces (`fold -s -w N`, e-mail: the space stays on the row, a word longer
than a row cut at N) and as Python's textwrap does (the space dropped, a
break after a hyphen, a long word's first piece filling the row), for
N = 60, 72, 80 and 100. The folded report must read as the whole one: the
same reports, figures, shares, verdict, entries, names and missing
(docs/oom.md "Whatever surrounds the report"), but for the cases listed in
KNOWN, where the wrap leaves the text ambiguous: there only the fields
named may differ, and every figure must still hold.
Usage: check_oom_folded.py TPUPROF"""
import glob
import os
import sys
import textwrap

from oom_lib import D, differ, fail, failures, run, strip

WIDTHS = (60, 72, 80, 100)
FIGURES = ("figures", "percentages", "verdict", "missing", "kind", "memory_space",
           "headless", "total_usage_parts")

# (report, how, width): the fields that may differ, and why
KNOWN = {
    # a row textwrap filled exactly at a word's end, the next word long: read
    # as one long word cut there (names lose a space)
    ("01", "textwrap", 72): ("allocations",),
    ("14", "textwrap", 60): ("allocations", "scopes", "op_types"),
    # fold -s cut a long word exactly where the next space stood
    ("13", "fold -s", 60): ("allocations",),
    # the wrapper (`E1000: CompileTimeHbmOom:`) two rows above a headline
    # itself wrapped between words
    ("17", "fold -s", 60): ("error_code", "error_name"),
    ("17", "textwrap", 60): ("error_code", "error_name"),
}
# the TensorFlow log prefix itself cut over two rows: not known as a prefix
KNOWN.update({("39", how, n): ("log_prefixes",)
              for how in ("fold -s", "textwrap") for n in WIDTHS})


def hard(line, n):
    return [line[i:i + n] for i in range(0, len(line), n)]


def at_spaces(line, n):
    rows = []
    while len(line) > n:
        cut = line.rfind(" ", 0, n)
        cut = n if cut < 0 else cut + 1
        rows.append(line[:cut])
        line = line[cut:]
    return rows + [line]


def tw(line, n):
    return textwrap.wrap(line, n) or [line]


HOW = {"fold": hard, "fold -s": at_spaces, "textwrap": tw}


def main():
    checked = 0
    for path in sorted(glob.glob(D + "*.log")):
        name = os.path.basename(path)
        text = open(path).read()
        whole, rc = run(path)
        if rc not in (0, 1) or not whole:
            fail(f"{name}: exit {rc}")
            continue
        want = strip(whole)
        for how, cut in HOW.items():
            for n in WIDTHS:
                rows = []
                for line in text.split("\n"):
                    rows += cut(line, n) if len(line) > n else [line]
                doc, rc = run("\n".join(rows), stdin=True)
                where = f"{name} {how} at {n}"
                known = KNOWN.get((name[:2], how, n), ())
                checked += 1
                if not doc:
                    fail(f"{where}: exit {rc}")
                    continue
                got = strip(doc)
                if len(got) != len(want):
                    fail(f"{where}: {len(got)} reports, the whole log {len(want)}")
                    continue
                differ(where, got, want, [k for k in known if k not in FIGURES])
                for g, w in zip(got, want):
                    for a, b in zip(g.get("allocations") or [], w.get("allocations") or []):
                        for k in ("rank", "size", "unpadded", "shape", "layout", "allocation_type"):
                            if a.get(k) != b.get(k):
                                fail(f"{where}: allocation {k} {a.get(k)} != {b.get(k)}")
                if known and all(g.get(k) == w[k] for g, w in zip(got, want) for k in w):
                    fail(f"{where}: reads whole now: take it out of KNOWN")
    if failures:
        print(f"oom folded reports: {len(failures)} failures")
        sys.exit(1)
    print(f"oom folded reports: {checked} reports folded at {WIDTHS} three ways read as "
          f"the whole ones ({len(KNOWN)} with the names a wrap leaves ambiguous)")


main()
