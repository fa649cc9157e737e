"""docs/json.md defines every figure: a field whose type is a number or an
integer states its unit in its type column (bytes, ps, percent, fraction,
ppb, FLOPs, bytes/s, a count, an index, an id ...)."""
import re

# The words that say what a number counts or measures.
UNIT_WORDS = re.compile(
    r"\b(bytes|ps|ns|percent|fraction|ppb|FLOPs|FLOP/s|bytes/s|FLOPs/byte|count|index|position|id|"
    r"ordinal|depth|seconds|line|step|indices|elements)\b|the section's `unit`")
NUMERIC = re.compile(r"\b(integer|number|integers|numbers)\b")


def problems(path):
    out = []
    section = None
    for line in open(path, encoding="utf-8"):
        if line.startswith("## ") or line.startswith("### "):
            section = line.strip("# \n")
            continue
        if not line.startswith("| `") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3:
            continue
        field, typ = cells[0], cells[1]
        if NUMERIC.search(typ) and not UNIT_WORDS.search(typ):
            out.append("%s: %s: type %r names no unit" % (section, field, typ))
    return out
