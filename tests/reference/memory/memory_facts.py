#!/usr/bin/python3
"""Independent reference for XProf's memory viewer and memory profile.

    /usr/bin/python3 tests/reference/memory/memory_facts.py CAPTURE [--color N]

CAPTURE is an XSpace (`*.xplane.pb`, optionally gzip-compressed) or a bare
serialized `xla.HloProto` (`*.hlo_proto.pb`, `*.hlo.pb`, or --hlo).  Prints
one JSON document (sorted keys, indent 1) on stdout.

Rules: ../shared/docs/format-facts.md §3 (embedded HLO), §5 (memory viewer),
§6 (memory profile) and §11 (corrections 11.2-11.4, 11.7, 11.8).  Where XProf
iterates a hash map, allocation-index order is used (see README.md here).
Uses Debian's python3-protobuf with bindings generated at run time by protoc
from proto/xplane.proto and proto/hlo.proto.  Shares no code with tpuprof.
"""
import argparse
import gzip
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "..", "proto"))

U64 = 1 << 64
INT64_MAX = (1 << 63) - 1
HLO_STAT_NAMES = ("Hlo Proto", "HLO Proto")

ALLOC, FREE, SHARE_WITH = 0, 1, 2

# PrimitiveType -> bytes per element (§4 table).  Sub-byte types count as one
# byte: the default layout carries no element_size_in_bits.
PRIM_BYTES = {
    1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 2, 8: 4, 9: 8, 10: 2, 11: 4,
    12: 8, 15: 8, 16: 2, 18: 16, 19: 1, 20: 1, 21: 1, 22: 1, 23: 1, 24: 1,
    25: 1, 26: 1, 27: 1, 28: 1, 29: 1, 30: 1, 31: 1, 32: 1, 33: 1,
}
TUPLE, OPAQUE, TOKEN = 13, 14, 17
POINTER_SIZE = 8

# tensorflow DataTypeString (types.proto enum values).
TF_DTYPES = {
    0: "INVALID", 1: "float", 2: "double", 3: "int32", 4: "uint8",
    5: "int16", 6: "int8", 7: "string", 8: "complex64", 9: "int64",
    10: "bool", 11: "qint8", 12: "quint8", 13: "qint32", 14: "bfloat16",
    15: "qint16", 16: "quint16", 17: "uint16", 18: "complex128", 19: "half",
    20: "resource", 21: "variant", 22: "uint32", 23: "uint64",
    24: "float8_e5m2", 25: "float8_e4m3fn", 26: "float8_e4m3fnuz",
    27: "float8_e4m3b11fnuz", 28: "float8_e5m2fnuz", 29: "int4",
    30: "uint4", 31: "int2", 32: "uint2",
}


def dtype_string(v):
    if v in TF_DTYPES:
        return TF_DTYPES[v]
    if v > 100 and (v - 100) in TF_DTYPES and v != 100:
        return TF_DTYPES[v - 100] + "_ref"
    return "unknown dtype enum (%d)" % v


def load_bindings():
    tmp = tempfile.mkdtemp(prefix="memory_facts_")
    subprocess.run(
        ["protoc", "-I" + PROTO_DIR, "--python_out=" + tmp,
         os.path.join(PROTO_DIR, "xplane.proto"),
         os.path.join(PROTO_DIR, "hlo.proto")],
        check=True)
    sys.path.insert(0, tmp)
    try:
        xplane_pb2 = importlib.import_module("xplane_pb2")
        hlo_pb2 = importlib.import_module("hlo_pb2")
    finally:
        sys.path.remove(tmp)
        shutil.rmtree(tmp, ignore_errors=True)
    return xplane_pb2, hlo_pb2


