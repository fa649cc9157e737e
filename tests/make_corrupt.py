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

# Damaged parts (issue 13): each is left out with a warning, the rest of
# the capture analysed. Offsets are found by walking small.xplane.pb.


def read_varint(b, i):
    v = s = 0
    while True:
        x = b[i]
        i += 1
        v |= (x & 0x7F) << s
        s += 7
        if not x & 0x80:
            return v, i


def walk(b, start, end):
    """(field, wire type, tag offset, payload offset, payload length)"""
    i = start
    while i < end:
        at = i
        key, i = read_varint(b, i)
        wt = key & 7
        if wt == 0:
            _, j = read_varint(b, i)
            yield key >> 3, wt, at, i, j - i
            i = j
        elif wt == 2:
            n, i = read_varint(b, i)
            yield key >> 3, wt, at, i, n
            i += n
        else:
            n = 8 if wt == 1 else 4
            yield key >> 3, wt, at, i, n
            i += n


def plane(b, name):
    for num, _, at, d, n in walk(b, 0, len(b)):
        for num2, _, _, d2, n2 in walk(b, d, d + n):
            if num == 1 and num2 == 2 and b[d2:d2 + n2] == name:
                return at, d, n
    raise SystemExit("no plane %r" % name)


def child(b, d, n, number, name=None):
    """The first field `number` of the message at d (named `name`)."""
    for num, _, at, d2, n2 in walk(b, d, d + n):
        if num != number:
            continue
        if name is None or any(f == 2 and b[d3:d3 + n3] == name
                               for f, _, _, d3, n3 in walk(b, d2, d2 + n2)):
            return at, d2, n2
    raise SystemExit("no field %d %r" % (number, name))


def hlo_bytes(b, label):
    """The payload of the "Hlo Proto" stat of event metadata `label`."""
    _, d, n = plane(b, b"/host:metadata")
    for num, _, _, d2, n2 in walk(b, d, d + n):
        if num != 4:
            continue
        _, d3, n3 = child(b, d2, n2, 2)
        if not any(f == 2 and b[d4:d4 + n4] == label for f, _, _, d4, n4 in walk(b, d3, d3 + n3)):
            continue
        _, d4, n4 = child(b, d3, n3, 5)
        _, d5, n5 = child(b, d4, n4, 6)
        return d5, n5
    raise SystemExit("no module %r" % label)


def damaged(edits):
    b = bytearray(small)
    for at, data in edits:
        b[at:at + len(data)] = data
    return bytes(b)


tpu0 = plane(small, b"/device:TPU:0")
tpu1 = plane(small, b"/device:TPU:1")
# random bytes inside the embedded module jit_train_step (its HloProto)
hlo_at, _ = hlo_bytes(small, b"jit_train_step(9747602677744151882)")
hlo_edit = (hlo_at + 50, random.Random(13).randbytes(64))
# the first event of line 'XLA Ops' of TPU:0: its first tag is field 0
_, line_d, line_n = child(small, tpu0[1], tpu0[2], 3, b"XLA Ops")
_, event_d, _ = child(small, line_d, line_n, 4)
line_edit = (event_d, b"\x07")
# the first stat of plane TPU:0: its first tag is field 0
_, stat_d, _ = child(small, tpu0[1], tpu0[2], 6)
stat_edit = (stat_d, b"\x07")
put("damaged-hlo-module.xplane.pb", damaged([hlo_edit]))
put("damaged-line.xplane.pb", damaged([line_edit]))
put("damaged-plane-stat.xplane.pb", damaged([stat_edit]))
put("damaged-three-parts.xplane.pb", damaged([hlo_edit, line_edit, stat_edit]))
# plane TPU:1's line 'XLA Modules' claims 0x7f00 bytes: the plane's own
# framing is broken, so the whole plane goes
mod_at, _, _ = child(small, tpu1[1], tpu1[2], 3, b"XLA Modules")
put("damaged-plane-framing.xplane.pb", damaged([(mod_at + 1, b"\x80\xfe")]))

# fuzz_analyses (clang's UBSan): a TPU plane whose two 'XLA Ops' lines
# hold one event each of a metadata without a program (so no core has a
# step): the step windows took `steps + first_step` of a NULL steps
# array (docs/fuzzing.md, finding 12). The second line's timestamp is
# 2^63 ns as a varint (INT64_MIN), the first's 5e15 ns.
event = field(1, 0, varint(1)) + field(2, 0, varint(0)) + field(3, 0, varint(10))
xla_ops = field(2, 2, varint(7) + b"XLA Ops")
line1 = field(1, 0, varint(1)) + xla_ops + field(3, 0, varint(5000000000000000)) + \
    field(4, 2, varint(len(event)) + event)
line2 = field(1, 0, varint(2)) + xla_ops + field(3, 0, varint(1 << 63)) + \
    field(4, 2, varint(len(event)) + event)
meta = field(1, 0, varint(1)) + field(2, 2, varint(6) + field(1, 0, varint(1)) +
                                       field(2, 2, varint(2) + b"op"))
tpu = field(1, 0, varint(1)) + field(2, 2, varint(13) + b"/device:TPU:0") + \
    field(3, 2, varint(len(line1)) + line1) + field(3, 2, varint(len(line2)) + line2) + \
    field(4, 2, varint(len(meta)) + meta)
put("no-steps-two-op-lines.xplane.pb", field(1, 2, varint(len(tpu)) + tpu))

# Chunked captures (docs/riegeli.md, "Damage"), cut from the committed
# testdata/riegeli/small.xplane.riegeli (its first chunk starts at byte 64).
rg_small = os.path.join(sys.argv[1], "riegeli", "small.xplane.riegeli")
if os.path.exists(rg_small):
    rg = open(rg_small, "rb").read()
    # a writer that died in its first chunk: no chunk can be read
    put("riegeli-cut-first-chunk.xplane.riegeli", rg[:200])
    # a writer that just started: 40 of the 64 fixed first bytes
    put("riegeli-signature-cut.xplane.riegeli", rg[:40])
    # byte 0 (the first block header's hash) flipped
    put("riegeli-signature-damaged.xplane.riegeli", bytes([rg[0] ^ 0x01]) + rg[1:])
# named as a chunked capture, holding text
put("riegeli-named-text.xplane.riegeli", b"this is a text file, not a profile capture\n")
# tpuprof's own report, gzipped (a CI artifact): told as one, not as
# XProf's tool outputs
report = open(os.path.join(sys.argv[1], "check-baseline.report.json"), "rb").read()
put("gzipped.report.json.gz", report, gz=True)
