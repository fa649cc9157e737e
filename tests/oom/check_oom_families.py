#!/usr/bin/env python3
"""`make oom-test`, part 3: one made-up but faithful report per family of
../shared/docs/oom-facts.md and per fragment shape (testdata/oom/*.log),
held to its figures exactly: kind, memory space, error code, whether the
headline is there, every printed figure's text, the allocations, the
overage and the cause. Usage: check_oom_families.py TPUPROF"""
import subprocess
import sys

from oom_lib import fail, failures, run, tpuprof

T = "testdata/oom/"
# file: one dict per report; "figures" lists every figure read, exactly
CASES = {
    "tf-compilation-failure.log": [dict(
        kind="compile", memory_space="hbm", headless=False, allocations=2, cause="temporaries",
        over_by=1717986918, figures=dict(
            used="17.60G", capacity="16.00G", exceeded="1.60G", total_usage="17.60G",
            reserved="528.00M", program="15.07G", arguments="2.00G", output="2.00G",
            output_shares_with_arguments="2.00G", program_requirement="15.07G",
            program_reserved="4.0K", global_="124.0K", scoped="1.00M", hlo_temp="15.07G",
            hlo_temp_unpadded="13.50G", hlo_temp_padded="15.00G",
            hlo_temp_fragmentation="75.00M"))],
    "jax-permanent-error.log": [dict(
        kind="compile", headless=False, cause="temporaries", figures=dict(
            used="20.50G", capacity="15.48G", exceeded="5.02G", total_usage="21.02G",
            reserved="530.00M", program="18.50G", arguments="2.00G", output="0B",
            output_shares_with_arguments="0B", program_requirement="18.50G", global_="256.0K",
            scoped="2.00M", hlo_temp="18.50G", hlo_temp_unpadded="18.40G",
            hlo_temp_padded="18.40G", hlo_temp_fragmentation="100.00M"))],
    "e1000.log": [dict(error_code="E1000", error_name="CompileTimeHbmOom", figures=dict(
        used="40.00G", capacity="31.25G", exceeded="8.75G"))],
    "bad-statusor.log": [dict(figures=dict(used="9.00G", capacity="7.48G", exceeded="1.52G"))],
    "zero-resource-exhausted.log": [dict(over_by=512 << 20, figures=dict(
        used="8.50G", capacity="8.00G", exceeded="512.00M"))],
    "early-abort.log": [dict(kind="compile", memory_space="hbm", figures=dict(
        used="3.47E", capacity="14.49G"))],
    "e1002-tensorcore-sparsecore.log": [dict(
        kind="compile", memory_space="hbm", over_by=(int(28.5 * 4) + 17 - 125) * (1 << 28),
        over_source="tensorcore_usage + sparsecore_usage - capacity", figures=dict(
            tensorcore_usage="28.50G", sparsecore_usage="4.25G", capacity="31.25G"))],
    "e1001-allocation.log": [dict(memory_space="vmem", error_code="E1001", over_by=16777216,
                                  figures=dict(used="33554432", capacity="16777216"))],
    "vmem.log": [dict(memory_space="vmem", figures=dict(
        used="48.00M", capacity="32.00M", exceeded="16.00M"))],
    "scoped-vmem.log": [dict(memory_space="vmem", figures=dict(
        used="24.00M", capacity="16.00M", exceeded="8.00M"))],
    "runtime-reserve-table.log": [dict(
        kind="runtime", runtime_op="reserve", over_by=1 << 30, over_source="available_after_request",
        over_alt=512 << 20, figures=dict(
            capacity="8.00G", request="2.00G", free="1.50G", reserved_now="0B", reservable="1.50G",
            top_of_memory_reserved="512.00M", currently_allocated="6.50G",
            runtime_program_requirement="2.00G", available_after_request="-1.00G"))],
    "runtime-allocate.log": [dict(
        kind="runtime", runtime_op="allocate", device="0x0x0_HBM0", cause="fragmentation",
        over_by=256 << 20, figures=dict(request="1.00G", free="1.50G", largest_free_region="768.00M"))],
    "e0101-load.log": [dict(kind="runtime", program_name="jit_generate", over_by=2 << 30, figures=dict(
        request="6.00G", free="4.00G", reserved_now="0B", reservable="4.00G"))],
    "gpu-buffer-assignment.log": [dict(kind="gpu", allocations=2, figures=dict(
        request="1073741824 bytes", ba_parameter="1.00GiB", ba_constant="0B",
        ba_maybe_live_out="1.00GiB", ba_preallocated_temp="2.00GiB", ba_total="4.00GiB",
        ba_total_fragmentation="0B"))],
    "gpu-failed-request.log": [dict(kind="gpu", device_ordinal=1, figures=dict(request="256.00MiB"))],
    "bfc.log": [dict(kind="gpu", over_by=(1 << 30) - (8589934592 - 8053063680), figures=dict(
        request="1.00GiB", bfc_rounded="1073741824", bfc_in_use_chunks="7.50GiB",
        bfc_limit="8589934592", bfc_in_use="8053063680", bfc_max_in_use="8053063680"))],
    # fragments: no headline, nothing invented
    "fragment-program.log": [dict(
        kind="compile", memory_space="hbm", headless=True, allocations=1, over_by=None,
        missing=["headline", "total_usage"], figures=dict(
            program_requirement="12.00G", global_="128.0K", scoped="1.00M", hlo_temp="12.00G",
            hlo_temp_unpadded="11.00G", hlo_temp_padded="11.58G", hlo_temp_fragmentation="430.00M"))],
    "fragment-entries.log": [dict(kind="compile", headless=True, allocations=2, figures={})],
    "fragment-peak-buffers.log": [dict(kind="gpu", headless=True, allocations=1, figures={})],
    "fragment-bfc-stats.log": [dict(kind="gpu", headless=True, figures=dict(
        bfc_in_use_chunks="14.00GiB", bfc_limit="15032385536", bfc_in_use="15032385536",
        bfc_max_in_use="15032385536"))],
    # several fragments stay apart: a block repeated, or out of XLA's order
    "two-fragments.log": [
        dict(headless=True, figures=dict(total_usage="20.00G", reserved="530.00M", program="18.00G",
                                         arguments="1.48G")),
        dict(headless=True, figures=dict(total_usage="17.00G", reserved="530.00M", program="15.00G",
                                         arguments="1.48G"))],
    "fragment-out-of-order.log": [
        dict(headless=True, figures=dict(program_requirement="9.00G", global_="128.0K", hlo_temp="9.00G",
                                         hlo_temp_unpadded="9.00G", hlo_temp_padded="9.00G",
                                         hlo_temp_fragmentation="0B")),
        dict(headless=True, figures=dict(total_usage="9.52G", reserved="530.00M", program="9.00G",
                                         arguments="0B"))],
}
TOP = ("kind", "memory_space", "error_code", "error_name", "runtime_op", "device", "device_ordinal",
       "headless", "program_name", "missing")
