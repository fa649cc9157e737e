"""Every why-live chain step is a data-flow edge of the HLO: the
independent walk of tests/reference/memory/why_check.py (its Module.edge),
over the memory document the suite already has."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference", "memory"))

_bindings = None


def _modules(path):
    global _bindings
    import memory_facts
    if _bindings is None:
        _bindings = memory_facts.load_bindings()
    xplane_pb2, hlo_pb2 = _bindings
    data = memory_facts.read_bytes(path)
    if path.endswith(".hlo_proto.pb"):
        p = hlo_pb2.HloProto()
        p.ParseFromString(data)
        return {str(p.hlo_module.id): p}
    space = xplane_pb2.XSpace()
    space.ParseFromString(data)
    return {str(pid): p for pid, p in memory_facts.embedded_modules(space, hlo_pb2, [])}


def check(path, memory_doc):
    """Problems (strings), or None when there is no HLO to walk here."""
    import why_check
    if path is None or os.path.isdir(path):
        return None
    mods = _modules(path)
    problems, steps = [], 0
    for doc in memory_doc["modules"]:
        proto = mods.get(doc["program_id"])
        if doc["error"] is not None or proto is None:
            continue
        m = why_check.Module(proto, doc["heap_trace"])
        for b in doc["live_at_peak"]:
            chain = b["why_live"]["chain"]
            for a, c in zip(chain, chain[1:]):
                steps += 1
                ia, ic = m.by_name.get(a), m.by_name.get(c)
                if ia is None or ic is None or not m.edge(ia, ic):
                    problems.append("%s %s: %s -> %s is not a data-flow edge" % (doc["name"], b["display_name"], a, c))
    return problems if steps else None
