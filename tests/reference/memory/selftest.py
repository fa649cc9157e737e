#!/usr/bin/python3
"""Self-test of memory_facts.py's heap replay on small hand-built HloProtos.

The first four cases are the scenarios of XProf's own unit tests for the
memory viewer (SHARE_WITH after ALLOC, after FREE, a SHARE_WITH chain, and a
sharer displayed at the peak), with the values those tests expect.  The rest
check trace choice, indefinite buffers and errors from format-facts.md §5.

    /usr/bin/python3 tests/reference/memory/selftest.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memory_facts as mf  # noqa: E402

MIB = 1 << 20
_, HLO = mf.load_bindings()


def proto(n_buffers, alloc_size, traces, extra_allocs=()):
    """n_buffers logical buffers of 0.5 MiB (ids 1..n), instructions
    fusion.1..n (ids 0..n-1, shape (u64)), one allocation (index 0)."""
    p = HLO.HloProto()
    comp = p.hlo_module.computations.add()
    comp.name = "test_computation"
    p.hlo_module.name = "test_module"
    for k in range(n_buffers):
        ins = comp.instructions.add()
        ins.name = "fusion.%d" % (k + 1)
        ins.id = k
        ins.shape.element_type = 13
        ins.shape.tuple_shapes.add().element_type = 9
    ba = p.buffer_assignment
    a = ba.buffer_allocations.add()
    a.index = 0
    a.size = alloc_size
    for k in range(n_buffers):
        lb = ba.logical_buffers.add()
        lb.id = k + 1
        lb.size = MIB // 2
        lb.defined_at.instruction_id = k
        lb.defined_at.shape_index.append(0)
        asg = a.assigned.add()
        asg.logical_buffer_id = k + 1
        asg.size = MIB // 2
    for (index, size, flags, ids) in extra_allocs:
        e = ba.buffer_allocations.add()
        e.index = index
        e.size = size
        for f in flags:
            setattr(e, f, True)
        for i in ids:
            e.assigned.add().logical_buffer_id = i
    for evs in traces:
        t = ba.heap_simulator_traces.add()
        for ev in evs:
            x = t.events.add()
            x.kind = ev[0]
            x.buffer_id = ev[1]
            if len(ev) > 2:
                x.share_with_canonical_id = ev[2]
    return p


A, F, S = mf.ALLOC, mf.FREE, mf.SHARE_WITH
failures = []


def check(name, got, want):
    if got != want:
        failures.append("%s: got %r, want %r" % (name, got, want))


# XProf TestHeapSimulatorTraceShareWith_1: ALLOC then SHARE: not doubled.
r = mf.memory_viewer(proto(2, MIB, [[(A, 1), (S, 2, 1), (F, 1), (F, 2)]]), 0)
check("share_1 peak", r["peak_bytes"], MIB // 2)
check("share_1 total", r["total_allocation_bytes"], MIB)
check("share_1 curve", r["heap_curve"], [0, MIB // 2, MIB // 2, MIB // 2, 0])

# XProf TestHeapSimulatorTraceShareWith_2: ALLOC, FREE, SHARE (reuse).
r = mf.memory_viewer(proto(2, MIB, [[(A, 1), (F, 1), (S, 2, 1), (F, 2)]]), 0)
check("share_2 peak", r["peak_bytes"], MIB // 2)
check("share_2 position", r["peak_position"], 0)
check("share_2 curve", r["heap_curve"], [0, MIB // 2, 0, MIB // 2, 0])
check("share_2 error", r["error"], None)

# XProf TestHeapSimulatorTraceShareWithChain: C->B->A, root used throughout.
r = mf.memory_viewer(proto(3, 3 * MIB // 2, [[
    (A, 1), (S, 2, 1), (F, 1), (F, 2), (S, 3, 2), (F, 3)]]), 0)
check("chain peak", r["peak_bytes"], MIB // 2)
check("chain max heap", r["max_heap_buffer_ids"], [1])
check("chain error", r["error"], None)

# XProf TestHeapSimulatorTraceShareWithPeakInstruction.
r = mf.memory_viewer(proto(3, 3 * MIB // 2, [[
    (A, 1), (F, 1), (S, 2, 1), (A, 3), (F, 2), (F, 3)]]), 0)
check("display peak", r["peak_bytes"], MIB)
check("display position", r["peak_position"], 3)
check("display total", r["total_allocation_bytes"], 3 * MIB // 2)
check("display max heap", r["max_heap_buffer_ids"], [2, 3])
check("display canonical", r["peak_live_canonical_ids"], [1, 3])
check("display span 2", r["logical_buffer_spans"].get("2"), [2, 4])
check("display span 3", r["logical_buffer_spans"].get("3"), [3, 5])

# Double FREE is an error ("freed multiple times").
r = mf.memory_viewer(proto(2, MIB, [[(A, 1), (F, 1), (F, 1)]]), 0)
check("double free", (r["error"] or "")[:9], "buffer 1 ")
check("double free points", r["heap_points"], 0)

# Unknown kind is an error.
r = mf.memory_viewer(proto(2, MIB, [[(A, 1), (7, 1)]]), 0)
check("bad kind", (r["error"] or "")[:15], "unhandled event")

# Trace choice: trace 1 starts in the temp allocation (index 0), trace 0
# starts in an entry-parameter allocation (index 1, buffer 9).  Tagging picks
# trace 1 although trace 0 has more events of color 0.
p = proto(2, MIB, [[(A, 9), (F, 9), (A, 1), (F, 1)], [(A, 2), (F, 2)]],
          extra_allocs=[(1, 4096, ["is_entry_computation_parameter"], [9])])
lb = p.buffer_assignment.logical_buffers.add()
lb.id = 9
lb.size = 4096
lb.defined_at.instruction_id = 0
r = mf.memory_viewer(p, 0)
check("choice trace", r["heap_trace"], 1)
check("choice indefinite", r["indefinite_bytes"], 4096)
check("choice indefinite reps", r["indefinite_representatives"], [9])
check("choice peak", r["peak_bytes"], MIB // 2 + 4096)
check("choice max heap", r["max_heap_buffer_ids"], [9, 2])
check("choice entry params", r["entry_parameter_bytes"], 4096)

# An indefinite allocation whose buffers all have size 0 counts in
# indefinite_allocation_bytes but not in indefinite_bytes (§11.3).
p = proto(1, MIB, [], extra_allocs=[(1, 64, ["maybe_live_out"], [5])])
lb = p.buffer_assignment.logical_buffers.add()
lb.id = 5
lb.size = 0
lb.defined_at.instruction_id = 0
r = mf.memory_viewer(p, 0)
check("zero indef bytes", r["indefinite_bytes"], 0)
check("zero indef alloc bytes", r["indefinite_allocation_bytes"], 64)
check("no trace", (r["heap_trace"], r["heap_points"], r["heap_curve"]),
      (None, 0, []))

# Color 1: no trace of that color; indefinite reps not in the max heap.
r = mf.memory_viewer(proto(2, MIB, [[(A, 1), (F, 1)]]), 1)
check("color 1 trace", r["heap_trace"], None)
check("color 1 total", r["total_allocation_bytes"], 0)

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("selftest: all checks passed")
