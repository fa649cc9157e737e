#!/usr/bin/python3
"""Independent reference facts for an XSpace capture (*.xplane.pb).

Uses Debian's python3-protobuf and bindings generated at run time with protoc
from proto/xplane.proto and proto/hlo.proto.  Shares no code with tpuprof's C
decoder.  Prints one JSON document (sorted keys, indent 1) on stdout.

    /usr/bin/python3 tests/reference/xspace_facts.py CAPTURE.xplane.pb

Rules follow ../shared/docs/format-facts.md §1-§4 and §11; see README.md here.
"""
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "proto"))

U64 = 1 << 64
INT64_MAX = (1 << 63) - 1

COLLECTIVE_OPS = (
    "all-reduce", "all-reduce-start", "all-gather", "all-gather-start",
    "reduce-scatter", "all-to-all", "ragged-all-to-all", "collective-permute",
    "collective-permute-start", "collective-broadcast", "send", "recv",
)
COLLECTIVE_DONE_OPS = (
    "all-reduce-done", "all-gather-done", "collective-permute-done",
    "send-done", "recv-done",
)
OP_LINE_CATEGORIES = (
    "all-reduce", "all-gather", "reduce-scatter", "all-to-all",
    "collective-permute",
)
HLO_STAT_NAMES = ("Hlo Proto", "HLO Proto")


def load_bindings():
    tmp = tempfile.mkdtemp(prefix="xspace_facts_")
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


class Plane:
    """Name resolution helpers for one XPlane."""

    def __init__(self, plane):
        self.p = plane
        # Resolve through the map key (what XProf's visitor does).
        self.stat_names = {k: v.name for k, v in plane.stat_metadata.items()}

    def stat_name(self, stat):
        return self.stat_names.get(stat.metadata_id)

    def stat_value(self, stat):
        case = stat.WhichOneof("value")
        if case is None:
            return None
        if case == "ref_value":
            ref = stat.ref_value
            # ref_value is uint64; stat_metadata keys are int64.
            key = ref - U64 if ref > INT64_MAX else ref
            return self.stat_names.get(key, "<unresolved ref %d>" % ref)
        if case == "bytes_value":
            return "<%d bytes>" % len(stat.bytes_value)
        return getattr(stat, case)

    def find_stat(self, stats, name):
        for s in stats:
            if self.stat_name(s) == name:
                return s
        return None


def int_stat(stat):
    """Integer value of a stat (any integer case; doubles truncated)."""
    if stat is None:
        return None
    case = stat.WhichOneof("value")
    if case == "uint64_value":
        return stat.uint64_value
    if case == "int64_value":
        return stat.int64_value
    if case == "double_value":
        return int(stat.double_value)
    return None


def plane_stats(pl):
    out = {}
    for s in pl.p.stats:
        name = pl.stat_name(s)
        if name is None:
            name = "<unnamed stat %d>" % s.metadata_id
        v = pl.stat_value(s)
        if name in out:  # duplicate name: keep all values in order
            prev = out[name]
            out[name] = (prev if isinstance(prev, list) else [prev]) + [v]
        else:
            out[name] = v
    return out


def line_facts(pl, line, mixed_counter):
    em = pl.p.event_metadata
    first = None
    last = None
    aggregated = 0
    device_span_events = 0
    for ev in line.events:
        if ev.WhichOneof("data") == "num_occurrences":
            aggregated += 1
            continue
        md = em[ev.metadata_id] if ev.metadata_id in em else None
        off_s = pl.find_stat(ev.stats, "device_offset_ps")
        dur_s = pl.find_stat(ev.stats, "device_duration_ps")
        from_md = False
        if md is not None:
            if off_s is None:
                off_s = pl.find_stat(md.stats, "device_offset_ps")
                from_md = from_md or off_s is not None
            if dur_s is None:
                dur_s = pl.find_stat(md.stats, "device_duration_ps")
                from_md = from_md or dur_s is not None
        d_off = int_stat(off_s)
        d_dur = int_stat(dur_s)
        base = line.timestamp_ns * 1000
        if d_off is not None and d_dur is not None:
            device_span_events += 1
            if from_md:
                mixed_counter["device span taken (partly) from metadata"] += 1
            start = base + d_off
            end = start + d_dur
        else:
            start = base + ev.offset_ps
            end = start + ev.duration_ps
        first = start if first is None else min(first, start)
        last = end if last is None else max(last, end)
    return {
        "id": line.id,
        "display_id": line.display_id,
        "name": line.name,
        "display_name": line.display_name,
        "timestamp_ns": line.timestamp_ns,
        "events": len(line.events),
        "aggregated_events": aggregated,
        "device_span_events": device_span_events,
        "first_start_ps": first,
        "last_end_ps": last,
    }


