#!/usr/bin/env python3
"""`make oom-test`: tpuprof oom held to the reference figures of the shared
reports (../shared/oom-reports/expected/, an independent parser), by value
within half a unit of the printed last digit; then variants made here from
every report: a log prefix on every line, newlines collapsed, the headline
wrapped at 70 columns, two reports in one log, and the report cut at every
line (no crash, and no figure the cut text does not print); and --device
against the chips each report's printed capacity tells.
Usage: check_oom.py TPUPROF"""
import glob
import json
import os
import subprocess
import sys

from oom_lib import D, compare, fail, failures, figures_of, run, tpuprof
import tempfile
import textwrap

logs = sorted(glob.glob(D + "*.log"))
if len(logs) != 18:
    fail(f"{len(logs)} shared reports, not 18")
full = {}
for path in logs:
    name = os.path.basename(path)
    exp = json.load(open(D + "expected/" + name[:-4] + ".json"))
    doc, rc = run(path)
    if rc != 0 or doc["reports_count"] != 1:
        fail(f"{name}: exit {rc}, {doc and doc['reports_count']} reports")
        continue
    compare(name, exp, doc["reports"][0])
    full[name] = doc["reports"][0]
    text = open(path).read()
    # a log prefix on every line, blank ones too
    pre = "".join("E1111 07:35:00.270000 140408 train.py:81] " + l + "\n" for l in text.split("\n"))
    d, _ = run(pre, stdin=True)
    exp_p = dict(exp, log_prefixes=sorted(set(exp.get("log_prefixes", [])) | {"glog"}))
    if d and d["reports_count"] == 1:
        compare(name + " (prefixed)", exp_p, d["reports"][0])
    else:
        fail(f"{name} (prefixed): {d and d['reports_count']} reports")
    # every newline collapsed into a space
    d, _ = run(" ".join(text.split("\n")), stdin=True)
    if not d or d["reports_count"] != 1 or figures_of(d)[0][1] != figures_of({"reports": [full[name]]})[0][1]:
        fail(f"{name} (collapsed): {d and figures_of(d)}")
    # the headline re-wrapped at 70 columns
    lines = text.split("\n")
    wrapped = []
    for l in lines:
        if any(t in l for t in ("Ran out of memory", "Attempting to", "Out of memory while", "Failed to allocate")):
            wrapped.extend(textwrap.wrap(l, 70) or [""])
        else:
            wrapped.append(l)
    d, _ = run("\n".join(wrapped), stdin=True)
    if not d or d["reports_count"] != 1 or figures_of(d) != figures_of({"reports": [full[name]]}):
        fail(f"{name} (wrapped at 70): {d and figures_of(d)}")
    # two reports in one log
    d, _ = run(text + "\nsome other line\n" + text, stdin=True)
    if not d or d["reports_count"] != 2 or figures_of(d)[0] != figures_of(d)[1]:
        fail(f"{name} (twice): {d and d['reports_count']} reports")
    # cut at every line: what is found is printed in the cut text
    for i in range(len(lines)):
        cut = "\n".join(lines[:i])
        d, rc = run(cut, stdin=True)
        if not d:
            continue
        for r in d["reports"]:
            for k, f in r["figures"].items():
                if f["text"] not in cut:
                    fail(f"{name} cut at line {i}: {k} {f['text']!r} is not in the text")
            if len(r["allocations"]) > len(full[name]["allocations"]):
                fail(f"{name} cut at line {i}: more allocations than the whole report")

# every shared report in one log, in turn: each found once, as alone
allin = "\n".join(open(p).read() for p in logs)
d, _ = run(allin, stdin=True)
want = [figures_of({"reports": [full[os.path.basename(p)]]})[0] for p in logs if os.path.basename(p) in full]
if not d or figures_of(d) != want:
    fail("all reports in one log: %s" % (d and [(k, len(f)) for k, f, _ in figures_of(d)]))

# the explanation of known reports, exactly
r = full.get("01-tpu-v3-tf1-detection-au2018.log")
if r:
    a = r["allocations"][0]
    dims = [(x["size"], x["padded"]) for x in a["layout"]["dims"]]
    if dims != [(4, 4), (128, 128), (128, 128), (9, 16), (18, 128)] or a["layout"]["padded_bytes"] != 536870912:
        fail(f"01 #1 layout {dims} {a['layout']['padded_bytes']}")
    if r["verdict"]["chip"]["candidates"][:1] != ["TPU v3"] or r["verdict"]["over_by_bytes"] != 1717986918:
        fail(f"01 verdict {r['verdict']}")
    if r["listed"]["bytes"] != 4160749568 or r["listed"]["padding_bytes"] != 829947904:
        fail(f"01 listed {r['listed']}")
