#!/usr/bin/python3
"""Independent per-core op sums for `tpuprof ops` tests (check_ops.c).

For every device plane: the number of distinct ops, the sum of their
occurrences and the sum of their total times, computed straight from the raw
events with python3-protobuf (no tpuprof code):
  TPU: "XLA Ops" events keyed by (program_id, symbol_id) of the event
       metadata, symbol_id 0 dropped, time = device_duration_ps when present
       (format-facts §7, §11.5);
  GPU: "Stream #" kernel events with an hlo_op stat, keyed by
       (program_id, hlo_module, hlo_op) (§11.9);
  TF:  "TensorFlow Ops"/"Framework Ops" events keyed by metadata name.

    /usr/bin/python3 tests/reference/ops_facts.py [--ops] CAPTURE.xplane.pb[.gz]

With --ops, one line per op instead: plane, key, name, occurrences, total.
"""
import collections
import gzip
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xspace_facts as xf  # noqa: E402


names = {}


def plane_ops(P, p):
    ops = collections.defaultdict(lambda: [0, 0])
    em = p.event_metadata
    tpu = p.name.startswith("/device:TPU")
    gpu_hlo = any(ln.name.startswith("Stream #") and any(
        P.stat_name(s) == "hlo_op" for e in ln.events for s in e.stats)
        for ln in p.lines)
    for ln in p.lines:
        if tpu and ln.name == "XLA Ops":
            for e in ln.events:
                md = em[e.metadata_id]
                pid = xf.int_stat(P.find_stat(md.stats, "program_id"))
                sid = xf.int_stat(P.find_stat(md.stats, "symbol_id"))
                if pid is None or not sid:
                    continue
                d = xf.int_stat(P.find_stat(e.stats, "device_duration_ps"))
                o = xf.int_stat(P.find_stat(e.stats, "device_offset_ps"))
                names[(pid % 2**64, sid)] = md.display_name or md.name
                ops[(pid % 2**64, sid)][0] += 1
                ops[(pid % 2**64, sid)][1] += d if d is not None and o is not None else e.duration_ps
        elif not tpu and gpu_hlo and ln.name.startswith("Stream #"):
            for e in ln.events:
                s = {P.stat_name(x): P.stat_value(x) for x in e.stats}
                if "hlo_op" not in s:
                    continue
                k = (s.get("program_id"), s.get("hlo_module"), s["hlo_op"])
                ops[k][0] += 1
                ops[k][1] += e.duration_ps
        elif not tpu and not gpu_hlo and ln.name in ("TensorFlow Ops", "Framework Ops"):
            for e in ln.events:
                k = em[e.metadata_id].name
                ops[k][0] += 1
                ops[k][1] += e.duration_ps
    return ops


def main():
    per_op = sys.argv[1] == "--ops"
    xp, _ = xf.load_bindings()
    data = open(sys.argv[-1], "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    sp = xp.XSpace()
    sp.ParseFromString(data)
    for p in sp.planes:
        if not p.name.startswith("/device:"):
            continue
        ops = plane_ops(xf.Plane(p), p)
        if per_op:
            for k, v in sorted(ops.items(), key=lambda kv: str(kv[0])):
                print("%s %s %s occurrences=%d total_ps=%d" % (
                    p.name, k, names.get(k, k), v[0], v[1]))
        elif ops:
            print("%s ops=%d occurrences=%d total_ps=%d" % (
                p.name, len(ops), sum(v[0] for v in ops.values()),
                sum(v[1] for v in ops.values())))


if __name__ == "__main__":
    main()
