#!/usr/bin/env python3
"""`make oom-test`: tpuprof oom held to the reference figures of the shared
reports (../shared/oom-reports/expected/, an independent parser), by value
within half a unit of the printed last digit; then variants made here from
every report: a log prefix on every line, newlines collapsed, the headline
wrapped at 70 columns, two reports in one log, and the report cut at every
line (no crash, and no figure the cut text does not print).
Usage: check_oom.py TPUPROF"""
import glob
import json
import os
import subprocess
import sys
import tempfile
import textwrap

tpuprof = sys.argv[1]
D = "../shared/oom-reports/"
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL", msg)


def run(path_or_text, stdin=False, extra=()):
    if stdin:
        p = subprocess.run([tpuprof, "oom", "--format", "json", *extra, "-"],
                           input=path_or_text.encode(), capture_output=True)
    else:
        p = subprocess.run([tpuprof, "oom", "--format", "json", *extra, path_or_text],
                           capture_output=True)
    if p.returncode not in (0, 1) or p.stderr and p.returncode == 0:
        fail(f"{path_or_text[:60]!r}: exit {p.returncode} {p.stderr.decode()[:300]}")
    return json.loads(p.stdout) if p.stdout else None, p.returncode


def tol(text):
    """Half a unit of the printed last digit (bytes) of a size text."""
    t = text.replace(",", "").strip()
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50, "E": 1 << 60}
    unit = 1
    for c in t:
        if c in mult:
            unit = mult[c]
            break
    num = "".join(c for c in t if c.isdigit() or c == ".")
    dec = len(num.split(".")[1]) if "." in num else 0
    return 0.5 * 10 ** -dec * unit


def compare(name, exp, rep):
    figs = rep["figures"]
    pct = rep["percentages"]
    for k, v in exp.items():
        if k in ("file", "headline_count", "runtime_message_count", "allocations", "allocations_count",
                 "total_usage_parts"):
            continue
        if k.endswith("_pct"):
            if pct.get(k) != v:
                fail(f"{name}: {k} {pct.get(k)} != {v}")
        elif k.endswith("_bytes"):
            f = figs.get(k[:-6])
            txt = exp.get(k[:-6] + "_text", "")
            if f is None or f["bytes"] is None or abs(f["bytes"] - v) > max(tol(txt), 0.5) + 1:
                fail(f"{name}: {k} {f} != {v}")
        elif k.endswith("_text"):
            f = figs.get(k[:-5])
            if f is None or f["text"] != v:
                fail(f"{name}: {k} {f and f['text']!r} != {v!r}")
        elif k in ("kind", "memory_space", "error_code", "error_name", "runtime_op", "device",
                   "device_ordinal", "allocations_memory_space"):
            if rep.get(k) != v:
                fail(f"{name}: {k} {rep.get(k)!r} != {v!r}")
        elif k == "log_prefixes":
            if sorted(rep["log_prefixes"]) != sorted(v):
                fail(f"{name}: log_prefixes {rep['log_prefixes']} != {v}")
        else:
            fail(f"{name}: expected key {k} not checked")
    parts = exp.get("total_usage_parts")
    if parts is not None:
        got = [(p["name"], p["size"]["text"]) for p in rep["total_usage_parts"]]
        if got != [(p["name"], p["text"]) for p in parts]:
            fail(f"{name}: total_usage_parts {got}")
    allocs = exp.get("allocations", [])
    if len(rep["allocations"]) != len(allocs) or exp.get("allocations_count", len(allocs)) != len(allocs):
        fail(f"{name}: {len(rep['allocations'])} allocations != {len(allocs)}")
    for ea, ga in zip(allocs, rep["allocations"]):
        for k, v in ea.items():
            if k.endswith("_bytes"):
                base = {"size_bytes": "size", "unpadded_bytes": "unpadded", "padding_bytes": "padding"}[k]
                g = ga[base]
                if g is None or abs(g["bytes"] - v) > tol(ea[base + "_text"]) + 1:
                    fail(f"{name} #{ea['rank']}: {k} {g} != {v}")
            elif k.endswith("_text"):
                g = ga[k[:-5].replace("size", "size")]
                if g is None or g["text"] != v:
                    fail(f"{name} #{ea['rank']}: {k} {g} != {v!r}")
            elif k == "operator":
                if ga["operator"] != v:
                    fail(f"{name} #{ea['rank']}: operator {ga['operator']!r} != {v!r}")
            elif ga.get(k) != v:
                fail(f"{name} #{ea['rank']}: {k} {ga.get(k)!r} != {v!r}")


def figures_of(doc):
    return [(r["kind"], {k: f["text"] for k, f in r["figures"].items()}, len(r["allocations"]))
            for r in doc["reports"]]


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
