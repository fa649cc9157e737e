#!/usr/bin/env python3
"""Compare `tpuprof info --format json` on the generated captures in
testdata/ with the ground truth the generator wrote while generating them
(testdata/*.summary.json). Prints every difference; exits 1 if any.
Usage: compare_summary.py TPUPROF"""
import json
import subprocess
import sys

tpuprof = sys.argv[1]
bad = 0


def diff(where, ours, ref):
    global bad
    if ours != ref:
        bad += 1
        print(f"{where}: tpuprof {ours!r} != generator {ref!r}")


for summary in ["testdata/small.summary.json", "testdata/layout-b.summary.json",
                "testdata/run-3hosts.summary.json"]:
    truth = json.load(open(summary))
    for f in truth["files"]:
        doc = json.loads(subprocess.run([tpuprof, "info", "--format", "json", f["path"]],
                                        check=True, capture_output=True).stdout)
        host = doc["hosts"][0]
        w = f["path"]
        diff(f"{w} gzip", doc["sources"][0]["gzip"], f["gzip"])
        diff(f"{w} host", host["name"], f["hostname"])
        diff(f"{w} planes", [p["name"] for p in host["planes"]], [p["name"] for p in f["planes"]])
        for op, tp in zip(host["planes"], f["planes"]):
            diff(f"{w} {tp['name']} id", op["id"], str(tp["id"]))
            # a line split into several XLine messages appears once per message
            events = {}
            for ln in op["lines"]:
                events[ln["name"]] = events.get(ln["name"], 0) + ln["events"]
            diff(f"{w} {tp['name']} lines", events,
                 {ln["name"]: ln["events"] for ln in tp["lines"]})
            diff(f"{w} {tp['name']} messages", len(op["lines"]),
                 sum(ln["messages"] for ln in tp["lines"]))
        diff(f"{w} allocations", host["memory_events"]["allocations"], f["memory_allocation_events"])
        diff(f"{w} deallocations", host["memory_events"]["deallocations"], f["memory_deallocation_events"])
        ours = {m["program_id"]: m for m in host["modules"]}
        diff(f"{w} modules", sorted(ours), sorted(m["program_id"] for m in f["hlo_modules"]))
        for m in f["hlo_modules"]:
            om = ours.get(m["program_id"], {})
            for k in ("name", "computations", "instructions", "fusions", "collectives",
                      "logical_buffers", "buffer_allocations", "heap_traces", "heap_events"):
                diff(f"{w} module {m['name']} {k}", om.get(k), m[k])
            diff(f"{w} module {m['name']} hlo_bytes", om.get("hlo_bytes"), m["hlo_proto_bytes"])
    print(f"{summary}: compared")
print(f"{bad} differences")
sys.exit(1 if bad else 0)
