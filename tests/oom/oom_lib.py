"""Helpers of the oom tests (check_oom.py, check_oom_variants.py): running
tpuprof oom on a file or a text, and holding a report to the reference
figures of ../shared/oom-reports/expected/ within half a unit of the
printed last digit."""
import json
import subprocess
import sys

tpuprof = sys.argv[1] if len(sys.argv) > 1 else "build/tpuprof"
D = "../shared/oom-reports/"
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL", msg)


def strip(doc, skip=("input", "line")):
    """The document's reports without the fields two texts of one report
    may differ in (where the text came from, the line it starts at)."""
    return [{k: v for k, v in r.items() if k not in skip} for r in doc["reports"]]


def differ(where, got, want, allowed=()):
    """Fails every field of the reports got that is not want's, but for
    the fields allowed to differ."""
    for g, w in zip(got, want):
        for k in w:
            if g.get(k) != w[k] and k not in allowed:
                fail(f"{where}: {k} {json.dumps(g.get(k))[:300]} != {json.dumps(w[k])[:300]}")


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


