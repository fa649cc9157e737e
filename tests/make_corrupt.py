#!/usr/bin/env python3
"""Writes the bad inputs in testdata/corrupt/ (standard library only).

Deterministic: running it again gives the same bytes. Each file is one
kind of damage the decoder must reject with a clear message, named in
tests/golden/ with its exact exit code and text.
Usage: make_corrupt.py TESTDATA_DIR   (expects TESTDATA_DIR/small.xplane.pb)
"""
import gzip
import os
import random
import sys

out = os.path.join(sys.argv[1], "corrupt")
os.makedirs(out, exist_ok=True)
small = open(os.path.join(sys.argv[1], "small.xplane.pb"), "rb").read()


def varint(v):
    b = bytearray()
    while True:
        x = v & 0x7F
        v >>= 7
        b.append(x | (0x80 if v else 0))
        if not v:
            return bytes(b)


def field(num, wt, payload):
    return varint(num << 3 | wt) + payload


def put(name, data, gz=False):
    if gz:
        # mtime=0 keeps the bytes stable
        data = gzip.compress(data, compresslevel=9, mtime=0)
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


put("empty.xplane.pb", b"")
put("random.xplane.pb", random.Random(7).randbytes(4096))
put("not-a-capture.txt", b"this is a text file, not a profile capture\n")
put("truncated.xplane.pb", small[: len(small) // 2])
put("truncated.xplane.pb.gz", gzip.compress(small, mtime=0)[:200])
# 64 MiB of zeros: not protobuf from its first byte
put("zeros-bomb.xplane.pb.gz", bytes(64 << 20), gz=True)
# an empty plane, then 64 MiB of zeros: plausible until byte 2
put("prefixed-bomb.xplane.pb.gz", field(1, 2, varint(0)) + bytes(64 << 20), gz=True)
# a plane whose length claims 2^62 bytes
put("hostile-length.xplane.pb", field(1, 2, varint(1 << 62)) + b"\x08\x01")
# an event metadata map entry whose event list claims more than its plane
plane = field(2, 2, varint(13) + b"/device:TPU:0") + field(3, 2, varint(100) + b"\x08\x01")
put("line-overruns-plane.xplane.pb", field(1, 2, varint(len(plane)) + plane))
# an HloProto whose instruction shape nests tuples 100000 deep
shape = b""
for _ in range(100000):
    shape = field(4, 2, varint(len(shape)) + shape)
instr = field(1, 2, varint(1) + b"t") + field(2, 2, varint(5) + b"tuple") + \
    field(3, 2, varint(len(shape)) + shape)
comp = field(1, 2, varint(4) + b"main") + field(2, 2, varint(len(instr)) + instr)
module = field(1, 2, varint(4) + b"deep") + field(3, 2, varint(len(comp)) + comp)
put("deep-shape.hlo_proto.pb", field(1, 2, varint(len(module)) + module))
os.makedirs(os.path.join(out, "no-captures"), exist_ok=True)
with open(os.path.join(out, "no-captures", "README"), "w") as f:
    f.write("A directory without captures: tpuprof must say so.\n")