def read_bytes(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data


# ---------------------------------------------------------------------------
# §5: memory viewer
# ---------------------------------------------------------------------------

def unpadded_size(shape, shape_index):
    """§5 / §11.2: last shape_index element into the top-level tuple, then
    ByteSizeOf with the default layout and pointer size 8."""
    s = shape
    if len(shape_index) > 0:
        i = shape_index[-1]
        if 0 <= i < len(shape.tuple_shapes):
            s = shape.tuple_shapes[i]
    et = s.element_type
    if et == TUPLE:
        return POINTER_SIZE * len(s.tuple_shapes)
    if et == TOKEN:
        return 0
    if et == OPAQUE:
        return POINTER_SIZE
    n = 1
    for d in s.dimensions:
        n *= d
    return n * PRIM_BYTES.get(et, 0)


class Rec:
    """A logical buffer record (§5 step 1.3)."""
    __slots__ = ("id", "size", "color", "unpadded", "alloc_pos")

    def __init__(self, lb, alloc_pos, unpadded):
        self.id = lb.id
        self.size = lb.size
        self.color = lb.color
        self.unpadded = unpadded
        self.alloc_pos = alloc_pos


def indefinite(a):
    return bool(a.is_thread_local or a.is_entry_computation_parameter
                or a.is_constant or a.maybe_live_out)


class ReplayError(Exception):
    pass


def memory_viewer(proto, color):
    mod = proto.hlo_module
    ba = proto.buffer_assignment
    notes = []

    # Step 1: indexes.
    by_id = {}
    by_name = {}
    for comp in mod.computations:
        for ins in comp.instructions:
            by_id.setdefault(ins.id, ins)
            by_name.setdefault(ins.name, ins)
    lb_by_id = {}
    for lb in ba.logical_buffers:
        if lb.id in lb_by_id:
            notes.append("logical buffer %d listed twice; first kept" % lb.id)
            continue
        lb_by_id[lb.id] = lb

    allocs = list(ba.buffer_allocations)
    records = {}
    missing_instr = 0
    missing_lb = 0
    for pos, a in enumerate(allocs):
        for asg in a.assigned:
            lid = asg.logical_buffer_id
            if lid in records:
                notes.append("logical buffer %d assigned twice; first record "
                             "kept" % lid)
                continue
            lb = lb_by_id.get(lid)
            if lb is None:
                missing_lb += 1
                continue
            loc = lb.defined_at
            ins = None
            if loc.instruction_id != 0 or not loc.instruction_name:
                ins = by_id.get(loc.instruction_id)
            if ins is None and loc.instruction_name:
                ins = by_name.get(loc.instruction_name)
            if ins is None:
                missing_instr += 1
                continue
            records[lid] = Rec(lb, pos, unpadded_size(ins.shape,
                                                      list(loc.shape_index)))
    if missing_lb:
        notes.append("%d assigned ids without a LogicalBufferProto" % missing_lb)
    if missing_instr:
        notes.append("%d logical buffers whose instruction is not found"
                     % missing_instr)

    # Allocations of this color in allocation-index order (stands in for
    # XProf's hash-map order).
    order = sorted(range(len(allocs)), key=lambda p: (allocs[p].index, p))
    color_allocs = [p for p in order if allocs[p].color == color]

    # Step 2: choose the trace.
    traces = list(ba.heap_simulator_traces)
    tag = {}
    for ti, tr in enumerate(traces):
        if len(tr.events) == 0:
            continue
        r = records.get(tr.events[0].buffer_id)
        if r is None:
            continue
        tag[r.alloc_pos] = ti  # later traces overwrite earlier tags
    chosen = None
    chosen_by = None
    for p in color_allocs:
        if indefinite(allocs[p]):
            continue
        if p in tag:
            chosen = tag[p]
            chosen_by = "allocation %d" % allocs[p].index
            break
    if chosen is None:
        best_count = 0
        for ti, tr in enumerate(traces):
            c = 0
            for ev in tr.events:
                r = records.get(ev.buffer_id)
                if r is not None and r.color == color:
                    c += 1
            if c > best_count:
                best_count = c
                chosen = ti
        if chosen is not None:
            chosen_by = "most events of the color (%d)" % best_count

    # Step 3: replay.
    timeline = []
    utimeline = []
    peak = 0
    peak_pos = 0
    peak_unp = 0
    peak_live = []
    peak_disp = {}
    error = None
    shares = {"live": 0, "reuse": 0}
    spans = {}
    if chosen is not None:
        events = traces[chosen].events
        n = len(events)
        ref = {}
        canon = {}
        span = {}
        disp = {}
        live = []
        st = {"heap": 0, "unp": 0}
        seen_allocs = set()
        seen_buffers = set()

        def root(lid):
            hops = 0
            while lid in canon:
                lid = canon[lid]
                hops += 1
                if hops > len(records) + 1:
                    raise ReplayError("SHARE_WITH cycle at buffer %d" % lid)
            return lid

        def increase(lid, i, init_span):
            nonlocal peak, peak_pos, peak_unp, peak_live, peak_disp
            r = records[lid]
            live.append(lid)
            st["heap"] += r.size
            st["unp"] += r.unpadded
            if st["heap"] > peak:
                peak = st["heap"]
                peak_pos = i
                peak_unp = st["unp"]
                peak_live = list(live)
                peak_disp = dict(disp)
            if init_span:
                span[lid] = [i, n - 1]

        def decrease(lid, i):
            r = records[lid]
            live[:] = [x for x in live if x != lid]
            st["heap"] -= r.size
            if st["heap"] < 0:
                raise ReplayError("heap size negative (%d) at event %d"
                                  % (st["heap"], i))
            st["unp"] -= r.unpadded
            if lid in span:
                span[lid][1] = i

        try:
            for i, ev in enumerate(events):
                timeline.append(st["heap"])
                utimeline.append(st["unp"])
                b = ev.buffer_id
                rb = records.get(b)
                if rb is None:
                    continue
                seen_allocs.add(rb.alloc_pos)
                seen_buffers.add(b)
                if ev.kind == ALLOC:
                    rt = root(b)
                    ref[rt] = ref.get(rt, 0) + 1
                    increase(b, i, True)
                elif ev.kind == FREE:
                    rt = root(b)
                    ref[rt] = ref.get(rt, 0) - 1
                    if ref[rt] < 0:
                        raise ReplayError("buffer %d freed multiple times "
                                          "(event %d)" % (b, i))
                    if ref[rt] == 0:
                        decrease(rt, i)
                    if b in span and b in canon:
                        span[b][1] = i
                elif ev.kind == SHARE_WITH:
                    c = ev.share_with_canonical_id
                    if c not in records:
                        continue
                    canon[b] = c
                    rt = root(c)
                    ref[rt] = ref.get(rt, 0) + 1
                    if ref[rt] == 1:
                        shares["reuse"] += 1
                        disp[rt] = b
                        span[b] = [i, n - 1]
                        increase(rt, i, False)
                    else:
                        shares["live"] += 1
                else:
                    raise ReplayError("unhandled event kind %d (event %d)"
                                      % (ev.kind, i))
            timeline.append(st["heap"])
            utimeline.append(st["unp"])
            if len(seen_allocs) != 1:
                raise ReplayError(
                    "All heap simulation should work out of a single buffer "
                    "allocation, actual seen_buffer_allocations.size():%d"
                    % len(seen_allocs))
        except ReplayError as e:
            error = str(e)
        spans = {str(b): span[b] for b in sorted(seen_buffers) if b in span}

    # Step 4: indefinite buffers.
    indef_bytes = 0
    reps = []
    for p in color_allocs:
        a = allocs[p]
        if not indefinite(a):
            continue
        best = None
        best_size = 0
        for asg in a.assigned:
            r = records.get(asg.logical_buffer_id)
            if r is None:
                continue
            if r.size > best_size:
                best_size = r.size
                best = r
        if best is not None:
            reps.append(best.id)
            indef_bytes += a.size

    # Step 5: max heap (no small-buffer folding).
    max_heap = (list(reps) if color == 0 else []) + \
        [peak_disp.get(x, x) for x in peak_live]
    max_heap_bytes = sum(records[x].size for x in max_heap)

    # Step 6: summary numbers.
    sizes = lambda pred: sum(allocs[p].size for p in color_allocs
                             if pred(allocs[p]))
    out = {
        "name": mod.name,
        "entry_computation_name": mod.entry_computation_name,
        "module_id": mod.id,
        "color": color,
        "heap_simulator_traces": len(traces),
        "heap_trace": chosen,
        "heap_trace_chosen_by": chosen_by,
        "heap_trace_events": len(traces[chosen].events) if chosen is not None
        else 0,
        "heap_points": len(timeline) if error is None else 0,
        "peak_bytes": peak + indef_bytes,
        "peak_position": peak_pos,
        "peak_unpadded_bytes": peak_unp + indef_bytes,
        "peak_heap_bytes_without_indefinite": peak,
        "indefinite_bytes": indef_bytes,
        "indefinite_allocation_bytes": sizes(indefinite),
        "total_allocation_bytes": sizes(lambda a: True),
        "entry_parameter_bytes": sizes(
            lambda a: a.is_entry_computation_parameter),
        "maybe_live_out_bytes": sizes(lambda a: a.maybe_live_out),
        "non_reusable_bytes": sizes(
            lambda a: a.is_thread_local or a.is_tuple),
        "heap_curve": [t + indef_bytes for t in timeline] if error is None
        else [],
        "max_heap_buffer_ids": max_heap,
        "max_heap_bytes": max_heap_bytes,
        "indefinite_representatives": reps,
        "peak_live_canonical_ids": peak_live,
        "share_with_events": shares,
        "logical_buffer_spans": spans if error is None else {},
        "error": error,
        "notes": notes,
    }
    if error is not None:
        # XProf fails the whole tool for this module; keep only static facts.
        for k in ("peak_bytes", "peak_position", "peak_unpadded_bytes",
                  "peak_heap_bytes_without_indefinite"):
            out[k] = None
        out["max_heap_buffer_ids"] = []
        out["max_heap_bytes"] = None
        out["peak_live_canonical_ids"] = []
    return out


# ---------------------------------------------------------------------------
# §3: embedded HLO protos
# ---------------------------------------------------------------------------

def int_stat(stat):
    case = stat.WhichOneof("value")
    if case == "uint64_value":
        return stat.uint64_value
    if case == "int64_value":
        return stat.int64_value
    return None


def embedded_modules(space, hlo_pb2, notes):
    mods = []
    seen = set()
    for p in space.planes:
        if p.name != "/host:metadata":
            continue
        names = {k: v.name for k, v in p.stat_metadata.items()}
        for key in sorted(p.event_metadata.keys()):
            md = p.event_metadata[key]
            hs = None
            pid_stat = None
            for s in md.stats:
                n = names.get(s.metadata_id)
                if (hs is None and n in HLO_STAT_NAMES
                        and s.WhichOneof("value") == "bytes_value"):
                    hs = s
                if n == "program_id" and pid_stat is None:
                    pid_stat = s
            if hs is None:
                continue
            pid = int_stat(pid_stat) if pid_stat is not None else None
            if pid is None:
                m = re.search(r"\((\d+)\)$", md.name)
                pid = int(m.group(1)) if m else key
            pid %= U64
            if pid in seen:
                notes.append("duplicate program id %d dropped" % pid)
                continue
            seen.add(pid)
            proto = hlo_pb2.HloProto()
            proto.ParseFromString(hs.bytes_value)
            mods.append((pid, proto))
    return mods


# ---------------------------------------------------------------------------
# §6: memory profile
# ---------------------------------------------------------------------------

def runtime_memory(space, notes):
    plane = None
    for p in space.planes:
        if p.name == "/host:CPU":
            plane = p
            break
    if plane is None:
        return {}
    names = {k: v.name for k, v in plane.stat_metadata.items()}

    def strval(s):
        case = s.WhichOneof("value")
        if case == "str_value":
            return s.str_value
        if case == "ref_value":
            ref = s.ref_value
            key = ref - U64 if ref > INT64_MAX else ref
            return names.get(key, "")
        return ""

    odd_cases = {}

    def intval(s, name):
        case = s.WhichOneof("value")
        if case != "int64_value":
            odd_cases[(name, case)] = odd_cases.get((name, case), 0) + 1
        if case == "int64_value":
            return s.int64_value
        if case == "uint64_value":
            return s.uint64_value
        if case == "double_value":
            return int(s.double_value)
        return 0

    kinds = {}
    for k, md in plane.event_metadata.items():
        if md.name == "MemoryAllocation":
            kinds[k] = 1
        elif md.name == "MemoryDeallocation":
            kinds[k] = 2
    per = {}
    seq = 0
    for li, line in enumerate(plane.lines):
        for ei, ev in enumerate(line.events):
            kind = kinds.get(ev.metadata_id)
            if kind is None:
                continue
            st = {"stack": 0, "heap": 0, "free": 0, "frag": 0.0, "pbiu": 0}
            meta = {"activity": kind, "requested": 0, "alloc": 0, "addr": 0,
                    "tf_op": "", "step": -1, "region": "", "dtype": "",
                    "shape": ""}
            mid = ""
            for s in ev.stats:
                n = names.get(s.metadata_id)
                if n in ("index_on_host", "device_ordinal"):
                    mid = str(intval(s, n))
                elif n == "allocator_name":
                    mid = strval(s)
                elif n == "bytes_reserved":
                    st["stack"] = intval(s, n)
                elif n == "bytes_allocated":
                    st["heap"] = intval(s, n)
                elif n == "bytes_available":
                    st["free"] = intval(s, n)
                elif n == "fragmentation":
                    st["frag"] = s.double_value
                elif n == "peak_bytes_in_use":
                    st["pbiu"] = intval(s, n)
                elif n == "requested_bytes":
                    meta["requested"] = intval(s, n)
                elif n == "allocation_bytes":
                    meta["alloc"] = intval(s, n)
                elif n == "addr":
                    meta["addr"] = intval(s, n)
                elif n == "tf_op":
                    meta["tf_op"] = strval(s)
                elif n == "group_id":
                    meta["step"] = intval(s, n)
                elif n == "region_type":
                    meta["region"] = strval(s)
                elif n == "data_type":
                    meta["dtype"] = dtype_string(intval(s, n))
                elif n == "shape":
                    meta["shape"] = strval(s)
            t = line.timestamp_ns * 1000 + ev.offset_ps
            a = per.setdefault(mid, {"snaps": [], "peak": None,
                                     "lifetime": 0, "peak_total": 0})
            snap = {"t": t, "seq": seq, "st": st, "meta": meta,
                    "where": [li, ei]}
            seq += 1
            # Running summary (iteration order; ties move to the later event).
            a["lifetime"] = st["pbiu"]
            total = st["stack"] + st["heap"]
            if total >= a["peak_total"]:
                a["peak_total"] = total
                a["peak"] = snap
            a["snaps"].append(snap)
    for (n, case), c in sorted(odd_cases.items(), key=str):
        notes.append("memory stat %s has value case %s in %d events (XProf's "
                     "IntValue would read 0; read as the number here)"
                     % (n, case, c))

    out = {}
    for mid in sorted(per):
        a = per[mid]
        snaps = sorted(a["snaps"], key=lambda s: s["t"])  # stable
        # Step ids.
        last = -1
        for s in snaps:
            if s["meta"]["step"] == -1:
                s["meta"]["step"] = last + 1
            else:
                last = s["meta"]["step"]
        # Deallocation metadata from the matching allocation.
        amap = {}
        for s in snaps:
            m = s["meta"]
            if m["activity"] == 2:
                if m["addr"] in amap:
                    src = amap.pop(m["addr"])
                    for k in ("tf_op", "region", "dtype", "shape"):
                        m[k] = src[k]
            elif m["addr"] not in amap:
                amap[m["addr"]] = m
        pk = a["peak"]
        peak_total = a["peak_total"]
        peak_step = 0
        for s in snaps:
            if s["st"]["heap"] + s["st"]["stack"] == peak_total:
                peak_step = s["meta"]["step"]
        # Active allocations at the peak.
        unmapped = pk["st"]["heap"]
        unmapped_dealloc = 0
        active = {}
        for i, s in enumerate(snaps):
            if s["t"] > pk["t"]:
                break
            m = s["meta"]
            if m["step"] != peak_step:
                continue
            if m["activity"] == 1:
                active[m["addr"]] = i
                unmapped -= m["alloc"]
            else:
                if m["addr"] in active:
                    del active[m["addr"]]
                else:
                    unmapped_dealloc += m["alloc"]
                unmapped += m["alloc"]
        unmapped -= unmapped_dealloc
        rows = []
        for i in sorted(active.values()):
            m = snaps[i]["meta"]
            rows.append({"snapshot_index": i, "special_index": -1,
                         "allocation_bytes": m["alloc"],
                         "requested_bytes": m["requested"],
                         "tf_op_name": m["tf_op"],
                         "region_type": m["region"],
                         "data_type": m["dtype"],
                         "tensor_shape": m["shape"],
                         "time_ps": snaps[i]["t"],
                         "address": m["addr"]})
        specials = []
        if unmapped > 0:
            specials.append((unmapped, "unused preallocated device memory",
                             "persist/dynamic"))
        if pk["st"]["stack"] > 0:
            specials.append((pk["st"]["stack"], "stack", "stack"))
        for k, (b, op, region) in enumerate(specials):
            rows.append({"snapshot_index": -(k + 1), "special_index": k,
                         "allocation_bytes": b, "requested_bytes": b,
                         "tf_op_name": op, "region_type": region,
                         "data_type": "INVALID", "tensor_shape": "unknown",
                         "time_ps": None, "address": 0})

        def rkey(r):
            return (-r["allocation_bytes"], -r["requested_bytes"],
                    r["tf_op_name"], r["region_type"], r["data_type"],
                    r["tensor_shape"])
        rows.sort(key=lambda r: rkey(r) + (r["special_index"] >= 0,
                                           abs(r["snapshot_index"])))
        merged = []
        for r in rows:
            if merged and rkey(merged[-1]) == rkey(r):
                merged[-1]["num_occurrences"] += 1
                merged[-1]["addresses"].append(r["address"])
                continue
            r = dict(r)
            r["num_occurrences"] = 1
            r["addresses"] = [r.pop("address")]
            merged.append(r)
        n_alloc = sum(1 for s in snaps if s["meta"]["activity"] == 1)
        out[mid] = {
            "allocations": n_alloc,
            "deallocations": len(snaps) - n_alloc,
            "peak_bytes": peak_total,
            "peak_heap_bytes": pk["st"]["heap"],
            "peak_stack_bytes": pk["st"]["stack"],
            "peak_free_bytes": pk["st"]["free"],
            "capacity": pk["st"]["heap"] + pk["st"]["stack"]
            + pk["st"]["free"],
            "peak_step": peak_step,
            "peak_time_ps": pk["t"],
            "peak_event": {"line_index": pk["where"][0],
                           "event_index": pk["where"][1]},
            "peak_bytes_usage_lifetime": a["lifetime"],
            "first_time_ps": snaps[0]["t"],
            "last_time_ps": snaps[-1]["t"],
            "unmapped_bytes": unmapped,
            "active_allocations": merged,
            "active_allocation_bytes": sum(r["allocation_bytes"]
                                           * r["num_occurrences"]
                                           for r in merged),
        }
    return out


# ---------------------------------------------------------------------------

def facts(path, color, force_hlo):
    xplane_pb2, hlo_pb2 = load_bindings()
    data = read_bytes(path)
    base = os.path.basename(path)
    notes = []
    is_hlo = force_hlo or base.endswith((".hlo_proto.pb", ".hlo.pb"))
    doc = {"file": base, "color": color, "notes": notes}
    if is_hlo:
        proto = hlo_pb2.HloProto()
        proto.ParseFromString(data)
        mods = [(proto.hlo_module.id % U64, proto)]
        doc["kind"] = "HloProto"
        doc["runtime_memory"] = {}
    else:
        space = xplane_pb2.XSpace()
        space.ParseFromString(data)
        mods = embedded_modules(space, hlo_pb2, notes)
        doc["kind"] = "XSpace"
        doc["runtime_memory"] = runtime_memory(space, notes)
    doc["modules"] = {str(pid): memory_viewer(p, color) for pid, p in mods}
    doc["module_count"] = len(mods)
    return doc


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("capture")
    ap.add_argument("--color", type=int, default=0)
    ap.add_argument("--hlo", action="store_true",
                    help="treat CAPTURE as a bare serialized HloProto")
    args = ap.parse_args()
    try:
        doc = facts(args.capture, args.color, args.hlo)
    except Exception as e:  # noqa: BLE001 - report, exit non-zero
        sys.stderr.write("memory_facts: %s: %s: %s\n"
                         % (args.capture, type(e).__name__, e))
        return 1
    json.dump(doc, sys.stdout, sort_keys=True, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