VERDICT = {"over_by": "over_by_bytes", "over_source": "over_by_source",
           "over_alt": "over_by_alternative_bytes", "cause": "cause"}

for name, want in CASES.items():
    doc, rc = run(T + name)
    if rc != 0 or doc["reports_count"] != len(want):
        fail(f"{name}: exit {rc}, {doc and doc['reports_count']} reports, not {len(want)}")
        continue
    for i, (w, r) in enumerate(zip(want, doc["reports"])):
        where = f"{name} #{i + 1}"
        figs = {k: f["text"] for k, f in r["figures"].items()}
        wf = {k.rstrip("_"): v for k, v in w["figures"].items()}
        if figs != wf:
            fail(f"{where}: figures {figs} != {wf}")
        for k in TOP:
            if k in w and r[k] != w[k]:
                fail(f"{where}: {k} {r[k]!r} != {w[k]!r}")
        for k, jk in VERDICT.items():
            if k in w and r["verdict"][jk] != w[k]:
                fail(f"{where}: {jk} {r['verdict'][jk]!r} != {w[k]!r}")
        if len(r["allocations"]) != w.get("allocations", 0):
            fail(f"{where}: {len(r['allocations'])} allocations")
        if w.get("headless") and (set(figs) & {"used", "capacity", "exceeded"}):
            fail(f"{where}: a headless report invents {set(figs) & {'used', 'capacity', 'exceeded'}}")

# a headless report and --device: the printed total against that chip's
# HBM, derived and said so; without it, how to tell the chip
doc, _ = run(T + "two-fragments.log", extra=("--device", "v3"))
v = doc["reports"][0]["verdict"]
if (v["over_by_bytes"], v["over_by_derived"], v["chip"]["forced"]) != (20 * (1 << 30) - 16 * (1 << 30), True, True):
    fail(f"two-fragments --device v3: {v}")
out = subprocess.run([tpuprof, "oom", T + "fragment-program.log"], capture_output=True).stdout.decode()
if "headless: the text starts after the headline, so used, capacity and the overage are not printed" \
        not in out:
    fail(f"fragment-program: the text does not say what it lacks: {out[:400]}")
# --device is suggested only where a total usage is printed for it to
# compare (two-fragments); a fragment without one (fragment-program, a
# GPU paste) is told nothing it cannot use, and --device there says so
for name, hint in (("two-fragments.log", True), ("fragment-program.log", False),
                   ("fragment-peak-buffers.log", False), ("fragment-bfc-stats.log", False)):
    out = subprocess.run([tpuprof, "oom", T + name], capture_output=True).stdout.decode()
    if ("--device NAME" in out) != hint:
        fail(f"{name}: the --device hint {'missing' if hint else 'given'}: {out[:400]}")
out = subprocess.run([tpuprof, "oom", "--device", "a100", T + "fragment-peak-buffers.log"],
                     capture_output=True).stdout.decode()
if "no total usage is printed, so --device derives nothing" not in out:
    fail(f"fragment-peak-buffers --device a100: not said why nothing is derived: {out[:400]}")

# a part's words in prose are no report: nothing read, exit 1
doc, rc = run(T + "not-a-report.log")
if rc != 1 or doc["reports_count"] != 0:
    fail(f"not-a-report: exit {rc}, {doc and doc['reports_count']} reports")

if failures:
    print(f"oom families: {len(failures)} failures")
    sys.exit(1)
print(f"oom families: {len(CASES)} synthetic reports hold")
