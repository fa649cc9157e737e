#!/usr/bin/env python3
"""What users write today: parse an XSpace with the protobuf library
(Debian's python3-protobuf) and sum the time of every op on the device
op lines. The benchmark times this against tpuprof on the same file.
Usage: bench_python.py PROTO_DIR CAPTURE   (PROTO_DIR holds xplane_pb2.py)"""
import collections
import sys

sys.path.insert(0, sys.argv[1])
import xplane_pb2  # noqa: E402

space = xplane_pb2.XSpace()
with open(sys.argv[2], "rb") as f:
    space.ParseFromString(f.read())
totals = collections.Counter()
for plane in space.planes:
    if not plane.name.startswith("/device:"):
        continue
    for line in plane.lines:
        if line.name != "XLA Ops":
            continue
        for ev in line.events:
            name = plane.event_metadata[ev.metadata_id].display_name
            totals[(plane.name, name)] += ev.duration_ps
print(len(totals), "ops,", sum(totals.values()), "ps")
