#!/usr/bin/python3
"""The figures contract (issue 23): the whole product held to docs/json.md
on every shared capture and test capture.

    python3 tests/figures/figures.py TPUPROF [-v] [ROW-SUBSTRING]

Runs every analysis command (report, ops, memory, collectives, fusions,
info, check; diff of each capture against itself and of a few pairs) in
text, JSON and HTML once each (harness.py), then walks THE TABLE
(table.py): every row on every capture. Then docs/json.md itself: every
numeric field states its unit (doc_units.py).

A row marked xfail="23.N" waits for issue 23's point N (or names the
known bug it waits for): its failures are expected. If it passes on every capture, that is reported as a failure
(XPASS): the fix is in, drop the flag. Exit status 1 on any failure.
"""
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import doc_units  # noqa: E402
import harness  # noqa: E402
import table  # noqa: E402
from figures_lib import Skip  # noqa: E402


def walk_row(row, caps, diffs, verbose=False):
    """One row over its runs: ("pass" | "xfail" | "fail", lines to print)."""
    problems, walked = [], 0
    for cap in (diffs if row.on == "diffs" else caps):
        try:
            got = row.problems(cap)
        except Skip:
            continue
        except harness.RunError as e:
            got = [str(e)]
        except Exception as e:  # a reader that breaks is a failure to see
            got = ["%s: %s" % (type(e).__name__, e)]
            if verbose:
                traceback.print_exc()
        walked += 1
        problems += ["%s: %s" % (cap.name, p) for p in got]
    if walked == 0:
        return "fail", ["FAIL %s: no capture has this figure (the row reads nothing)" % row.name]
    if row.xfail and problems:
        return "xfail", ["xfail %s (waits for %s, %d problems), e.g. %s" % (row.name, row.xfail, len(problems), problems[0][:160])] + \
            ["    " + p for p in (problems[1:] if verbose else [])]
    if row.xfail:
        return "fail", ["FAIL %s: XPASS on %d captures: %s fixed it, drop xfail from its row in tests/figures/table.py"
                        % (row.name, walked, row.xfail)]
    if problems:
        lines = ["FAIL %s (%d problems):" % (row.name, len(problems))]
        lines += ["    " + p for p in problems[:None if verbose else 8]]
        if len(problems) > 8 and not verbose:
            lines.append("    ... %d more (-v shows all)" % (len(problems) - 8))
        return "fail", lines
    return "pass", (["ok   %s (%d captures)" % (row.name, walked)] if verbose else [])


def selftest():
    """The driver's own verdicts: an xfail row that passes is a failure,
    one that fails is expected, a row that reads nothing fails."""
    from figures_lib import Check

    class Cap:
        name = "fake"

    def fails(cap):
        yield "wrong"

    def skips(cap):
        raise Skip()
        yield

    cases = [(Check("ok", lambda c: []), "pass"), (Check("bad", fails), "fail"),
             (Check("xfail that fails", fails, xfail="23.0"), "xfail"),
             (Check("xfail that passes", lambda c: [], xfail="23.0"), "fail"),
             (Check("reads nothing", skips), "fail")]
    bad = [(r.name, walk_row(r, [Cap()], [])[0], want) for r, want in cases if walk_row(r, [Cap()], [])[0] != want]
    for b in bad:
        print("FAIL selftest: row %r gave %s, expected %s" % b)
    return not bad


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "-v" in sys.argv
    tpuprof, only = args[0], (args[1] if len(args) > 1 else None)
    if not selftest():
        return 1
    t0 = time.time()
    outputs = harness.Outputs(tpuprof, harness.jobs())
    t_run = time.time() - t0
    caps = harness.captures(outputs)
    diffs = harness.diff_runs(outputs)
    count = {"pass": 0, "xfail": 0, "fail": 0}
    for row in table.ROWS:
        if only and only not in row.name:
            continue
        verdict, lines = walk_row(row, caps, diffs, verbose)
        count[verdict] += 1
        for line in lines:
            print(line)
    if not only:
        doc_problems = doc_units.problems("docs/json.md")
        if doc_problems:
            count["fail"] += 1
            print("FAIL docs/json.md: every numeric field states its unit (%d without):" % len(doc_problems))
            for p in doc_problems:
                print("    " + p)
        else:
            count["pass"] += 1
    print("figures: %d passed, %d expected failures, %d failed; %d runs in %.1f s, total %.1f s"
          % (count["pass"], count["xfail"], count["fail"], len(outputs.runs), t_run, time.time() - t0))
    return 1 if count["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