def module_facts(hlo_pb2, pl, key, md, hlo_stat, notes):
    proto = hlo_pb2.HloProto()
    proto.ParseFromString(hlo_stat.bytes_value)
    pid_stat = pl.find_stat(md.stats, "program_id")
    pid = int_stat(pid_stat)
    pid_source = "program_id stat"
    if pid is None:
        m = re.search(r"\((\d+)\)$", md.name)
        if m:
            pid = int(m.group(1))
            pid_source = "name suffix"
        else:
            pid = key
            pid_source = "metadata id"
    pid %= U64
    if key % U64 != md.id % U64:
        notes.append("metadata key %d != XEventMetadata.id %d" % (key, md.id))
    mod = proto.hlo_module
    n_instr = 0
    n_fusion = 0
    n_fusion_comp = 0
    coll = Counter()
    done = Counter()
    for comp in mod.computations:
        if comp.is_fusion_computation:
            n_fusion_comp += 1
        for ins in comp.instructions:
            n_instr += 1
            if ins.opcode == "fusion":
                n_fusion += 1
            if ins.opcode in COLLECTIVE_OPS:
                coll[ins.opcode] += 1
            elif ins.opcode in COLLECTIVE_DONE_OPS:
                done[ins.opcode] += 1
    has_ba = proto.HasField("buffer_assignment")
    ba = proto.buffer_assignment
    return pid, {
        "program_id": str(pid),
        "program_id_source": pid_source,
        "metadata_key": key,
        "metadata_name": md.name,
        "hlo_stat_name": pl.stat_name(hlo_stat),
        "hlo_bytes": len(hlo_stat.bytes_value),
        "name": mod.name,
        "module_id": mod.id,
        "computations": len(mod.computations),
        "instructions": n_instr,
        "fusion_instructions": n_fusion,
        "fusion_computations": n_fusion_comp,
        "collectives": sum(coll.values()),
        "collectives_by_opcode": dict(coll),
        "collective_done": sum(done.values()),
        "collective_done_by_opcode": dict(done),
        "has_buffer_assignment": has_ba,
        "logical_buffers": len(ba.logical_buffers),
        "allocations": len(ba.buffer_allocations),
        "heap_simulator_traces": len(ba.heap_simulator_traces),
        "heap_events": sum(len(t.events) for t in ba.heap_simulator_traces),
    }


def facts(path):
    xplane_pb2, hlo_pb2 = load_bindings()
    with open(path, "rb") as f:
        data = f.read()
    space = xplane_pb2.XSpace()
    space.ParseFromString(data)

    out = {
        "file": os.path.basename(path),
        "file_bytes": len(data),
        "hostnames": list(space.hostnames),
        "errors": len(space.errors),
        "warnings": len(space.warnings),
    }
    notes = []
    mixed = Counter()
    planes = []
    mem = {"MemoryAllocation": 0, "MemoryDeallocation": 0}
    modules = []
    op_cats = {}
    xla_mod = {}
    for p in space.planes:
        pl = Plane(p)
        lines = [line_facts(pl, ln, mixed) for ln in p.lines]
        planes.append({
            "id": p.id,
            "name": p.name,
            "event_metadata": len(p.event_metadata),
            "stat_metadata": len(p.stat_metadata),
            "plane_stats": len(p.stats),
            "plane_stats_by_name": plane_stats(pl),
            "events": sum(len(ln.events) for ln in p.lines),
            "lines": lines,
        })
        em = p.event_metadata

        if p.name == "/host:CPU":
            for ln in p.lines:
                for ev in ln.events:
                    if ev.metadata_id in em:
                        n = em[ev.metadata_id].name
                        if n in mem:
                            mem[n] += 1

        if p.name == "/host:metadata":
            for key in sorted(em.keys()):
                md = em[key]
                hs = None
                for s in md.stats:
                    if (pl.stat_name(s) in HLO_STAT_NAMES
                            and s.WhichOneof("value") == "bytes_value"):
                        hs = s
                        break
                if hs is None:
                    continue
                modules.append(module_facts(hlo_pb2, pl, key, md, hs, notes))

        if p.name.startswith("/device:"):
            cats = Counter()
            op_events = 0
            mod_events = 0
            mod_names = Counter()
            mod_line_present = False
            for ln in p.lines:
                if ln.name == "XLA Ops":
                    for ev in ln.events:
                        op_events += 1
                        if ev.metadata_id not in em:
                            continue
                        s = pl.find_stat(em[ev.metadata_id].stats, "hlo_category")
                        if s is None:
                            continue
                        v = pl.stat_value(s)
                        if isinstance(v, str) and any(c in v for c in OP_LINE_CATEGORIES):
                            cats[v] += 1
                elif ln.name == "XLA Modules":
                    mod_line_present = True
                    for ev in ln.events:
                        mod_events += 1
                        n = em[ev.metadata_id].name if ev.metadata_id in em else "<no metadata %d>" % ev.metadata_id
                        mod_names[n] += 1
            op_cats[p.name] = {"xla_ops_events": op_events,
                               "collective_categories": dict(cats)}
            xla_mod[p.name] = {"line_present": mod_line_present,
                               "events": mod_events,
                               "names": dict(mod_names)}

    modules.sort(key=lambda t: t[0])
    seen = Counter(pid for pid, _ in modules)
    for pid, c in seen.items():
        if c > 1:
            notes.append("duplicate program id %d (%d times)" % (pid, c))
    out["planes"] = planes
    out["memory_events"] = mem
    out["modules"] = [m for _, m in modules]
    out["events_by_metadata_name_on_op_lines"] = op_cats
    out["xla_modules_events"] = xla_mod
    out["notes"] = notes + ["%s: %d" % kv for kv in sorted(mixed.items())]
    return out


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: %s CAPTURE.xplane.pb\n" % sys.argv[0])
        return 2
    try:
        doc = facts(sys.argv[1])
    except Exception as e:  # noqa: BLE001 - report, exit non-zero
        sys.stderr.write("xspace_facts: %s: %s: %s\n"
                         % (sys.argv[1], type(e).__name__, e))
        return 1
    json.dump(doc, sys.stdout, sort_keys=True, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
