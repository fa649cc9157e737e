"""The kinds of invariant the table (table.py) is made of, and the readers
they take figures with.

A figure reader takes a Capture and returns {key: value}: the figure per
subject (a core, a module, an op, a collective), keyed so that the same
subject matches across commands and formats:

    J(cmd, "cores[].device_ps")     the command's JSON document
    H(cmd, "ops.cores[].device_ps") the document its HTML page embeds
    T(cmd, REGEX, unit)             its text: one figure per match, keyed by
                                    the regex's named groups other than v

Values read from text carry their printed rounding (Printed), and compare
equal to an exact value within it.
"""
import math
import re


class Skip(Exception):
    """The capture has nothing this invariant is about."""


# ---------------------------------------------------------------- text units

UNITS = {
    "bytes": {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "PiB": 1 << 50},
    "ps": {"ps": 1, "ns": 1e3, "us": 1e6, "ms": 1e9, "s": 1e12},
    "percent": {"%": 0.01},  # read as a fraction
    "GB/s": {"B/s": 1, "KB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9, "TB/s": 1e12},
    "count": {"": 1},
}


class Printed:
    """A figure as text printed it: its value and the half-unit of its
    last printed digit."""

    def __init__(self, number, mult, unit_text=""):
        self.unit_text = unit_text
        self.value = float(number) * mult
        decimals = len(number.split(".")[1]) if "." in number else 0
        self.tol = 0.5 * 10 ** -decimals * mult * 1.0001

    def __repr__(self):
        return "%g(+-%g)" % (self.value, self.tol)


def printed(number, unit_text, unit):
    table = UNITS[unit]
    if unit_text not in table:
        raise ValueError("unit %r is not one of %s" % (unit_text, "/".join(table)))
    return Printed(number, table[unit_text], unit_text)


def equal(a, b, rel=1e-9):
    """a, b: numbers, Printed, None. Exact numbers: equal within rel."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, Printed) and isinstance(b, Printed):
        return abs(a.value - b.value) <= a.tol + b.tol
    if isinstance(a, Printed):
        a, b = b, a
    if isinstance(b, Printed):
        return abs(float(a) - b.value) <= b.tol
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=1e-12)


def same_doc(a, b, where="$", rel=1e-8):
    """The first difference between two documents (reals to 9 digits, as
    the HTML page keeps them; the order of keys counts), or None."""
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
                abs(a - b) <= rel * max(abs(a), abs(b)):
            return None
        return "%s: %r != %r" % (where, a, b)
    if type(a) is not type(b):
        return "%s: %r != %r" % (where, a, b)
    if isinstance(a, dict):
        if list(a) != list(b):
            return "%s: keys %s != %s" % (where, list(a), list(b))
        for k in a:
            d = same_doc(a[k], b[k], where + "." + k, rel)
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: %d != %d items" % (where, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = same_doc(x, y, "%s[%d]" % (where, i), rel)
            if d:
                return d
        return None
    return None if a == b else "%s: %r != %r" % (where, a, b)


# ---------------------------------------------------------------- readers

def ident(el, i):
    """The key of an array element: what names its subject."""
    if isinstance(el, dict):
        if "plane" in el and "host" in el and "name" not in el and "op" not in el:
            return "%s %s" % (el["host"], el["plane"])
        if "name" in el and "program_id" in el:
            return "%s/%s" % (el.get("program_id"), el["name"])
        for k in ("path", "name", "memory_id"):
            if k in el and isinstance(el[k], str):
                return el[k]
    return str(i)


def walk(doc, path):
    """{key: value} for a path such as "cores[].ops[].self_ps"."""
    out = {}

    def go(node, parts, key):
        if not parts:
            out[key] = node
            return
        p = parts[0]
        arr = p.endswith("[]")
        name = p[:-2] if arr else p
        if name:
            if not isinstance(node, dict) or name not in node:
                return
            node = node[name]
        if arr:
            ids = [ident(el, i) for i, el in enumerate(node or [])]
            for i, el in enumerate(node or []):
                # two elements of one name (lines "XLA Ops" of each stream)
                # stay apart
                go(el, parts[1:], key + (ids[i] if ids.count(ids[i]) == 1 else "%s#%d" % (ids[i], i),))
        else:
            go(node, parts[1:], key)

    go(doc, [p for p in path.split(".") if p], ())
    return out


class J:
    def __init__(self, cmd, path, fmt="json", scale=1.0):
        self.cmd, self.path, self.fmt, self.scale = cmd, path, fmt, scale

    def __call__(self, cap):
        doc = cap.html(self.cmd) if self.fmt == "html" else cap.json(self.cmd)
        v = walk(doc, self.path)
        return {k: (x * self.scale if isinstance(x, (int, float)) and not isinstance(x, bool) else x)
                for k, x in v.items()}

    def __repr__(self):
        return "%s %s %s" % (self.cmd, self.fmt, self.path)


def H(cmd, path, scale=1.0):
    return J(cmd, path, "html", scale)


class T:
    """Figures in a command's text: group v (a number) and u (its unit
    text, or a fixed unit text); the other named groups make the key."""

    def __init__(self, cmd, regex, unit=None, flags=re.M, down=False):
        # down: the text cuts the figure down (free memory, an upper
        # bound): the value lies in [printed, printed + one unit)
        self.cmd, self.re, self.unit, self.down = cmd, re.compile(regex, flags), unit, down

    def __call__(self, cap):
        out = {}
        for i, m in enumerate(self.re.finditer(cap.text(self.cmd))):
            g = m.groupdict()
            key = tuple(g[k] for k in sorted(g) if k not in ("v", "u")) or (str(i),)
            if key in out:  # the same name again (another host): apart
                key = key + ("#%d" % i,)
            if self.unit == "percent":
                out[key] = printed(g["v"], "%", "percent")
            elif self.unit:
                out[key] = printed(g["v"], g.get("u") or "", self.unit)
            else:  # bytes or time, by the unit printed
                unit = next(u for u in ("bytes", "ps") if g["u"] in UNITS[u])
                out[key] = printed(g["v"], g["u"], unit)
            if self.down and g.get("u") not in ("B", "ps"):   # bytes, ps: exact
                out[key].value += out[key].tol
        return out

    def __repr__(self):
        return "%s text /%s/" % (self.cmd, self.re.pattern)


class Fn:
    """A figure computed from others: fn(cap) -> {key: value}."""

    def __init__(self, what, fn):
        self.what, self.fn = what, fn

    def __call__(self, cap):
        return self.fn(cap)

    def __repr__(self):
        return self.what


# ---------------------------------------------------------------- invariants

class Row:
    """One line of the table: a name, what it holds, the issue point
    whose fix it waits for (xfail), and where it applies."""

    def __init__(self, name, xfail=None, on="captures"):
        self.name, self.xfail, self.on = name, xfail, on

    def problems(self, cap):
        raise NotImplementedError


def _pairs(a, b):
    """Match two {key: value} maps: by key when the keys agree, else by
    position (text against a document)."""
    if set(a) == set(b):
        return [(k, a[k], b[k]) for k in a]
    if len(a) != len(b):
        return None
    return [(ka, a[ka], b[kb]) for ka, kb in zip(a, b)]


class Same(Row):
    """The same figure, read in two places, is equal (text within its
    printed rounding)."""

    def __init__(self, name, a, b, xfail=None, on="captures", rel=1e-9, need=False):
        super().__init__(name, xfail, on)
        self.a, self.b, self.rel, self.need = a, b, rel, need

    def problems(self, cap):
        va, vb = self.a(cap), self.b(cap)
        if not va and not vb:
            raise Skip()
        pairs = _pairs(va, vb)
        if pairs is None:
            return ["%d figures in %r, %d in %r (%s vs %s)" % (len(va), self.a, len(vb), self.b,
                                                            list(va)[:4], list(vb)[:4])]
        return ["%s: %r != %r" % ("/".join(map(str, k)), x, y) for k, x, y in pairs
                if not equal(x, y, self.rel)]


class Each(Row):
    """A predicate over every value a reader gives: ok(value) is true."""

    def __init__(self, name, reader, ok, xfail=None, on="captures"):
        super().__init__(name, xfail, on)
        self.reader, self.ok = reader, ok

    def problems(self, cap):
        v = self.reader(cap)
        if not v:
            raise Skip()
        return ["%s = %r" % ("/".join(map(str, k)), x) for k, x in v.items() if x is not None and not self.ok(x)]


class Check(Row):
    """Anything else: fn(cap) yields problems (strings)."""

    def __init__(self, name, fn, xfail=None, on="captures"):
        super().__init__(name, xfail, on)
        self.fn = fn

    def problems(self, cap):
        return list(self.fn(cap))