# a padded shape's better layout saves what XLA printed as its padding
for name in ("01-tpu-v3-tf1-detection-au2018.log", "02-tpu-v3-tf-mesh-flowpm-glog.log"):
    r = full.get(name)
    if r:
        x = r["relayouts"][0]
        a = [a for a in r["allocations"] if a["rank"] == x["rank"]][0]
        if x["saves_bytes"] != a["padding"]["bytes"] or x["padded_bytes"] != a["unpadded"]["bytes"]:
            fail(f"{name} relayout {x} vs padding {a['padding']}")
r = full.get("13-tpu-v4-jax-easydel-falcon.log")
if r:
    if r["allocations"][0]["remat_of"] != "fusion.1265" or r["verdict"]["chip"]["device_bytes"] != 32 << 30:
        fail(f"13 remat/chip {r['allocations'][0]['remat_of']} {r['verdict']['chip']}")
r = full.get("08-tpu-v2-jax-colabfold-colab.log")
if r and [d["padded"] for d in r["allocations"][0]["layout"]["dims"]] != [512, 248, 256]:
    fail("08 layout")
r = full.get("30-tpu-v2-jax-runtime-allocate-fragmentation.log")
if r and (r["verdict"]["over_by_bytes"] != 524288 or not r["verdict"]["over_by_derived"]):
    fail(f"30 verdict {r['verdict']}")

# --device against the chips the printed capacity tells (finding 11): a
# device of another HBM per device is said to contradict them, in JSON
# (verdict.chip.printed_disagrees: what the capacity tells) and in a
# one-line note; one of the same HBM, or a report that tells none, not
for path in logs:
    name = os.path.basename(path)
    told = full.get(name, {}).get("verdict", {}).get("chip")
    if told is None:
        continue
    for dev in ("v2", "v3", "v5p", "v6e", "a100"):
        d, rc = run(path, extra=("--device", dev))
        c = d["reports"][0]["verdict"]["chip"]
        text = subprocess.run([tpuprof, "oom", "--device", dev, path], capture_output=True).stdout.decode()
        agrees = not told["candidates"] or c["device_bytes"] == told["device_bytes"] or \
            c["candidates"][0] in told["candidates"]
        want = None if agrees else {"candidates": told["candidates"],
                                    "device_bytes": told["device_bytes"], "basis": told["basis"]}
        if "printed_disagrees" not in c or c["printed_disagrees"] != want:
            fail(f"{name} --device {dev}: printed_disagrees {c.get('printed_disagrees', '(absent)')}"
                 f" != {want}")
        notes = [l for l in text.split("\n") if l.startswith("  note: --device ")]
        cands = told["candidates"]
        cands = ", ".join(cands[:-1]) + " or " + cands[-1] if len(cands) > 1 else "".join(cands)
        if len(notes) != (0 if agrees else 1) or notes and (
                "contradicts the printed capacity, which tells " + cands not in notes[0] or
                told["basis"] not in notes[0]):
            fail(f"{name} --device {dev}: notes {notes}")

# no report: exit 1 with a one-line hint; unreadable: exit 3
p = subprocess.run([tpuprof, "oom", "-"], input=b"nothing here\n", capture_output=True)
if p.returncode != 1 or p.stderr.count(b"\n") != 1 or b"no out-of-memory report" not in p.stderr:
    fail(f"no report: exit {p.returncode} {p.stderr!r}")
p = subprocess.run([tpuprof, "oom", "/nonexistent.log"], capture_output=True)
if p.returncode != 3 or p.stderr != b"tpuprof: /nonexistent.log: cannot open: No such file or directory\n":
    fail(f"missing file: exit {p.returncode} {p.stderr!r}")
p = subprocess.run([tpuprof, "oom"], capture_output=True)
if p.returncode != 2:
    fail(f"no LOG: exit {p.returncode}")

if failures:
    print(f"oom-test: {len(failures)} failures")
    sys.exit(1)
print(f"oom-test: {len(logs)} shared reports and their variants hold")
