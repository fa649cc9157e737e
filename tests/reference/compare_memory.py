#!/usr/bin/env python3
"""Compare `tpuprof memory --format json` with the independent Python
reference in tests/reference/memory/ (memory_facts.py): every module's
heap curve, peak, position, indefinite and allocation sums and the
buffers live at the peak; every runtime memory's peak, counts and active
rows. Prints every difference; exits 1 if any.
Usage: compare_memory.py TPUPROF"""
import json
import os
import subprocess
import sys

tpuprof = sys.argv[1]
here = os.path.join(sys.path[0], "memory")
inputs = {
    "tpu-v6e-jax-inference-4chip": "../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb",
    "gpu-mi300x-jax-attention": "../shared/captures/gpu-mi300x-jax-attention/tw003.xplane.pb",
    "gpu-mi300x-jax-elementwise": "../shared/captures/gpu-mi300x-jax-elementwise/tw003.xplane.pb",
    "gpu-mi300x-jax-gemm": "../shared/captures/gpu-mi300x-jax-gemm/tw003.xplane.pb",
    "gpu-mi300x8-jax-conv3d": "../shared/captures/gpu-mi300x8-jax-conv3d/tw003.xplane.pb",
    "gpu-v100x8-tf-multiworker": "../shared/captures/gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb",
    "small": "testdata/small.xplane.pb",
    "layout-b": "testdata/layout-b.xplane.pb.gz",
    "jit_train_step": "testdata/jit_train_step.hlo_proto.pb",
    "multi-trace": "testdata/multi-trace.hlo_proto.pb",
}
bad = 0


def diff(where, ours, ref):
    global bad
    if ours != ref:
        bad += 1
        print(f"{where}: tpuprof {ours!r} != reference {ref!r}")


for name, path in inputs.items():
    ref = json.load(open(os.path.join(here, f"{name}.memory.json")))
    doc = json.loads(subprocess.run([tpuprof, "memory", "-q", "--format", "json", path],
                                    check=True, capture_output=True).stdout)
    ours = {m["program_id"]: m for m in doc["modules"]}
    diff(f"{name} modules", sorted(ours), sorted(ref["modules"]))
    for pid, r in ref["modules"].items():
        o = ours.get(pid)
        if not o:
            continue
        w = f"{name} {r['name']}({pid})"
        for k in ("peak_bytes", "peak_position", "heap_points", "indefinite_bytes",
                  "indefinite_allocation_bytes", "total_allocation_bytes",
                  "entry_parameter_bytes", "maybe_live_out_bytes", "non_reusable_bytes",
                  "peak_unpadded_bytes", "heap_trace"):
            diff(f"{w} {k}", o[k], r[k])
        diff(f"{w} heap curve", [p["bytes"] for p in o["heap"]], r["heap_curve"] if r["heap_points"] else [])
        diff(f"{w} live at peak", [b["logical_buffer_id"] for b in o["live_at_peak"]],
             r["max_heap_buffer_ids"])
        diff(f"{w} error", o["error"] is not None, r["error"] is not None)
    rt = {d["memory_id"]: d for d in doc["runtime"]}
    diff(f"{name} memory ids", sorted(rt), sorted(ref["runtime_memory"]))
    for mid, r in ref["runtime_memory"].items():
        o = rt.get(mid)
        if not o:
            continue
        w = f"{name} memory {mid}"
        for ok, rk in (("allocations", "allocations"), ("deallocations", "deallocations"),
                       ("peak_bytes", "peak_bytes"), ("peak_heap_bytes", "peak_heap_bytes"),
                       ("peak_stack_bytes", "peak_stack_bytes"), ("peak_free_bytes", "peak_free_bytes"),
                       ("capacity_bytes", "capacity"), ("peak_step", "peak_step"),
                       ("peak_time_ps", "peak_time_ps"), ("lifetime_peak_bytes", "peak_bytes_usage_lifetime")):
            # XProf gives step 0 when no event has a step; tpuprof null
            diff(f"{w} {ok}", 0 if ok == "peak_step" and o[ok] is None else o[ok], r[rk])
        diff(f"{w} active rows", [(a["bytes"], a["occurrences"]) for a in o["active_at_peak"]],
             [(a["allocation_bytes"], a["num_occurrences"]) for a in r["active_allocations"]])
    print(f"{name}: compared")
print(f"{bad} differences")
sys.exit(1 if bad else 0)
