#!/usr/bin/env python3
"""What users write today: parse an XSpace with the protobuf library
(Debian's python3-protobuf) and sum the time of every op on the device
op lines: XLA Ops (TPU), TensorFlow Ops, GPU kernels by their hlo_op. The benchmark times this against tpuprof on the same file.
Usage: bench_python.py PROTO_DIR CAPTURE   (PROTO_DIR holds xplane_pb2.py)"""
import collections
import sys

sys.path.insert(0, sys.argv[1])
import xplane_pb2  # noqa: E402

space = xplane_pb2.XSpace()
with open(sys.argv[2], "rb") as f:
    space.ParseFromString(f.read())
totals = collections.Counter()


def kernel_op(plane, ev, hlo_op):
    """GPU kernels name their HLO op in a stat, a string or a ref."""
    for st in ev.stats:
        if st.metadata_id == hlo_op:
            if st.WhichOneof("value") == "ref_value":
                return plane.stat_metadata[st.ref_value].name
            return st.str_value
    return None


for plane in space.planes:
    if not plane.name.startswith("/device:"):
        continue
    hlo_op = next((k for k, m in plane.stat_metadata.items()
                   if m.name == "hlo_op"), None)
    for line in plane.lines:
        kernels = line.name.startswith("Stream #") and hlo_op is not None
        if line.name not in ("XLA Ops", "TensorFlow Ops") and not kernels:
            continue
        for ev in line.events:
            if kernels:
                name = kernel_op(plane, ev, hlo_op)
                if name is None:
                    continue
            elif line.name == "TensorFlow Ops":
                name = plane.event_metadata[ev.metadata_id].name
            else:
                name = plane.event_metadata[ev.metadata_id].display_name
            totals[(plane.name, name)] += ev.duration_ps
print(len(totals), "ops,", sum(totals.values()), "ps")
