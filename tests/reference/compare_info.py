#!/usr/bin/env python3
"""Compare `tpuprof info --format json` with the independent reference
facts in this folder (made by xspace_facts.py). Prints every difference;
exits 1 if any. Usage: compare_info.py TPUPROF CAPTURES_DIR"""
import json
import subprocess
import sys

tpuprof, captures = sys.argv[1], sys.argv[2]
folders = ["tpu-v6e-jax-inference-4chip", "gpu-mi300x-jax-attention",
           "gpu-mi300x-jax-elementwise", "gpu-mi300x-jax-gemm",
           "gpu-mi300x8-jax-conv3d", "gpu-v100x8-tf-multiworker"]
bad = 0
# TF-era host collectives, which xspace_facts.py does not count: confirmed
# with `protoc --decode=tensorflow.profiler.XSpace`: one /host:CPU event uses
# event metadata 149, "allreduce/CollectiveReduce:CollectiveReduce".
tf_host_collectives = {"gpu-v100x8-tf-multiworker": 1}


def diff(where, ours, ref):
    global bad
    if ours != ref:
        bad += 1
        print(f"{where}: tpuprof {ours!r} != reference {ref!r}")


for folder in folders:
    ref = json.load(open(f"{sys.path[0]}/{folder}.facts.json"))
    path = f"{captures}/{folder}/{ref['file']}"
    doc = json.loads(subprocess.run([tpuprof, "info", "--format", "json", path],
                                    check=True, capture_output=True).stdout)
    host = doc["hosts"][0]
    diff(f"{folder} hostnames", host["hostnames"], ref["hostnames"])
    diff(f"{folder} planes", [p["name"] for p in host["planes"]],
         [p["name"] for p in ref["planes"]])
    for ours, theirs in zip(host["planes"], ref["planes"]):
        w = f"{folder} {theirs['name']}"
        diff(f"{w} id", ours["id"], str(theirs["id"]))
        diff(f"{w} event_metadata", ours["event_metadata"], theirs["event_metadata"])
        diff(f"{w} stat_metadata", ours["stat_metadata"], theirs["stat_metadata"])
        diff(f"{w} events", ours["events"], theirs["events"])
        diff(f"{w} lines", len(ours["lines"]), len(theirs["lines"]))
        for ol, tl in zip(ours["lines"], theirs["lines"]):
            lw = f"{w} line {tl['name']}"
            for k in ("name", "events", "aggregated_events",
                      "first_start_ps", "last_end_ps"):
                diff(f"{lw} {k}", ol[k], tl[k])
            diff(f"{lw} id", ol["id"], str(tl["id"]))
            diff(f"{lw} timestamp_ns", ol["timestamp_ns"], str(tl["timestamp_ns"]))
    diff(f"{folder} memory allocations", host["memory_events"]["allocations"],
         ref["memory_events"]["MemoryAllocation"])
    diff(f"{folder} memory deallocations", host["memory_events"]["deallocations"],
         ref["memory_events"]["MemoryDeallocation"])
    coll = sum(sum(v.get("collective_categories", {}).values())
               for v in ref["events_by_metadata_name_on_op_lines"].values())
    coll += tf_host_collectives.get(folder, 0)
    diff(f"{folder} collective events", host["collective_events"], coll)
    ours_m = {m["program_id"]: m for m in host["modules"]}
    diff(f"{folder} module ids", sorted(ours_m), sorted(m["program_id"] for m in ref["modules"]))
    for rm in ref["modules"]:
        om = ours_m.get(rm["program_id"])
        if not om:
            continue
        mw = f"{folder} module {rm['name']}({rm['program_id']})"
        for ok, rk in (("name", "name"), ("computations", "computations"),
                       ("instructions", "instructions"), ("fusions", "fusion_instructions"),
                       ("fusion_computations", "fusion_computations"),
                       ("collectives", "collectives"),
                       ("buffer_assignment", "has_buffer_assignment"),
                       ("logical_buffers", "logical_buffers"),
                       ("buffer_allocations", "allocations"),
                       ("heap_traces", "heap_simulator_traces"),
                       ("heap_events", "heap_events"), ("hlo_bytes", "hlo_bytes")):
            diff(f"{mw} {ok}", om[ok], rm[rk])
    print(f"{folder}: compared")

print(f"{bad} differences")
sys.exit(1 if bad else 0)
