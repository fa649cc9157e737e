#!/usr/bin/python3
"""Tiny schema-aware protobuf wire walker for XSpace captures.

Walks XSpace -> XPlane -> XLine -> XEvent -> XStat (and the metadata maps)
without any protobuf library and reports the first structural error: a tag or
length that is malformed or runs past the end of its enclosing message, an
invalid wire type, or a known field with the wrong wire type.

    /usr/bin/python3 tests/reference/wire_walk.py CAPTURE.xplane.pb

Prints one JSON object; exit status 0 if the file walks cleanly, 1 if not.
"""
import json
import sys

# message -> {field: submessage-or-None}; None = scalar/string/bytes (not entered)
# Expected wire types per field are listed in WT.
SCHEMA = {
    "XSpace": {1: "XPlane", 2: None, 3: None, 4: None},
    "XPlane": {1: None, 2: None, 3: "XLine", 4: "EventMetadataEntry",
               5: "StatMetadataEntry", 6: "XStat"},
    "XLine": {1: None, 10: None, 2: None, 11: None, 3: None, 9: None, 4: "XEvent"},
    "XEvent": {1: None, 2: None, 5: None, 3: None, 4: "XStat"},
    "XStat": {1: None, 2: None, 3: None, 4: None, 5: None, 6: None, 7: None},
    "EventMetadataEntry": {1: None, 2: "XEventMetadata"},
    "StatMetadataEntry": {1: None, 2: "XStatMetadata"},
    "XEventMetadata": {1: None, 2: None, 4: None, 3: None, 5: "XStat", 6: None},
    "XStatMetadata": {1: None, 2: None, 3: None},
}
WT = {
    "XSpace": {1: 2, 2: 2, 3: 2, 4: 2},
    "XPlane": {1: 0, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2},
    "XLine": {1: 0, 10: 0, 2: 2, 11: 2, 3: 0, 9: 0, 4: 2},
    "XEvent": {1: 0, 2: 0, 5: 0, 3: 0, 4: 2},
    "XStat": {1: 0, 2: 1, 3: 0, 4: 0, 5: 2, 6: 2, 7: 0},
    "EventMetadataEntry": {1: 0, 2: 2},
    "StatMetadataEntry": {1: 0, 2: 2},
    "XEventMetadata": {1: 0, 2: 2, 4: 2, 3: 2, 5: 2, 6: (0, 2)},
    "XStatMetadata": {1: 0, 2: 2, 3: 2},
}


class WireError(Exception):
    def __init__(self, offset, what, path):
        super().__init__(what)
        self.offset = offset
        self.what = what
        self.path = path


def varint(buf, pos, end, path, what):
    start = pos
    val = 0
    shift = 0
    while True:
        if pos >= end:
            raise WireError(start, "%s varint runs past end of enclosing "
                            "message (ends at %d)" % (what, end), path)
        b = buf[pos]
        pos += 1
        val |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            break
        if shift >= 70:
            raise WireError(start, "%s varint longer than 10 bytes" % what, path)
    if val >= 1 << 64:
        raise WireError(start, "%s varint exceeds 64 bits" % what, path)
    return val, pos


def walk(buf, pos, end, msg, path, stats):
    stats[msg] = stats.get(msg, 0) + 1
    while pos < end:
        tag_off = pos
        key, pos = varint(buf, pos, end, path, "tag")
        field, wt = key >> 3, key & 7
        here = path + ["%s.%d@%d" % (msg, field, tag_off)]
        if field == 0:
            raise WireError(tag_off, "tag 0x%x has field number 0" % key, here)
        if wt not in (0, 1, 2, 5):
            raise WireError(tag_off, "tag 0x%x has invalid/unsupported wire type %d"
                            % (key, wt), here)
        want = WT.get(msg, {}).get(field)
        if want is not None and wt not in (want if isinstance(want, tuple) else (want,)):
            raise WireError(tag_off, "field %d of %s has wire type %d, expected %s"
                            % (field, msg, wt, want), here)
        if wt == 0:
            _, pos = varint(buf, pos, end, here, "value")
        elif wt == 1 or wt == 5:
            n = 8 if wt == 1 else 4
            if pos + n > end:
                raise WireError(pos, "fixed%d value runs past end of enclosing "
                                "message (ends at %d)" % (n * 8, end), here)
            pos += n
        else:
            len_off = pos
            n, pos = varint(buf, pos, end, here, "length")
            if pos + n > end:
                raise WireError(len_off, "length %d (payload %d..%d) runs past end "
                                "of enclosing message (ends at %d)"
                                % (n, pos, pos + n, end), here)
            sub = SCHEMA.get(msg, {}).get(field)
            if sub is not None:
                walk(buf, pos, pos + n, sub, here, stats)
            pos += n


def main():
    path = sys.argv[1]
    buf = open(path, "rb").read()
    stats = {}
    out = {"file": path, "bytes": len(buf)}
    try:
        walk(buf, 0, len(buf), "XSpace", [], stats)
        out["ok"] = True
    except WireError as e:
        out["ok"] = False
        out["error_offset"] = e.offset
        out["error"] = e.what
        out["path"] = e.path
        out["bytes_at_error"] = buf[e.offset:e.offset + 16].hex(" ")
    out["messages_walked"] = stats
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0 if out["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
