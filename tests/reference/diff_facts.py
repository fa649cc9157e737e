#!/usr/bin/env python3
"""Expected numbers for tests/check_diff.c, computed from two report
documents independently of src/analyze/diff*.c (plain loops, the rules
of docs/json.md `tpuprof.diff/1`). Prints C-ready facts.
Usage: diff_facts.py TPUPROF A B"""
import json
import subprocess
import sys
from collections import Counter, defaultdict

tp, A, B = sys.argv[1:4]
a = json.loads(subprocess.run([tp, "report", "--format", "json", A], capture_output=True, check=True).stdout)
b = json.loads(subprocess.run([tp, "report", "--format", "json", B], capture_output=True, check=True).stdout)


def pair_modules(ma, mb):
    pairs, used = {}, set()
    for key in ("program_id", "name"):
        for i, m in enumerate(ma):
            if i in pairs:
                continue
            for j, n in enumerate(mb):
                if j not in used and m["name"] == n["name"] and m[key] == n[key]:
                    pairs[i] = (j, key)
                    used.add(j)
                    break
    return pairs, used


def change(ha, hb, d):
    return "appeared" if not ha else "disappeared" if not hb else "grew" if d > 0 else "shrank" if d < 0 else "unchanged"


def summarize(name, rows):
    """rows: list of (label, a or None, b or None)"""
    ta = sum(r[1] for r in rows if r[1] is not None)
    tb = sum(r[2] for r in rows if r[2] is not None)
    cnt = Counter(change(r[1] is not None, r[2] is not None, (r[2] or 0) - (r[1] or 0)) for r in rows)
    print(f"{name}: rows {len(rows)} a {ta} b {tb} delta {tb - ta} counts {dict(cnt)}")


ma, mb = a["memory"]["modules"], b["memory"]["modules"]
pairs, used = pair_modules(ma, mb)
mods, bufs, scopes = [], [], defaultdict(lambda: [None, None])
root = [0, 0]
how_count = Counter()
for i, m in enumerate(ma):
    j, how = pairs.get(i, (None, None))
    n = mb[j] if j is not None else None
    mods.append((m["name"], m["peak_bytes"], n["peak_bytes"] if n else None))
    print(f"module {m['name']}: a {m['peak_bytes']} b {n['peak_bytes'] if n else None} by {how}")
    la, lb = m["live_at_peak"], (n["live_at_peak"] if n else [])
    match, bu = {}, set()
    for keyf, word in ((lambda x: (x["instruction"], tuple(x["shape_index"])), "instruction"),
                       (lambda x: (x["scope"], x["shape"]["text"] if x["shape"] else ""), "scope_shape")):
        for x, bx in enumerate(la):
            if x in match:
                continue
            for y, by in enumerate(lb):
                if y not in bu and keyf(bx) == keyf(by):
                    match[x] = y
                    bu.add(y)
                    how_count[word] += 1
                    break
    for x, bx in enumerate(la):
        bufs.append((bx["instruction"], bx["size_bytes"], lb[match[x]]["size_bytes"] if x in match else None))
    for y, by in enumerate(lb):
        if y not in bu:
            bufs.append((by["instruction"], None, by["size_bytes"]))
    for side, mm in ((0, m), (1, n)):
        for s in (mm["scopes"] if mm else []):
            if s["path"] == "":
                root[side] += s["inclusive_bytes"]
            else:
                scopes[(i, s["path"])][side] = s["inclusive_bytes"]
for j, n in enumerate(mb):
    if j not in used:
        mods.append((n["name"], None, n["peak_bytes"]))
        for by in n["live_at_peak"]:
            bufs.append((by["instruction"], None, by["size_bytes"]))
        for s in n["scopes"]:
            if s["path"] == "":
                root[1] += s["inclusive_bytes"]
            else:
                scopes[(1000 + j, s["path"])][1] = s["inclusive_bytes"]
summarize("memory_modules", mods)
summarize("peak_buffers", bufs)
print("buffers matched by", dict(how_count))
summarize("peak_scopes", [(k, v[0], v[1]) for k, v in scopes.items()])
print(f"peak_scopes totals (roots): a {root[0]} b {root[1]}")


def cores(doc, key):
    return {(c["host"], c["plane"]): c[key] for c in doc["memory"]["cores"] if c[key] is not None}


for key in ("compiler_peak_bytes", "runtime_peak_bytes"):
    ca, cb = cores(a, key), cores(b, key)
    summarize(key, [(k, ca.get(k), cb.get(k)) for k in set(ca) | set(cb)])


def ops(doc):
    t = defaultdict(int)
    for c in doc["ops"]["cores"]:
        for o in c["ops"]:
            t[(o["module"] or "", o["name"])] += o["total_ps"]
    return t


oa, ob = ops(a), ops(b)
summarize("ops", [(k, oa.get(k), ob.get(k)) for k in set(oa) | set(ob)])
for k in sorted(set(oa) | set(ob))[:3]:
    print("op", k, oa.get(k), ob.get(k))


def op_scopes(doc):
    return {s["path"]: s["inclusive_ps"] for s in doc["op_scopes"]["scopes"]}


sa, sb = op_scopes(a), op_scopes(b)
print(f"op_scopes totals (root): a {sa.get('', 0)} b {sb.get('', 0)}")
summarize("op_scopes", [(k, sa.get(k), sb.get(k)) for k in (set(sa) | set(sb)) - {""}])


def colls(doc):
    t = {}
    for c in doc["collectives"]["collectives"]:
        n = c["occurrences"]
        t[(c["module"], c["name"])] = ((c["ring_bytes_per_device"] or 0) * n, c["bytes"] * n, c["time_ps"], n)
    return t


ca, cb = colls(a), colls(b)
for i, name in enumerate(("collective_ring_bytes", "collective_payload_bytes", "collective_time")):
    summarize(name, [(k, ca[k][i] if k in ca else None, cb[k][i] if k in cb else None) for k in set(ca) | set(cb)])
for k in sorted(set(ca) | set(cb)):
    print("collective", k, ca.get(k), cb.get(k))
