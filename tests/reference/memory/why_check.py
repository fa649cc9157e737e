#!/usr/bin/python3
"""Checks tpuprof's "why is it live" answers against the HLO itself.

    /usr/bin/python3 tests/reference/memory/why_check.py TPUPROF CAPTURE...

For every module of every CAPTURE and every buffer live at its peak, in
`tpuprof memory --format json`:
- an independent walk over the HloProto (decoded here with python3-protobuf,
  bindings built by protoc at run time, as memory_facts.py does) finds the
  last user and its program position, and they must be tpuprof's;
- the chain must start at the defining instruction, end at the last user,
  and each step must be a data-flow edge of the HLO (an operand, a called
  computation's parameter or ROOT);
- wait_steps must be the last user's schedule step minus the peak's
  (peak_schedule_step), and the old names (last_user_position,
  wait_positions) must hold the same values;
- freed_by must be the last user (null for a whole-program buffer);
- peak_by_last_user must be the temporaries at the peak summed per last user.
Prints every problem; exit status 1 if any.

The walk follows docs/memory.md ("Why is it live"), written anew here: the
value moves through bitcast, get-tuple-element, tuple, copy, the async
start/done pairs and the parameters and ROOTs of called computations; the
program order is the schedule flattened with called computations first,
or the heap trace's first appearances when there is no schedule.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memory_facts  # noqa: E402  (load_bindings, read_bytes, embedded_modules)

SAME = {"bitcast", "domain", "opt-barrier", "all-reduce-done", "async-update"}
CALLS_BEFORE = {"call", "conditional", "async-start"}


class Module:
    def __init__(self, proto, trace_index):
        self.proto = proto
        mod = proto.hlo_module
        self.ins = {}
        self.comp_of = {}
        self.comps = {c.id: c for c in mod.computations}
        self.users = {}
        self.callers = {}
        self.params = {}
        for c in mod.computations:
            for i in c.instructions:
                self.ins.setdefault(i.id, i)
                self.comp_of.setdefault(i.id, c.id)
                if i.opcode == "parameter":
                    self.params.setdefault((c.id, i.parameter_number), i.id)
        for c in mod.computations:
            for i in c.instructions:
                for k, o in enumerate(i.operand_ids):
                    self.users.setdefault(o, []).append((i.id, k))
                for cid in i.called_computation_ids:
                    self.callers.setdefault(cid, []).append(i.id)
        self.by_name = {}
        for i in self.ins.values():
            self.by_name.setdefault(i.name, i.id)
        self.entry = mod.entry_computation_id
        self.trace = (proto.buffer_assignment.heap_simulator_traces[trace_index]
                      if trace_index is not None else None)
        self.time = {}
        self.own = set()
        self.flatten()

    def entry_caller(self, iid):
        """The instruction of the entry computation that runs iid."""
        seen = 0
        while iid is not None and self.comp_of[iid] != self.entry and seen < len(self.ins):
            cs = self.callers.get(self.comp_of[iid])
            iid = cs[0] if cs else None
            seen += 1
        return iid

    def order(self, cid):
        comp = self.comps[cid]
        ids = [i.id for i in comp.instructions]
        rank = {}
        seqs = self.proto.hlo_module.schedule.sequences
        if cid in seqs:
            for r, x in enumerate(seqs[cid].instruction_ids):
                rank.setdefault(x, r)
        elif cid == self.entry and self.trace is not None:
            for ev in self.trace.events:
                x = self.by_name.get(ev.instruction_name)
                x = self.entry_caller(x) if x is not None else None
                if x is not None and x not in rank:
                    rank[x] = len(rank)
        key = {}
        for pos, x in enumerate(ids):
            if x in rank:
                key[x] = (rank[x], 0)
                continue
            ops = [key[o][0] for o in self.ins[x].operand_ids if o in key]
            key[x] = (max(ops) if ops else -1, 1 + pos)
        return sorted(ids, key=lambda x: key[x])

    def flatten(self):
        busy = set()
        counter = [0]

        def visit(cid):
            if cid in busy or cid not in self.comps:
                return
            busy.add(cid)
            for x in self.order(cid):
                i = self.ins[x]
                called = list(i.called_computation_ids)
                if i.opcode == "while":
                    called = called[::-1]
                elif i.opcode not in CALLS_BEFORE:
                    called = []
                for c in called:
                    visit(c)
                self.time[x] = counter[0]
                self.own.add(x)
                counter[0] += 1

        visit(self.entry)
        for x in self.ins:
            if x in self.time:
                continue
            y, hops = x, 0
            while y is not None and y not in self.own and hops <= len(self.ins):
                cs = self.callers.get(self.comp_of[y])
                y = cs[0] if cs else None
                hops += 1
            self.time[x] = self.time[y] if y is not None and y in self.own else -1

    def holders(self, iid, index):
        """Every (instruction, reads) that holds or reads the value
        defined at (iid, index), with their parents."""
        todo = [(iid, tuple(index))]
        seen = {(iid, tuple(index)): None}
        readers = {}
        while todo:
            x, idx = todo.pop()
            for u, k in self.users.get(x, []):
                for y in self.forward(x, idx, u, k):
                    if y not in seen:
                        seen[y] = x
                        todo.append(y)
                if self.reads(u, idx):
                    readers.setdefault(u, x)
            comp = self.comps[self.comp_of[x]]
            if comp.root_id != x or comp.id == self.entry:
                continue
            for u in self.callers.get(comp.id, []):
                ui = self.ins[u]
                outs = []
                if ui.opcode == "while" and ui.called_computation_ids[0] == comp.id:
                    outs = [(u, idx)]
                    p = self.params.get((comp.id, 0))
                    if p is not None:
                        outs.append((p, idx))
                elif ui.opcode in ("call", "conditional", "fusion"):
                    outs = [(u, idx)]
                elif ui.opcode == "async-start":
                    outs = [(u, (1,) + idx)]
                for y in outs:
                    if y not in seen:
                        seen[y] = x
                        todo.append(y)
        return seen, readers

    def param(self, u, j, number):
        ids = self.ins[u].called_computation_ids
        if j >= len(ids):
            return []
        p = self.params.get((ids[j], number))
        return [p] if p is not None else []

    def forward(self, x, idx, u, k):
        i = self.ins[u]
        op = i.opcode
        if op == "get-tuple-element":
            return [(u, idx[1:])] if idx and idx[0] == i.tuple_index else []
        if op == "copy":
            return [(u, idx)] if idx else []
        if op == "tuple":
            return [(u, (k,) + idx)]
        if op in SAME or (op == "add-dependency" and k == 0):
            return [(u, idx)]
        if op == "copy-start":
            return [(u, (1,) + idx)]
        if op in ("all-gather-start", "collective-permute-start"):
            return [(u, ((0, k) if len(i.operand_ids) > 1 else (0,)) + idx)]
        if op == "async-start":
            return [(u, (0, k) + idx)] + [(p, idx) for p in self.param(u, 0, k)]
        if op == "send":
            return [(u, (0,) + idx)] if k == 0 else []
        if op == "copy-done":
            return [(u, idx[1:])] if idx and idx[0] == 0 else []
        if op == "recv-done":
            return [(u, (0,) + idx[1:])] if idx and idx[0] == 0 else []
        if op in ("async-done", "all-gather-done", "collective-permute-done"):
            return [(u, idx[1:])] if idx and idx[0] == 1 else []
        if op == "while":
            return ([(u, idx)] + [(p, idx) for p in self.param(u, 0, 0)]
                    + [(p, idx) for p in self.param(u, 1, 0)])
        if op in ("call", "fusion"):
            return [(p, idx) for p in self.param(u, 0, k)]
        if op == "conditional" and k >= 1:
            return [(p, idx) for p in self.param(u, k - 1, 0)]
        return []

    @staticmethod
    def reads_op(op, idx):
        if op in ("get-tuple-element", "copy"):
            return not idx
        return op not in ("tuple", "domain")

    def reads(self, u, idx):
        return self.reads_op(self.ins[u].opcode, idx)

    def last_user(self, iid, index):
        seen, readers = self.holders(iid, index)
        cands = [x for (x, _) in seen if (x, _) != (iid, tuple(index))] + list(readers)
        cands = [x for x in cands if self.time.get(x, -1) >= 0]
        if not cands:
            return None
        best = max(self.time[x] for x in cands)
        return best

    def edge(self, a, b):
        """b follows a in a data-flow chain."""
        ib = self.ins[b]
        if a in ib.operand_ids:
            return True
        ca = self.comps[self.comp_of[a]]
        if ca.root_id == a and ca.id in ib.called_computation_ids:
            return True  # a called computation's ROOT comes out of b
        if ib.opcode == "parameter":
            cb = self.comp_of[b]
            for u in self.callers.get(cb, []):
                if a in self.ins[u].operand_ids:
                    return True
                cu = self.comps[self.comp_of[a]]
                if cu.root_id == a and cu.id == cb:
                    return True  # a while body's ROOT is the next trip's state
        return False


def check_module(name, proto, doc, problems):
    trace = doc["heap_trace"]
    m = Module(proto, trace)
    peak_pos = None
    if doc["heap_points"]:
        x = m.by_name.get(doc["peak_instruction"])
        peak_pos = m.time.get(x) if x is not None else None
    if doc.get("peak_schedule_step") != peak_pos:
        problems.append("%s: peak_schedule_step %s, the HLO says %s" % (name, doc.get("peak_schedule_step"), peak_pos))
    lbs = {lb.id: lb for lb in proto.buffer_assignment.logical_buffers}
    groups = {}
    for b in doc["live_at_peak"]:
        w = b["why_live"]
        where = "%s %s" % (name, b["display_name"])
        lb = lbs[b["logical_buffer_id"]]
        iid = lb.defined_at.instruction_id
        if w["chain"][0] != m.ins[iid].name:
            problems.append("%s: chain starts at %s" % (where, w["chain"][0]))
        for a, c in zip(w["chain"], w["chain"][1:]):
            if not m.edge(m.by_name[a], m.by_name[c]):
                problems.append("%s: %s -> %s is not a data-flow edge" % (where, a, c))
        if (w["last_user_position"], w["wait_positions"]) != (w["last_user_step"], w["wait_steps"]):
            problems.append("%s: the old and new names of the schedule steps differ" % where)
        if b["freed_by"] != (None if b["indefinite"] else w["last_user"]):
            problems.append("%s: freed_by %s, its last user is %s" % (where, b["freed_by"], w["last_user"]))
        if b["indefinite"]:
            if w["last_user"] is not None or len(w["chain"]) != 1:
                problems.append("%s: held for the whole program, yet a last user" % where)
            continue
        if b["canonical_buffer_id"] != b["logical_buffer_id"] or (
                w["note"] or "").startswith("its bytes pass in place"):
            continue  # shared memory: checked by the unit tests
        t = m.last_user(iid, list(lb.defined_at.shape_index))
        if t != w["last_user_step"]:
            problems.append("%s: last user at step %s, the HLO says %s" % (where, w["last_user_step"], t))
        if w["last_user"] is not None:
            if w["chain"][-1] != w["last_user"]:
                problems.append("%s: chain ends at %s" % (where, w["chain"][-1]))
            if m.time[m.by_name[w["last_user"]]] != t:
                problems.append("%s: %s is not at %s" % (where, w["last_user"], t))
            want = t - peak_pos if peak_pos is not None else None
            if w["wait_steps"] != want:
                problems.append("%s: wait %s, expected %s" % (where, w["wait_steps"], want))
            g = groups.setdefault(w["last_user"], [0, 0])
            g[0] += b["size_bytes"]
            g[1] += 1
    ours = {g["last_user"]: [g["bytes"], g["buffers"]] for g in doc["peak_by_last_user"]}
    shared = any(b["canonical_buffer_id"] != b["logical_buffer_id"] or
                 (b["why_live"]["note"] or "").startswith("its bytes pass in place")
                 for b in doc["live_at_peak"])
    if ours != groups and not shared:
        problems.append("%s: peak_by_last_user %s, expected %s" % (name, ours, groups))
    return sum(1 for b in doc["live_at_peak"] if not b["indefinite"])


def main():
    tpuprof, captures = sys.argv[1], sys.argv[2:]
    xplane_pb2, hlo_pb2 = memory_facts.load_bindings()
    problems = []
    checked = 0
    for path in captures:
        data = memory_facts.read_bytes(path)
        if path.endswith(".hlo_proto.pb"):
            p = hlo_pb2.HloProto()
            p.ParseFromString(data)
            mods = {str(p.hlo_module.id): p}
        else:
            space = xplane_pb2.XSpace()
            space.ParseFromString(data)
            mods = {str(pid): p for pid, p in memory_facts.embedded_modules(space, hlo_pb2, [])}
        out = subprocess.run([tpuprof, "memory", "-q", "--format", "json", path],
                             check=True, capture_output=True).stdout
        for doc in json.loads(out)["modules"]:
            if doc["error"] is None and doc["program_id"] in mods:
                checked += check_module("%s %s" % (os.path.basename(path), doc["name"]),
                                        mods[doc["program_id"]], doc, problems)
    for p in problems:
        print(p)
    print("why_check: %d temporaries at the peak checked, %d problems" % (checked, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
