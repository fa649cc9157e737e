#!/usr/bin/python3
"""Splits an XSpace (.xplane.pb) into chunk records the way a profiler
writes a chunked capture (docs/riegeli.md): one record per plane, and a
plane with events split in two, its second record holding the second half
of every line's events with the plane's metadata repeated under other ids
(stat and event metadata, plane stats, events' ids and reference values
remapped) and each line's time base moved to its first event there.

    xspace_split.py PROTO_DIR CAPTURE.xplane.pb RECORDS [LAYOUT]

LAYOUT (the chunked layouts of make bench, docs/performance.md):
  renumber  (the default) as above;
  cut       the same, the second record's metadata under the same ids
            (lines cut in time across chunks, no id to remap);
  planes    a record per plane, and the two largest planes (by events)
            each in two records of whole lines (the first half of its
            lines, then the rest), metadata repeated under the same ids.

PROTO_DIR holds xplane_pb2.py (protoc --python_out from proto/). RECORDS
gets [8-byte little-endian length][record] each, for riegeli_pack."""
import struct
import sys

sys.path.insert(0, sys.argv[1])
import xplane_pb2  # noqa: E402

space = xplane_pb2.XSpace()
with open(sys.argv[2], "rb") as f:
    space.ParseFromString(f.read())


def header(plane):
    """A plane with only its id and name, and the XSpace's strings."""
    out = xplane_pb2.XSpace()
    out.hostnames.extend(space.hostnames)
    p = out.planes.add()
    p.id, p.name = plane.id, plane.name
    return out, p


def remap_stat(st, smap):
    st.metadata_id = smap.get(st.metadata_id, st.metadata_id)
    if st.WhichOneof("value") == "ref_value":
        st.ref_value = smap.get(st.ref_value, st.ref_value)


LAYOUT = sys.argv[4] if len(sys.argv) > 4 else "renumber"
if LAYOUT not in ("renumber", "cut", "planes"):
    sys.exit("xspace_split.py: unknown layout " + LAYOUT)
sizes = sorted(((sum(len(l.events) for l in pl.lines), i)
                for i, pl in enumerate(space.planes)), reverse=True)
largest = {i for _, i in sizes[:2]}


def whole_lines(plane):
    """Two records of the plane: its first half of lines, then the rest,
    each with all of its metadata and stats under the same ids."""
    out = []
    half = len(plane.lines) // 2
    for part in (plane.lines[:half], plane.lines[half:]):
        r, p = header(plane)
        p.CopyFrom(plane)
        del p.lines[:]
        p.lines.extend(part)
        out.append(r)
    return out


records = []
for i, plane in enumerate(space.planes):
    if LAYOUT == "planes":
        if i in largest and len(plane.lines) >= 2:
            records.extend(whole_lines(plane))
        else:
            out = xplane_pb2.XSpace()
            out.hostnames.extend(space.hostnames)
            out.planes.add().CopyFrom(plane)
            records.append(out)
        continue
    n_events = sum(len(line.events) for line in plane.lines)
    if n_events < 2:
        out = xplane_pb2.XSpace()
        out.hostnames.extend(space.hostnames)
        out.planes.add().CopyFrom(plane)
        records.append(out)
        continue
    # first record: metadata as is, the first half of each line's events
    first, p1 = header(plane)
    for k in plane.event_metadata:
        p1.event_metadata[k].CopyFrom(plane.event_metadata[k])
    for k in plane.stat_metadata:
        p1.stat_metadata[k].CopyFrom(plane.stat_metadata[k])
    p1.stats.extend(plane.stats)
    second, p2 = header(plane)
    # other ids: reversed order, above every id used
    top_e = max(list(plane.event_metadata) + [0]) + 1000
    top_s = max(list(plane.stat_metadata) + [0]) + 1000
    emap = {k: top_e + i for i, k in enumerate(sorted(plane.event_metadata, reverse=True))}
    smap = {k: top_s + i for i, k in enumerate(sorted(plane.stat_metadata, reverse=True))}
    if LAYOUT == "cut":
        emap = {k: k for k in plane.event_metadata}
        smap = {k: k for k in plane.stat_metadata}
    for k, v in plane.stat_metadata.items():
        m = p2.stat_metadata[smap[k]]
        m.CopyFrom(v)
        m.id = smap[k]
    for k, v in plane.event_metadata.items():
        m = p2.event_metadata[emap[k]]
        m.CopyFrom(v)
        m.id = emap[k]
        for st in m.stats:
            remap_stat(st, smap)
        m.child_id[:] = [emap.get(c, c) for c in m.child_id]
    for st in plane.stats:
        s = p2.stats.add()
        s.CopyFrom(st)
        remap_stat(s, smap)
    for line in plane.lines:
        half = len(line.events) // 2
        a = p1.lines.add()
        a.CopyFrom(line)
        del a.events[half:]
        if half == len(line.events):
            continue
        b = p2.lines.add()
        b.CopyFrom(line)
        del b.events[:half]
        # time base moved to the first event of this half (whole ns)
        offs = [e.offset_ps for e in b.events if e.WhichOneof("data") == "offset_ps"]
        shift = (min(offs) // 1000) if offs else 0
        if shift > 0:
            b.timestamp_ns = line.timestamp_ns + shift
        else:
            shift = 0
        for e in b.events:
            e.metadata_id = emap.get(e.metadata_id, e.metadata_id)
            if e.WhichOneof("data") == "offset_ps":
                e.offset_ps -= shift * 1000
            for st in e.stats:
                remap_stat(st, smap)
    records.append(first)
    records.append(second)
for e in space.errors:
    records[-1].errors.append(e) if records else None
for w in space.warnings:
    records[-1].warnings.append(w) if records else None
if not records:
    records.append(xplane_pb2.XSpace(hostnames=space.hostnames))

with open(sys.argv[3], "wb") as f:
    for r in records:
        data = r.SerializeToString()
        f.write(struct.pack("<Q", len(data)))
        f.write(data)
