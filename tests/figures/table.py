"""THE TABLE: every invariant the product's figures are held to
(docs/json.md defines each figure). A new figure joins in one line.

xfail="23.N": a known failure that issue 23's point N fixes. Such a row
must fail on some capture; when it passes everywhere the suite fails and
says to drop the flag (the fix has landed).
on="diffs": the row walks every diff run (each capture against itself,
and the pairs of harness.DIFF_PAIRS) instead of every capture.
"""
import re

from figures_lib import J, H, T, Fn, Same, Each, Check, Skip, equal, walk, printed, same_doc

BYTES = r"(?P<v>-?[\d.]+) (?P<u>B|KiB|MiB|GiB|TiB|PiB)"
TIME = r"(?P<v>[\d.]+) (?P<u>ps|ns|us|ms|s)"
PCT = r"(?P<v>[\d.]+)%"
CORE = r"(?P<core>\S+ /device:\S+)"
FRACTION_KEYS = re.compile(r"(^|_)(share|utilization|duty_cycle|share_of_peak|fraction)$")


def core_key(k):
    """The core of a key, whatever else it names."""
    for part in k:
        if "/device:" in part:
            return part
    return None


# ---------------------------------------------------------------- readers

def by_core(reader, fold=max):
    """Per core: fold over the values under each core."""
    def fn(cap):
        out = {}
        for k, v in reader(cap).items():
            if v is not None:
                out.setdefault(core_key(k), []).append(v)
        return {(c,): fold(v) for c, v in out.items()}
    return Fn("per core of %r" % reader, fn)


def all_cores(cap, key):
    """Σ key over ops.cores[]; no cores (compiled programs only): nothing
    to hold."""
    cores = cap.json("ops")["cores"]
    if not cores:
        raise Skip()
    return sum(c[key] for c in cores)


def mem_cores(key):
    """memory cores[].key of the cores that have a peak (the others print
    "-" or are left out)."""
    def fn(cap):
        return {"%s %s" % (c["host"], c["plane"]): c[key] for c in cap.json("memory")["cores"]
                if c[key] is not None and (c["compiler_peak_bytes"] is not None or c["runtime_peak_bytes"] is not None)}
    return Fn("memory cores[].%s (cores with a peak)" % key, fn)


def weighted(cap, key):
    """A per-core fraction over all cores, weighted by device time."""
    cores = cap.json("ops")["cores"]
    dev = sum(c["device_ps"] for c in cores)
    if not dev or any(c.get(key) is None for c in cores):
        raise Skip()
    return sum(c[key] * c["device_ps"] for c in cores) / dev


def op_device_share(cap):
    """Each op over all cores: Σ self time / Σ device time of the cores,
    keyed as report text names it: with " #program" where programs share
    a module name."""
    cores = cap.json("ops")["cores"]
    dev = sum(c["device_ps"] for c in cores)
    programs = {}
    for c in cores:
        for o in c["ops"]:
            programs.setdefault(o["module"], set()).add(o["program_id"])
    out = {}
    for c in cores:
        for o in c["ops"]:
            mod = o["module"] or ""
            if len(programs.get(o["module"], ())) > 1:
                mod += " #" + o["program_id"]
            k = (o["name"], mod)
            out[k] = out.get(k, 0) + o["self_ps"]
    return {k: v / dev for k, v in out.items()} if dev else {}


def _groups(cap):
    groups = cap.json("ops").get("core_groups")
    if not groups:
        raise Skip()
    return groups


def _whole(cap, g):
    """A group text prints as its core's own table."""
    cores = cap.json("ops")["cores"]
    return len(g["core_indexes"]) == 1 and g["n_ops"] == len(cores[g["core_indexes"][0]]["ops"])


def group_ops(key, shared_only=False):
    """core_groups[].ops[].key in text order; shared_only: the groups
    text prints with cores and spread columns."""
    def fn(cap):
        out = {}
        for gi, g in enumerate(_groups(cap)):
            if shared_only and _whole(cap, g):
                continue
            for o in g["ops"]:
                out[(str(len(out)),)] = o[key]
        return out
    return Fn("core_groups[].ops[].%s" % key, fn)


def group_device_time(cap):
    return {(str(i),): g["device_ps"] for i, g in enumerate(g for g in _groups(cap) if not _whole(cap, g))}


def groups_add_up(cap):
    """Every op of core_groups[] is the sum of the same op (program,
    category, name) on each of its group's cores; n_cores of them ran it;
    its min/max core self time bound each core's and are reached; every
    op of cores[] is in exactly one group; device_ps = Σ cores'."""
    doc = cap.json("ops")
    cores = doc["cores"]
    groups = _groups(cap)
    seen = {}
    for gi, g in enumerate(groups):
        dev = sum(cores[c]["device_ps"] for c in g["core_indexes"])
        if dev != g["device_ps"]:
            yield "group %d: device_ps %d != Σ cores %d" % (gi, g["device_ps"], dev)
        for o in g["ops"]:
            k = (o["program_id"], o["category"], o["name"])
            per = []
            for c in g["core_indexes"]:
                rows = [x for x in cores[c]["ops"] if (x["program_id"], x["category"], x["name"]) == k]
                for x in rows:
                    seen[(c, id(x))] = seen.get((c, id(x)), 0) + 1
                if rows:
                    per.append(rows)
            for f in ("total_ps", "self_ps", "occurrences"):
                want = sum(x[f] for rows in per for x in rows)
                if o[f] != want:
                    yield "group %d %s: %s %d != Σ cores %d" % (gi, o["name"], f, o[f], want)
            selfs = [sum(x["self_ps"] for x in rows) for rows in per]
            if o["n_cores"] != len(per):
                yield "group %d %s: n_cores %d != %d" % (gi, o["name"], o["n_cores"], len(per))
            if selfs and (o["min_core_self_ps"] != min(selfs) or o["max_core_self_ps"] != max(selfs)):
                yield "group %d %s: spread %d..%d, cores %r" % (gi, o["name"], o["min_core_self_ps"], o["max_core_self_ps"], selfs)
            if o["min_ps"] != min((x["min_ps"] for rows in per for x in rows), default=None):
                yield "group %d %s: min_ps %d" % (gi, o["name"], o["min_ps"])
    for c, core in enumerate(cores):
        for x in core["ops"]:
            if seen.get((c, id(x)), 0) != 1:
                yield "%s %s %s: in %d groups" % (core["host"], core["plane"], x["name"], seen.get((c, id(x)), 0))


def top_module_rest(cap):
    """The bytes live at the highest compiler peak beyond the 3 largest
    buffers report lists (its "N more buffers" line), when there are."""
    mods = cap.json("memory")["modules"]
    top = None
    for m in mods:
        if top is None or m["peak_bytes"] > top["peak_bytes"]:
            top = m
    sizes = sorted((b["size_bytes"] for b in (top or {}).get("live_at_peak", [])), reverse=True)
    return {("0",): sum(sizes[3:])} if len(sizes) > 3 else {}


def report_op_shares(cap):
    out = {}
    for m in re.finditer(r"^ +[\d.]+ \S+ +(?P<v>[\d.]+)%  op (?P<op>\S+)(?: \((?P<mod>[^)]*)\))? x\d+$",
                         cap.text("report"), re.M):
        out[(m["op"], m["mod"] or "")] = printed(m["v"], "%", "percent")
    return out


def module_traffic_per_device(cap):
    """Per module: the bytes the busiest device sent (ring bytes × its
    executions there), summed over the module's collectives."""
    per = {}
    for c in cap.json("collectives")["collectives"]:
        for core in c["cores"]:
            k = (c["program_id"], "%s %s" % (core["host"], core["plane"]))
            per[k] = per.get(k, 0) + (c["ring_bytes_per_device"] or 0) * core["occurrences"]
    out = {}
    for (pid, _), v in per.items():
        out[pid] = max(out.get(pid, 0), v)
    return {k: v for k, v in out.items()}


def core_traffic(cap):
    """Per core: Σ over collectives of ring bytes × its executions there."""
    per = {}
    for c in cap.json("collectives")["collectives"]:
        for core in c["cores"]:
            k = ("%s %s" % (core["host"], core["plane"]),)
            per[k] = per.get(k, 0) + (c["ring_bytes_per_device"] or 0) * core["occurrences"]
    return {k: v for k, v in per.items() if v}


def busiest_device_traffic(cap):
    """The bytes the busiest device sent over all collectives."""
    per = {}
    for c in cap.json("collectives")["collectives"]:
        for core in c["cores"]:
            k = (core["host"], core["plane"])
            per[k] = per.get(k, 0) + (c["ring_bytes_per_device"] or 0) * core["occurrences"]
    return max(per.values()) if per else 0


def module_traffic_total(cap):
    out = {}
    for c in cap.json("collectives")["collectives"]:
        out[c["program_id"]] = out.get(c["program_id"], 0) + (c["ring_bytes_per_device"] or 0) * c["occurrences"]
    return out


def keyed_modules(reader):
    def fn(cap):
        return {(m["name"],): v for m in cap.json("collectives")["modules"]
                for pid, v in reader(cap).items() if pid == m["program_id"]}
    return Fn(reader.__name__, fn)


def coll_cores(key):
    """collectives cores[].key; text has the per-core part only where the
    programs hold a collective, or one ran."""
    def fn(cap):
        doc = cap.json("collectives")
        cores = doc["cores"]
        if not doc["collectives"] and not any(c["collective_ps"] for c in cores):
            return {}
        return {("%s %s" % (c["host"], c["plane"]),): c[key] for c in cores}
    return Fn("collectives cores[].%s" % key, fn)


def check_measured(rule, field="measured", key="core"):
    """check --format json: a rule's figure per core (or per module), of
    the checks that failed (text names only those)."""
    def fn(cap):
        return {(("%s %s" % (r["host"], r["plane"])) if key == "core" else r["module"],): r[field]
                for r in cap.json("check")["results"]
                if r["rule"] == rule and not r["pass"] and (r["plane"] if key == "core" else not r["plane"])}
    return Fn("check %s %s" % (rule, field), fn)


# ---------------------------------------------------------------- checks

def html_is_json(cmd, parts):
    """The page embeds the very documents --format json writes."""
    def fn(cap):
        page = cap.html(cmd)
        for part, want in parts(cap).items():
            d = same_doc(page.get(part), want, part)
            if d:
                yield "%s page differs from --format json: %s" % (cmd, d[:200])
    return fn


def _ops_by_name(doc):
    """The ops document with each core's ops[] in name order."""
    doc = dict(doc)
    doc["cores"] = [dict(c, ops=sorted(c["ops"], key=lambda o: (o["name"], o["program_id"] or "")),
                         modules=sorted(c["modules"], key=lambda m: (m["module"] or "", m["program_id"] or "")))
                    for c in doc["cores"]]
    return doc


def report_parts(cap):
    """report --format json holds the other commands' documents (the
    warnings of ops and collectives are in info, as json.md says). The
    order of ops[] (and of modules[], in order of first op) is
    ops_in_sort_order's."""
    rep = cap.json("report")
    for part in ("info", "memory", "ops", "collectives"):
        want = dict(cap.json(part))
        got = dict(rep[part])
        if part in ("ops", "collectives"):
            want.pop("warnings", None)
            got.pop("warnings", None)
        if part == "ops":
            want, got = _ops_by_name(want), _ops_by_name(got)
        d = same_doc(got, want, "report." + part)
        if d:
            yield "differs from %s --format json: %s" % (part, d[:200])


def ops_in_sort_order(cap):
    """ops[] of every ops document is in the order its "sort" says
    (total: largest total_ps first, ties by name, then program id)."""
    for cmd, doc in (("ops", cap.json("ops")), ("report", cap.json("report")["ops"])):
        if doc["sort"] != "total":
            continue
        for c in doc["cores"]:
            keys = [(-o["total_ps"], o["name"], o["program_id"] or "") for o in c["ops"]]
            if keys != sorted(keys):
                i = next(i for i in range(len(keys) - 1) if keys[i] > keys[i + 1])
                yield "%s %s %s: ops[%d] %s (%d ps) before %s (%d ps), sort %r" % (
                    cmd, c["host"], c["plane"], i, c["ops"][i]["name"], c["ops"][i]["total_ps"],
                    c["ops"][i + 1]["name"], c["ops"][i + 1]["total_ps"], doc["sort"])


def every_run_clean(cap):
    """Every command ran in every format it has (exit 0; check 0 or 1),
    and its JSON (and the HTML page's data) parses."""
    import harness
    for cmd, (_, fmts) in harness.COMMANDS.items():
        for fmt in fmts:
            try:
                cap.o.get(cap.name, cmd, fmt)
            except harness.RunError as e:
                yield str(e)
            except ValueError as e:
                yield "%s --format %s: not JSON: %s" % (cmd, fmt, e)


def symmetric_traffic(cap):
    """Where every core ran a module's collectives equally often, the
    total is per device × devices."""
    colls = cap.json("collectives")
    for m in colls["modules"]:
        cs = [c for c in colls["collectives"] if c["program_id"] == m["program_id"] and c["occurrences"]]
        cores = {(x["host"], x["plane"]) for c in cs for x in c["cores"]}
        if not cs or len(cores) < 2 or any(len({x["occurrences"] for x in c["cores"]}) != 1 or
                                           len(c["cores"]) != len(cores) for c in cs):
            continue
        total = sum((c["ring_bytes_per_device"] or 0) * c["occurrences"] for c in cs)
        if total and m["ring_bytes_per_device"] * len(cores) != total:
            yield "%s: %d per device × %d devices != %d in total" % (m["name"], m["ring_bytes_per_device"], len(cores), total)


def shares_at_most_one(cap):
    """No share of a peak (or of a whole) above 100%, in any document."""
    for cmd in ("report", "ops", "memory", "collectives", "check"):
        def go(node, where):
            if isinstance(node, dict):
                for k, v in node.items():
                    if FRACTION_KEYS.search(k) and isinstance(v, (int, float)) and not isinstance(v, bool):
                        # spread_share is a step's spread over its fastest
                        # core: a ratio, not a part of a whole (GPU conv3d:
                        # 138%, the slowest GPU took 2.4x the fastest)
                        if not (-1e-9 <= v <= 1 + 1e-9) and not k.startswith("limit") and k != "spread_share":
                            yield "%s %s.%s = %.6g (%.4g%%)" % (cmd, where, k, v, 100 * v)
                    else:
                        yield from go(v, where + "." + k if k else where)
            elif isinstance(node, list):
                for i, v in enumerate(node):
                    name = node[i].get("name") if isinstance(v, dict) and isinstance(v.get("name"), str) else i
                    yield from go(v, "%s[%s]" % (where, name))
        yield from go(cap.json(cmd), "")


def text_shares_at_most_100(cap):
    """Text: no percentage of a device peak above 100% (growth in diff is
    a change, not a share, and is not looked at)."""
    for cmd in ("report", "ops", "memory", "collectives"):
        for line in cap.text(cmd).splitlines():
            for m in re.finditer(r"(?<![+\-\d.])(\d+(?:\.\d+)?)%", line):
                # a straggling step's spread over its fastest core is a
                # ratio (steps across cores, the straggler advice)
                if line[m.end():].startswith(" slower") or \
                        re.search(r"  (straggler|warm-up|edge)(  warm-up)?(  edge)?$", line):
                    continue
                if float(m.group(1)) > 100.0001:
                    yield "%s: %s" % (cmd, line.strip()[:120])


ASYNC = re.compile(r"^(?P<base>.*?)-(?P<half>start|done)(?P<n>\.\d+)?$")


def async_bytes_once(cap):
    """An async pair (X-start / X-done) carries its bytes once."""
    for core in cap.json("ops")["cores"]:
        ops = {(o["program_id"], o["name"]): o for o in core["ops"]}
        for (pid, name), o in ops.items():
            m = ASYNC.match(name)
            if not m or m["half"] != "start":
                continue
            done = ops.get((pid, "%s-done%s" % (m["base"], m["n"] or "")))
            if done and (o["bytes_accessed"] or 0) > 0 and (done["bytes_accessed"] or 0) > 0:
                yield "%s %s: %s and %s both carry bytes (%d, %d)" % (core["host"], core["plane"], name,
                                                                   done["name"], o["bytes_accessed"],
                                                                   done["bytes_accessed"])


def step_categories_sum(cap):
    """Per step and core, compute by op category adds up to the step's
    compute, and the steady steps' categories to the steady compute."""
    for c in cap.json("ops")["cores"]:
        core = "%s %s" % (c["host"], c["plane"])
        for st in c["steps"] or []:
            s = sum(x["ps"] for x in st["compute_by_category"])
            if s != st["compute_ps"]:
                yield "%s step %s: Σ compute_by_category = %d, compute_ps = %d" % (core, st["name"], s, st["compute_ps"])
        if c["steady"]:
            s = sum(x["ps"] for x in c["steady"]["compute_by_category"])
            if s != c["steady"]["compute_ps"]:
                yield "%s steady: Σ compute_by_category = %d, compute_ps = %d" % (core, s, c["steady"]["compute_ps"])


def edges_as_defined(cap):
    """steps_across[].edge: the position is 0 or the last step of some core
    with 3 or more inferred steps (rows written), and such a row marks no
    straggler (docs/json.md)."""
    doc = cap.json("ops")
    across = doc.get("steps_across") or []
    cores = [c for c in doc["cores"] if c["steps"] and "SparseCore" not in c["plane"]]
    # a core whose rows were left out (over 100 steps) cannot be read here
    rows_all = all(c["steps"] is not None for c in doc["cores"] if c["steps_source"])
    for a in across:
        i = a["index"]
        want = any(c["steps_source"] == "inferred" and len(c["steps"]) >= 3 and
                   (i == 0 or i == len(c["steps"]) - 1) for c in cores)
        if rows_all and a["edge"] != want:
            yield "step %d: edge %s, its cores say %s" % (i, a["edge"], want)
        if a["edge"] and a["straggler"]:
            yield "step %d: an edge marked straggler" % i


PARTS = ("compute", "collective", "copy", "input", "idle")


def spread_parts_as_defined(cap):
    """steps_across[].slowest_parts and fastest_parts: each core's parts
    of the step, adding up to its duration exactly and equal to that
    core's own step row; spread_from: the part whose slowest − fastest is
    the largest positive one (the first in part order on ties), null
    without one (docs/json.md)."""
    doc = cap.json("ops")
    cores = {(c["host"], c["plane"]): c for c in doc["cores"]}
    for a in doc.get("steps_across") or []:
        i = a["index"]
        if a["slowest_parts"] is None or a["fastest_parts"] is None:
            yield "step %d: parts unknown in a document tpuprof wrote" % i
            continue
        for side in ("slowest", "fastest"):
            parts = a[side + "_parts"]
            if sum(parts[k + "_ps"] for k in PARTS) != a[side + "_ps"]:
                yield "step %d: Σ %s_parts = %d, %s_ps = %d" % (
                    i, side, sum(parts[k + "_ps"] for k in PARTS), side, a[side + "_ps"])
            rows = cores[(a[side + "_host"], a[side + "_plane"])]["steps"]
            if rows is not None and any(rows[i][k + "_ps"] != parts[k + "_ps"] for k in PARTS):
                yield "step %d: %s_parts %r, its core's row says otherwise" % (i, side, parts)
        d = [a["slowest_parts"][k + "_ps"] - a["fastest_parts"][k + "_ps"] for k in PARTS]
        best = max(range(len(PARTS)), key=lambda k: (d[k], -k))
        want = PARTS[best] if d[best] > 0 else None
        if a["spread_from"] != want:
            yield "step %d: spread_from %r, the parts say %r" % (i, a["spread_from"], want)


def spread_from_json(cap):
    """{(index, part): slowest − fastest of that part} for the rows with
    a spread_from, as `ops` text's "mostly in" column prints them."""
    out = {}
    for a in cap.json("ops").get("steps_across") or []:
        k = a["spread_from"]
        if k:
            out[(str(a["index"]), k)] = a["slowest_parts"][k + "_ps"] - a["fastest_parts"][k + "_ps"]
    return out


def worst_steady_step(cap):
    """ops steps_across's worst steady step: the largest spread over the
    fastest core, neither warm-up nor an edge, the first on ties (the
    straggler rule's choice, made here independently of it)."""
    worst, most = None, -1.0
    for a in cap.json("ops").get("steps_across") or []:
        if a["warmup"] or a["edge"] or a["fastest_ps"] <= 0:
            continue
        if a["spread_ps"] / a["fastest_ps"] > most:
            worst, most = a, a["spread_ps"] / a["fastest_ps"]
    return worst


def straggler_parts_from_ops(cap):
    """The parts of the worst steady step its slowest core spent longer
    in than the fastest, the three largest (ties in part order): what
    check's step_part contributors say."""
    worst = worst_steady_step(cap)
    if worst is None or worst["slowest_parts"] is None:
        return {}
    d = [(worst["slowest_parts"][k + "_ps"] - worst["fastest_parts"][k + "_ps"], -i, k)
         for i, k in enumerate(PARTS)]
    return {(k,): v for v, _, k in sorted((x for x in d if x[0] > 0), reverse=True)[:3]}


def worst_step_and_start(cap):
    """{"0": (index, start_ps)}: the worst steady step of ops
    steps_across and its start on its slowest core (steps[].start_ps)."""
    w = worst_steady_step(cap)
    if w is None:
        return {}
    core = [c for c in cap.json("ops")["cores"]
            if (c["host"], c["plane"]) == (w["slowest_host"], w["slowest_plane"])][0]
    return {("step",): w["index"], ("time_ps",): core["steps"][w["index"]]["start_ps"]}


def step_time_parts_from_ops(cap):
    """{(host, plane, part): ps}: each core's mean steady step by part as
    docs/json.md apportions it (mean_parts), the three largest above 0
    (ties in part order): what check --max-step-time's step_part
    contributors say."""
    out = {}
    for c in cap.json("ops")["cores"]:
        m = mean_parts(c["steady"])
        if m is None:
            continue
        top = sorted(((v, -i, k) for i, (k, v) in enumerate((k, m[k]) for k in PARTS) if v > 0), reverse=True)[:3]
        for v, _, k in top:
            out[(c["host"], c["plane"], k)] = v
    return out


def straggler_finding(cap):
    """report's straggler advice finding."""
    return [a for a in cap.json("report")["advice"] if a["rule"] == "straggler"][0]


def steady_durations(cap):
    """The steady steps' duration spread (min, max and their steps, the
    median as the warm-up rule takes it, nearest-rank p90 and p99) is
    that of steps[] less the warm-up step; step_rows says steps[] holds
    every step; steps_across_summary counts steps_across's rows."""
    ops = cap.json("ops")
    for c in ops["cores"]:
        core = "%s %s" % (c["host"], c["plane"])
        st = c["steady"]
        if st is None:
            if c["step_rows"] is not None or c["steps"] is not None:
                yield "%s: no steps, step_rows %r" % (core, c["step_rows"])
            continue
        if c["step_rows"] == "left_out":  # past 100 steps a core: the summary only
            if c["steps"] is not None or st["n_steps"] <= 100:
                yield "%s: rows left out with %d steps, steps %r" % (core, st["n_steps"], type(c["steps"]))
            continue
        if c["step_rows"] != "all" or len(c["steps"]) != st["n_steps"]:
            yield "%s: step_rows %r with %d rows of %d steps" % (core, c["step_rows"], len(c["steps"] or []), st["n_steps"])
            continue
        steady = [(x["duration_ps"], i) for i, x in enumerate(c["steps"]) if not x["warmup"]]
        d = sorted(x for x, _ in steady)
        n = len(d)
        rank = lambda p: d[max((n * p + 99) // 100, 1) - 1]
        want = {"min_ps": min(steady)[0], "min_index": min(steady)[1],
                "max_ps": max(x for x, _ in steady), "max_index": next(i for x, i in steady if x == d[-1]),
                "median_ps": d[n // 2], "p90_ps": rank(90), "p99_ps": rank(99)} if n else \
               {"min_ps": 0, "min_index": None, "max_ps": 0, "max_index": None, "median_ps": 0, "p90_ps": 0, "p99_ps": 0}
        for k, v in want.items():
            if st[k] != v:
                yield "%s steady.%s = %r, from steps[]: %r" % (core, k, st[k], v)
    a, summ = ops["steps_across"], ops["steps_across_summary"]
    if summ and summ["rows"] == "left_out":
        if a is not None or summ["n_steps"] <= 100:
            yield "steps_across rows left out with %d positions" % summ["n_steps"]
    elif (a is None) != (summ is None):
        yield "steps_across %s but steps_across_summary %r" % ("null" if a is None else "given", summ)
    elif a is not None:
        want = {"n_steps": len(a), "n_cores": a[0]["n_cores"] if a else 0, "rows": "all",
                "stragglers": sum(1 for x in a if x["straggler"] and not x["warmup"])}
        for k, v in want.items():
            if summ[k] != v:
                yield "steps_across_summary.%s = %r, from steps_across: %r" % (k, summ[k], v)


def collective_parts_sum(cap):
    """Per-core executions and time add up to the collective's."""
    for c in cap.json("collectives")["collectives"]:
        for key in ("occurrences", "time_ps"):
            s = sum(x[key] for x in c["cores"])
            if c["cores"] and s != c[key]:
                yield "%s: Σ cores[].%s = %d, %s = %d" % (c["name"], key, s, key, c[key])


def per_device_traffic(cap):
    """Traffic per device is never above the total, and equals total /
    devices where every device ran the same executions."""
    total, per = module_traffic_total(cap), {m["program_id"]: m["ring_bytes_per_device"]
                                             for m in cap.json("collectives")["modules"]}
    busiest = module_traffic_per_device(cap)
    if not any(total.values()):
        raise Skip()
    for pid, t in total.items():
        if per.get(pid) is None:
            continue
        if per[pid] > t:
            yield "%s: %d per device > %d in total" % (pid, per[pid], t)
        if per[pid] != busiest.get(pid, 0):
            yield "%s: modules[].ring_bytes_per_device %d, the busiest device sent %d" % (
                pid, per[pid], busiest.get(pid, 0))


def scope_tree_adds_up(cap):
    """Each memory scope tree: the root holds the peak; a node holds its
    children and its own bytes; shares are of the peak."""
    for m in cap.json("memory")["modules"]:
        nodes = m.get("scopes") or []
        if not nodes:
            continue
        if nodes[0]["inclusive_bytes"] != m["peak_bytes"]:
            yield "%s: root %d, peak %d" % (m["name"], nodes[0]["inclusive_bytes"], m["peak_bytes"])
        kids = {}
        for n in nodes[1:]:
            parent = n["path"].rsplit("/", 1)[0] if "/" in n["path"] else ""
            kids[parent] = kids.get(parent, 0) + n["inclusive_bytes"]
        for n in nodes:
            if n["exclusive_bytes"] + kids.get(n["path"], 0) != n["inclusive_bytes"]:
                yield "%s scope %r: exclusive %d + children %d != inclusive %d" % (
                    m["name"], n["path"], n["exclusive_bytes"], kids.get(n["path"], 0), n["inclusive_bytes"])
            if m["peak_bytes"] and not equal(n["share_of_peak"], n["inclusive_bytes"] / m["peak_bytes"]):
                yield "%s scope %r: share_of_peak %g" % (m["name"], n["path"], n["share_of_peak"])


def peak_held_by_buffers(cap, cmd="memory"):
    """Every byte of a module's peak is a buffer live at it, in a category
    (outside HBM, XProf's list and the whole-program buffers together)."""
    for m in cap.json(cmd)["modules"]:
        if m["error"] is not None:
            continue
        live = sum(b["size_bytes"] for b in m["live_at_peak"] + m.get("whole_program_buffers", []))
        cats = sum(m["bytes_by_category"].values())
        if live != m["peak_bytes"] or cats != m["peak_bytes"]:
            yield "%s: peak %d, buffers %d, categories %d" % (m["name"], m["peak_bytes"], live, cats)


def host_memory_not_held_to_hbm(cap):
    """Only HBM (memory space 0) is held to HBM capacity: a host-memory
    peak has no headroom to it."""
    for c in cap.json("memory-s5")["cores"]:
        if c["headroom_bytes"] is not None and c["compiler_peak_bytes"]:
            yield "%s %s: memory space 5 peak %d with headroom %d to HBM capacity %d" % (
                c["host"], c["plane"], c["compiler_peak_bytes"], c["headroom_bytes"], c["capacity_bytes"])


def cut_at_least_rounds_up(cap):
    """A program over its capacity (no core: a dump, an HloProto): the
    text's "cut at least C" is a lower bound of the overage, the highest
    peak less the capacity (JSON), raised to its last printed digit: at
    least the overage, less than one digit above it."""
    doc = cap.json("memory-tight")
    if doc["cores"] or doc["program_headroom_bytes"] is None or doc["program_headroom_bytes"] >= 0:
        raise Skip()
    over = -doc["program_headroom_bytes"]
    cuts = re.findall(r"cut at least (-?[\d.]+) (B|KiB|MiB|GiB|TiB|PiB) of what is live",
                      cap.text("memory-tight"))
    if not cuts:
        yield "no 'cut at least' line for an overage of %d bytes" % over
    over_cap = [m for m in doc["modules"] if (m["peak_bytes"] or 0) > doc["program_capacity_bytes"]]
    if len(over_cap) != 1:   # one line a module: which is whose is not read here
        raise Skip()
    for number, unit in cuts:
        mult = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "PiB": 1 << 50}[unit]
        digit = 10 ** -(len(number.split(".")[1]) if "." in number else 0) * mult
        cut = float(number) * mult
        if not over <= cut < over + digit:
            yield "cut at least %s %s for an overage of %d bytes" % (number, unit, over)


def one_position_per_instruction(cap):
    """"position" means one thing: an instruction is at one position in
    every line of memory and report text that places it."""
    pats = [r"at position (?P<n>\d+) \((?P<name>[^)\s]+)\)", r"(?P<name>\S+) at position (?P<n>\d+)",
            r"^ +\S+ \S+ +\d+  (?P<name>\S+) +position (?P<n>\d+)",
            # schedule steps: the peak's instruction, last users, groups
            r"at heap event \d+ \((?P<name>[^)\s]+)\), schedule step (?P<n>\d+)",
            r"(?P<name>\S+) (?:\(\S+\) )?at schedule step (?P<n>\d+)",
            r"^ +\S+ \S+ +\d+  (?P<name>\S+) +schedule step (?P<n>\d+)"]
    for cmd in ("memory", "report"):
        module, seen = None, {}
        for line in cap.text(cmd).splitlines():
            m = re.match(r"^module (\S+)|^  highest compiler peak: ([^,]+),", line)
            if m:
                module, seen = m.group(1) or m.group(2), {}
            for p in pats:
                for m in re.finditer(p, line):
                    seen.setdefault(m["name"], set()).add(int(m["n"]))
                    if len(seen[m["name"]]) > 1:
                        yield "%s %s: %s at positions %s" % (cmd, module, m["name"], sorted(seen[m["name"]]))
                        seen[m["name"]] = {int(m["n"])}


def no_unscoped_root(cap):
    """Nothing unattributed hides in a tree's root: bytes and time with no
    scope get their own "(no scope)" row."""
    for m in cap.json("memory")["modules"]:
        for n in m.get("scopes") or []:
            if n["depth"] == 0 and n["exclusive_bytes"]:
                yield "memory %s: %d bytes only at the root" % (m["name"], n["exclusive_bytes"])
    for n in cap.json("report")["op_scopes"].get("scopes") or []:
        if n["depth"] == 0 and n["exclusive_ps"]:
            yield "op_scopes: %d ps only at the root" % n["exclusive_ps"]


def op_scope_root_is_op_time(cap):
    """The op scope tree's root is all op self time."""
    scopes = cap.json("report")["op_scopes"].get("scopes") or []
    if not scopes:
        raise Skip()
    if scopes[0]["inclusive_ps"] != all_cores(cap, "self_ps"):
        yield "root %d, Σ cores self_ps %d" % (scopes[0]["inclusive_ps"], all_cores(cap, "self_ps"))


def freed_by_last_user(cap):
    """freed_by is the buffer's last user (the why-live walk), not its
    definer again."""
    n = 0
    for m in cap.json("memory")["modules"]:
        for b in m["live_at_peak"]:
            lu = b["why_live"]["last_user"]
            if lu is not None:
                n += 1
                if b["freed_by"] != lu:
                    yield "%s %s: freed_by %s, last user %s" % (m["name"], b["display_name"], b["freed_by"], lu)
    if not n:
        raise Skip()


def ops_names_distinct(cap):
    """Text never prints two different ops under one (cut) name."""
    rows = {}
    for line in cap.text("ops").splitlines():
        m = re.match(r"^(?P<core>\S.*?): \d+ ops", line)
        if m:
            core = m["core"]
            continue
        m = re.match(r"^ +[\d.]+ (?:ps|ns|us|ms|s) +[\d.]+ (?:ps|ns|us|ms|s) +\d+ .*?  (?P<name>\S+)"
                     r"(?:  \((?P<mod>[^)]*)\))?$", line)
        if m:
            k = (core, m["name"], m["mod"])
            rows[k] = rows.get(k, 0) + 1
    for k, n in rows.items():
        if n > 1:
            yield "%s: %s (%s) printed for %d different ops" % (k + (n,))


def why_live_edges(cap):
    """Every why-live step is a data-flow edge of the HLO (an operand, a
    tuple slot, get-tuple-element, a called computation's boundary);
    checked by the independent walk of tests/reference/memory."""
    import why_edges
    problems = why_edges.check(cap.path, cap.json("memory"))
    if problems is None:
        raise Skip()
    yield from problems


# memory figures (issue 23 points 5, 8, 10, 11) ------------------------------

def positions_named_apart(cap):
    """A heap event is no schedule step: the peak gives both, a last
    user's wait is its schedule step less the peak's, and the old names
    (peak_position, live_start/live_end, last_user_position,
    wait_positions) repeat the new ones."""
    for m in cap.json("memory")["modules"]:
        if m["peak_position"] != m["peak_heap_event"]:
            yield "%s: peak_position %s, peak_heap_event %s" % (m["name"], m["peak_position"], m["peak_heap_event"])
        if m["heap_points"] and m["peak_schedule_step"] is None:
            yield "%s: a heap trace, yet no peak_schedule_step" % m["name"]
        for b in m["live_at_peak"]:
            w = b["why_live"]
            if (b["live_start"], b["live_end"]) != (b["live_start_heap_event"], b["live_end_heap_event"]):
                yield "%s %s: live range names differ" % (m["name"], b["display_name"])
            if (w["last_user_position"], w["wait_positions"]) != (w["last_user_step"], w["wait_steps"]):
                yield "%s %s: schedule step names differ" % (m["name"], b["display_name"])
            if w["wait_steps"] is not None and w["wait_steps"] != w["last_user_step"] - m["peak_schedule_step"]:
                yield "%s %s: wait %s != step %s - peak step %s" % (
                    m["name"], b["display_name"], w["wait_steps"], w["last_user_step"], m["peak_schedule_step"])


def scoped_out_of_peak(cap):
    """The largest scoped allocation is a figure of its own, never a
    buffer at the peak; it names its instruction."""
    for m in cap.json("memory")["modules"]:
        if (m["max_scoped_bytes"] > 0) != (m["max_scoped_instruction"] is not None):
            yield "%s: max_scoped_bytes %d, instruction %s" % (m["name"], m["max_scoped_bytes"], m["max_scoped_instruction"])


def runtime_peak_names_program(cap):
    """A failing runtime peak held by the allocator's stack names the
    program behind it, and its buffer contributors carry their scope."""
    doc = cap.json("check")
    for r in doc["results"]:
        for c in r["contributors"]:
            if c["kind"] == "buffer" and c["scope"] is None:
                yield "%s: buffer %s without its scope" % (r["rule"], c["name"])
            if c["kind"] != "buffer" and c.get("scope") is not None:
                yield "%s: %s %s with a scope" % (r["rule"], c["kind"], c["name"])
        ran = {(x["host"], x["plane"]): x["programs"] for x in cap.json("memory")["cores"]}
        if r["source"] == "runtime" and ran.get((r["host"], r["plane"])) and any(
                c["kind"] == "allocation" and c["name"] == "stack" for c in r["contributors"]):
            yield "%s %s: the stack holds the peak, yet no program named" % (r["host"], r["plane"])


DAMAGED_WARNING = re.compile(r"^  (\S+) memory (\S+): (\d+) of (\d+) allocator events have negative "
                             r"byte counts \(a damaged capture\): left out of the runtime peak$", re.M)


def damaged_allocator_events(cap):
    """runtime[].damaged_events (json.md): the memory's events whose heap,
    stack or free bytes are negative. Each has those bytes null in the
    timeline and is never the peak; memory and report warn of the same
    count in text and report JSON carries it; check counts each such
    memory as a damaged part, beside info.damage[]."""
    runtime = cap.json("memory")["runtime"]
    damaged = [r for r in runtime if r["damaged_events"]]
    if not damaged:
        raise Skip()
    for r in runtime:
        where = "%s memory %s" % (r["host"], r["memory_id"])
        if len(r["timeline"]) == r["allocations"] + r["deallocations"]:
            nulls = sum(1 for e in r["timeline"] if None in (e["heap_bytes"], e["stack_bytes"], e["free_bytes"]))
            if nulls != r["damaged_events"]:
                yield "%s: %d timeline entries without bytes, damaged_events %d" % (where, nulls, r["damaged_events"])
        if r["peak_bytes"] is not None and r["peak_bytes"] < 0:
            yield "%s: a negative peak %d" % (where, r["peak_bytes"])
    want = {(r["host"], r["memory_id"]): (r["damaged_events"], r["allocations"] + r["deallocations"])
            for r in damaged}
    for cmd in ("memory", "report"):
        warned = {(h, m): (int(n), int(t)) for h, m, n, t in DAMAGED_WARNING.findall(cap.text(cmd))}
        if warned != want:
            yield "%s text warns of %s, the JSON has %s" % (cmd, warned, want)
    in_report = {(r["host"], r["memory_id"]): r["damaged_events"] for r in cap.json("report")["memory"]["runtime"]}
    if in_report != {(r["host"], r["memory_id"]): r["damaged_events"] for r in runtime}:
        yield "report JSON's damaged_events %s differ from memory's" % in_report
    parts = len(cap.json("info").get("damage") or []) + len(damaged)
    if cap.json("check")["damaged_parts"] != parts:
        yield "check: damaged_parts %d, %d expected" % (cap.json("check")["damaged_parts"], parts)


# diff (issue 23 point 9) ----------------------------------------------------

UNITS = {"bytes": "bytes", "ps": "ps", "ppb": None}


def diff_sections_defined(cap):
    """Every section has a human title, a known unit and says what its
    total is; a peak or headroom total is the worst row, never a sum."""
    for k, s in cap.json("diff")["sections"].items():
        if not s.get("title") or "_" in s.get("title", "_"):
            yield "%s: no human title (%r)" % (k, s.get("title"))
        if s.get("unit") not in UNITS:
            yield "%s: unit %r" % (k, s.get("unit"))
        rule = s.get("total_is")
        for side in ("a", "b"):
            vals = [r[side] for r in s["rows"] if r[side] is not None]
            t = s["totals"][side]
            if rule == "sum" and t != sum(vals):
                yield "%s: total %s %d is not the sum %d" % (k, side, t, sum(vals))
            if rule == "largest" and vals and t != max(vals):
                yield "%s: total %s %d is not the largest row %d" % (k, side, t, max(vals))
            if rule == "smallest" and vals and t != min(vals):
                yield "%s: total %s %d is not the smallest row %d" % (k, side, t, min(vals))
            if rule is None:
                yield "%s: no total_is" % k
        if k.startswith("memory_cores") or k.startswith("memory_modules"):
            if rule not in ("largest", "smallest"):
                yield "%s: a peak or headroom total is %r, not the worst row" % (k, rule)
        if s.get("unit") == "ppb":
            for r in s["rows"]:
                for side in ("a", "b"):
                    if r[side] is not None and not 0 <= r[side] <= 10 ** 9:
                        yield "%s: %s %s ppb is not a share of the peak" % (k, side, r[side])


def diff_text_units(cap):
    """Text: each section's rows in its unit (ppb as %, bytes in B..PiB,
    times in s..ps), and the title the document gives."""
    doc, text = cap.json("diff"), cap.text("diff")
    blocks = re.split(r"\n\n", text)
    unit_re = {"ppb": r"^[+-]?[\d.]+(e[+-]\d+)?%$", "bytes": r"^[+-]?[\d.]+ (B|KiB|MiB|GiB|TiB|PiB)$",
               "ps": r"^[+-]?[\d.]+ (ps|ns|us|ms|s)$"}
    for k, s in doc["sections"].items():
        block = next((b for b in blocks if b.split("\n", 1)[0].endswith(": " + s["title"])), None)
        if block is None:
            yield "%s: no text section titled %r" % (k, s["title"])
            continue
        for line in block.splitlines()[1:]:
            # "  %-11s %10s %10s %11s %8s": what, A, B, B - A, %
            if not re.match(r"^  (grew|shrank|appeared|disappeared|total|largest|smallest|all cores) ", line):
                continue
            for c in (line[14:24], line[25:35], line[36:47]):
                c = c.strip()
                if c != "-" and not re.match(unit_re.get(s["unit"], "^$"), c):
                    yield "%s: %r is not in %s: %s" % (k, c, s["unit"], line.strip())


def diff_html_is_json(cap):
    d = same_doc(cap.html("diff")["diff"], cap.json("diff"), "diff")
    if d:
        yield "diff page differs from --format json: %s" % d[:200]


def diff_steady_steps(cap):
    """cores_steady_step: each side's row of a core is that run's ops
    cores[].steady.step_ps (cores with a steady step); the total is the
    slowest core's."""
    from harness import Capture
    names = cap.name.split("..") if cap.is_pair else [cap.name, cap.name]
    sec = cap.json("diff")["sections"]["cores_steady_step"]
    for side, name in zip(("a", "b"), names):
        ops = Capture(cap.o, name).json("ops")
        want = {(c["host"], c["plane"]): c["steady"]["step_ps"] for c in ops["cores"]
                if c["steady"] and c["steady"]["n_steady"] > 0}
        got = {(r["host"], r["plane"]): r[side] for r in sec["rows"] if r[side] is not None}
        if got != want:
            yield "%s: %s rows %r, ops says %r" % (name, side, sorted(got.items())[:3], sorted(want.items())[:3])
        if sec["totals"][side] != max(want.values(), default=0):
            yield "%s: total %s %r, the slowest core %r" % (name, side, sec["totals"][side], max(want.values(), default=0))


def mean_parts(steady):
    """docs/json.md's cores_steady_step_parts of one core: each part's
    sum / n_steady rounded down, 1 ps more to the largest remainders
    (ties in part order) until they add up to step_ps; None without."""
    if not steady or steady["n_steady"] <= 0 or any(steady.get(k + "_ps") is None for k in PARTS):
        return None
    n = steady["n_steady"]
    mean = {k: steady[k + "_ps"] // n for k in PARTS}
    order = sorted(range(len(PARTS)), key=lambda i: (-(steady[PARTS[i] + "_ps"] % n), i))
    for i in order[:steady["sum_ps"] // n - sum(mean.values())]:
        mean[PARTS[i]] += 1
    return mean


def diff_step_parts(cap):
    """cores_steady_step_parts: each side's rows of a core are that run's
    ops steady parts as docs/json.md apportions them, and add up to the
    core's cores_steady_step row exactly."""
    from harness import Capture
    names = cap.name.split("..") if cap.is_pair else [cap.name, cap.name]
    sec = cap.json("diff")["sections"]["cores_steady_step_parts"]
    steps = cap.json("diff")["sections"]["cores_steady_step"]
    for side, name in zip(("a", "b"), names):
        ops = Capture(cap.o, name).json("ops")
        want = {}
        for c in ops["cores"]:
            for k, v in (mean_parts(c["steady"]) or {}).items():
                want[(c["host"], c["plane"], k)] = v
        got = {(r["host"], r["plane"], r["part"]): r[side] for r in sec["rows"] if r[side] is not None}
        if got != want:
            yield "%s: %s rows %r, ops says %r" % (name, side, sorted(got.items())[:5], sorted(want.items())[:5])
        for r in steps["rows"]:
            if r[side] is None:
                continue
            total = sum(v for (h, p, _), v in got.items() if (h, p) == (r["host"], r["plane"]))
            if total != r[side]:
                yield "%s: %s %s %s: parts add up to %d, its mean steady step %d" % (
                    name, side, r["host"], r["plane"], total, r[side])


def diff_self_zero(cap):
    """A capture against itself: nothing changed."""
    if cap.is_pair:
        raise Skip()
    for k, s in cap.json("diff")["sections"].items():
        if s["totals"]["delta"] or any(r["delta"] for r in s["rows"]):
            yield "%s: a change against itself" % k


def debug_print_finding(cap):
    """report's debug-print advice finding; Skip when not judged."""
    f = [a for a in cap.json("report")["advice"] if a["rule"] == "debug-print"][0]
    if f["verdict"] == "not_judged":
        raise Skip()
    return f


def debug_print_hosts(cap):
    return {(h["host"],): h["share"] for h in debug_print_finding(cap)["hosts"]}


def debug_print_from_steps(cap):
    """docs/ops.md "debug-print, per host", from the report document's
    steps: per host and step name, the mean over cores of debug_print_ps /
    duration_ps (steps with some); per host the mean over those steps."""
    debug_print_finding(cap)
    steps, hosts = {}, {}
    for c in cap.json("report")["ops"]["cores"]:
        if not c["steps"]:
            continue
        hosts.setdefault(c["host"], None)
        for s in c["steps"]:
            if s["duration_ps"] > 0 and s["debug_print_ps"] > 0:
                steps.setdefault(c["host"], {}).setdefault(s["name"], []).append(s["debug_print_ps"] / s["duration_ps"])
    out = {}
    for h in hosts:
        means = [sum(v) / len(v) for v in steps.get(h, {}).values()]
        out[(h,)] = sum(means) / len(means) if means else 0.0
    return out


# ---------------------------------------------------------------- THE TABLE

def step_parts_sum(cap):
    """Each step's parts add up to its duration exactly (issue 36), its
    categories to its compute; no part negative."""
    for c in cap.json("ops")["cores"]:
        for i, st in enumerate(c.get("steps") or []):
            parts = st["compute_ps"] + st["collective_ps"] + st["copy_ps"] + st["input_ps"] + st["idle_ps"]
            if parts != st["duration_ps"] or min(st["compute_ps"], st["idle_ps"]) < 0:
                yield "%s step %d: parts %d, duration %d" % (c["plane"], i, parts, st["duration_ps"])
            if sum(x["ps"] for x in st["compute_by_category"]) != st["compute_ps"]:
                yield "%s step %d: categories do not add up to compute" % (c["plane"], i)


def outside_steps_sum(cap):
    """outside_steps.op_ps = its three kinds; a core without steps has none."""
    for c in cap.json("ops")["cores"]:
        o = c.get("outside_steps")
        if o is None:
            if c.get("steps"):
                yield "%s: steps but no outside_steps" % c["plane"]
            continue
        if o["op_ps"] != o["compute_ps"] + o["collective_ps"] + o["copy_ps"]:
            yield "%s: outside_steps does not add up" % c["plane"]
        if c["clock"] not in ("device", "timeline"):
            yield "%s: clock %r" % (c["plane"], c["clock"])


ROWS = [
    Check("every command runs in every format it has", every_run_clean),
    # one figure, one value: the HTML page and report hold the JSON documents
    Check("html report page = report --format json", html_is_json("report", lambda c: {"report": c.json("report")})),
    Check("html memory page = memory --format json", html_is_json("memory", lambda c: {"memory": c.json("memory")})),
    # the page sums over cores itself: its data leaves core_groups out
    Check("html ops page = ops and collectives --format json",
          html_is_json("ops", lambda c: {"ops": {k: v for k, v in c.json("ops").items() if k != "core_groups"},
                                         "collectives": c.json("collectives")})),
    Check("report --format json = each command's document", report_parts),
    # found by this suite: report's ops[] keeps capture order under "sort": "total"
    Check("ops[] in the order its sort says", ops_in_sort_order),

    # the same figure, text and JSON (text within its printed rounding)
    Same("ops: core device time", T("ops-per-core", r"^" + CORE + r": \d+ ops.*\n  device time " + TIME), J("ops", "cores[].device_ps")),
    Same("ops: core op time", T("ops-per-core", r"^" + CORE + r": \d+ ops.*\n  device time \S+ \S+, op time " + TIME), J("ops", "cores[].op_ps")),
    Same("ops: core busy share", T("ops-per-core", r"^" + CORE + r": \d+ ops.*\n.*\n.*: busy " + PCT, "percent"), J("ops", "cores[].duty_cycle")),
    Same("ops: core FLOP utilization", T("ops-per-core", r"^" + CORE + r": \d+ ops.*\n.*\n.*FLOP utilization " + PCT, "percent"),
         Fn("ops cores[].flop_utilization", lambda c: {k: v for k, v in walk(c.json("ops"), "cores[].flop_utilization").items() if v is not None})),
    Same("ops: op total time", T("ops-per-core", r"^ +" + TIME + r" +[\d.]+ (?:ps|ns|us|ms|s) +\d+ "), J("ops", "cores[].ops[].total_ps")),
    Same("ops: op self time", T("ops-per-core", r"^ +[\d.]+ (?:ps|ns|us|ms|s) +" + TIME + r" +\d+ "), J("ops", "cores[].ops[].self_ps")),
    Same("ops: op count", T("ops-per-core", r"^ +[\d.]+ (?:ps|ns|us|ms|s) +[\d.]+ (?:ps|ns|us|ms|s) +(?P<v>\d+) ", "count"), J("ops", "cores[].ops[].occurrences")),
    Same("ops: op share of device time", T("ops-per-core", r"^ +[\d.]+ (?:ps|ns|us|ms|s) +[\d.]+ (?:ps|ns|us|ms|s) +\d+ +" + PCT, "percent"), J("ops", "cores[].ops[].device_share")),
    # the all-cores view: its rows are core_groups[].ops[] in order (a
    # core in a group of its own prints its per-core table: the same rows)
    Same("ops all-cores: op total time", T("ops", r"^ +" + TIME + r" +[\d.]+ (?:ps|ns|us|ms|s) +\d+ "), group_ops("total_ps")),
    Same("ops all-cores: op self time", T("ops", r"^ +[\d.]+ (?:ps|ns|us|ms|s) +" + TIME + r" +\d+ "), group_ops("self_ps")),
    Same("ops all-cores: op count", T("ops", r"^ +[\d.]+ (?:ps|ns|us|ms|s) +[\d.]+ (?:ps|ns|us|ms|s) +(?P<v>\d+) ", "count"), group_ops("occurrences")),
    Same("ops all-cores: op share of the cores' summed device time", T("ops", r"^ +[\d.]+ (?:ps|ns|us|ms|s) +[\d.]+ (?:ps|ns|us|ms|s) +\d+ +" + PCT, "percent"),
         group_ops("device_share")),
    Same("ops all-cores: cores an op ran on", T("ops", r"^ +[\d.]+ (?:ps|ns|us|ms|s) +[\d.]+ (?:ps|ns|us|ms|s) +\d+ +[\d.]+%  +(?P<v>\d+) ", "count"),
         group_ops("n_cores", shared_only=True)),
    Same("ops all-cores: group device time = Σ its cores'", T("ops", r"^(?:all cores|core): .*\n  device time " + TIME), group_device_time),
    Check("ops all-cores: each op = Σ over its group's cores' rows, spread within [min, max]", groups_add_up),
    Same("memory: module peak", T("memory", r"^    peak " + BYTES + r" (?:at |\()"),
         Fn("memory modules[].peak_bytes (with a timeline)", lambda c: {k: v for k, v in walk(c.json("memory"), "modules[].peak_bytes").items()})),
    Same("report: op time over cores", T("report", r"^time .*: op time " + TIME), Fn("Σ cores self_ps", lambda c: {("0",): all_cores(c, "self_ps")})),
    Same("report: device time over cores", T("report", r"^time .* of " + TIME + " device time"), Fn("Σ cores device_ps", lambda c: {("0",): all_cores(c, "device_ps")})),
    Same("report: busy over cores", T("report", r"^  busy " + PCT, "percent"), Fn("Σ self / Σ device", lambda c: {("0",): all_cores(c, "self_ps") / all_cores(c, "device_ps")})),
    Same("report: FLOP utilization over cores = ops cores weighted", T("report", r"^  busy .*FLOP utilization " + PCT, "percent"),
         Fn("ops flop_utilization by device time", lambda c: {("0",): weighted(c, "flop_utilization")})),
    Same("report: an op's share = its share of device time in ops", Fn("report text op %", report_op_shares),
         Fn("ops Σ self / Σ device", lambda c: {k: v for k, v in op_device_share(c).items() if k in report_op_shares(c)})),
    Same("report: compiler peak per core", T("report", r"^  " + CORE + r" +" + BYTES + " \|"), mem_cores("compiler_peak_bytes")),
    Same("report: runtime peak per core", T("report", r"^  " + CORE + r" +\S+(?: \S+)? \| " + BYTES + " of"), mem_cores("runtime_peak_bytes")),
    Same("report: headroom per core", T("report", r"^  " + CORE + r" .* of \S+ \S+, " + BYTES + r" \(", down=True),
         Fn("memory cores[].headroom_bytes", lambda c: {"%s %s" % (x["host"], x["plane"]): x["headroom_bytes"] for x in c.json("memory")["cores"] if x["headroom_bytes"] is not None})),
    Same("memory: capacity per core", T("memory", r"^(?P<core>\S+ +/device:\S+) .* " + BYTES + r" +-?[\d.]+ \S+ [\d.-]+%$"),
         Fn("memory cores[].capacity_bytes", lambda c: {"%s %s" % (x["host"], x["plane"]): x["capacity_bytes"] for x in c.json("memory")["cores"] if x["capacity_bytes"] is not None})),
    Same("capacity: ops = memory", Fn("ops cores[].device.capacity_bytes", lambda c: walk(c.json("ops"), "cores[].device.capacity_bytes.value")),
         Fn("memory cores[].capacity_bytes", lambda c: {k: v for k, v in walk(c.json("memory"), "cores[].capacity_bytes").items()
                                                          if k in walk(c.json("ops"), "cores[].device.capacity_bytes.value")})),
    Same("collectives: payload", T("collectives", r"^  payload  " + BYTES), J("collectives", "collectives[].bytes")),
    Same("collectives: time", T("collectives", r"^  ran +[1-9]\d*x, " + TIME), Fn("time_ps of those that ran", lambda c: {k: v for k, v in walk(c.json("collectives"), "collectives[].time_ps").items() if v})),
    Same("collectives: achieved bandwidth in GB/s", T("collectives", r"^  ran .* on device(?:; start to done \S+ \S+)?, (?P<v>[\d.]+) (?P<u>\S+) achieved", "GB/s"),
         Fn("achieved_bytes_per_s", lambda c: {k: v for k, v in walk(c.json("collectives"), "collectives[].achieved_bytes_per_s").items() if v is not None})),
    Same("report: traffic sent per device = the busiest device", T("report", r"^traffic .*, " + BYTES + " sent per device"),
         Fn("the busiest device (where a device trace ran)",
            lambda c: {("0",): busiest_device_traffic(c)} if c.json("collectives")["cores"] else {})),
    Same("check: peak per core = memory's larger peak", Fn("check max-peak measured", lambda c: {(r["host"], r["plane"]): r["measured"] for r in c.json("check")["results"] if r["rule"] == "max-peak" and r["plane"]}),
         Fn("memory max(compiler, runtime)", lambda c: {(x["host"], x["plane"]): max(x["compiler_peak_bytes"] or 0, x["runtime_peak_bytes"] or 0) for x in c.json("memory")["cores"]
                                                           if (x["compiler_peak_bytes"] or x["runtime_peak_bytes"])})),
    Same("check: headroom per core = memory", Fn("check min-headroom measured", lambda c: {(r["host"], r["plane"]): r["measured"] for r in c.json("check")["results"] if r["rule"] == "min-headroom" and r["plane"]}),
         Fn("memory headroom_bytes", lambda c: {(x["host"], x["plane"]): x["headroom_bytes"] for x in c.json("memory")["cores"] if x["headroom_bytes"] is not None
                                                   and (x["compiler_peak_bytes"] is not None or x["runtime_peak_bytes"] is not None)})),
    Same("check: FLOP utilization per core = ops", Fn("check min-flops-utilization", lambda c: {(r["host"], r["plane"]): r["measured"] for r in c.json("check")["results"] if r["rule"] == "min-flops-utilization" and r["plane"]}),
         Fn("ops flop_utilization", lambda c: {(x["host"], x["plane"]): x["flop_utilization"] for x in c.json("ops")["cores"] if x["flop_utilization"] is not None})),
    Same("check: collective bytes = the busiest device's", Fn("check max-collective-bytes", lambda c: {(r["program_id"],): r["measured"] for r in c.json("check")["results"] if r["rule"] == "max-collective-bytes" and r["program_id"] and r["measured"]
                                                                     and r["source"] == "executions"}),
         Fn("busiest device", lambda c: {(k,): v for k, v in module_traffic_per_device(c).items() if v})),
    Same("check: step time per core = ops' mean steady step", check_measured("max-step-time"),
         Fn("ops cores[].steady.step_ps", lambda c: {("%s %s" % (x["host"], x["plane"]),): x["steady"]["step_ps"] for x in c.json("ops")["cores"] if x["steady"]})),
    Same("check text: step time per core", T("check", r"^FAIL max-step-time core " + CORE + r": " + TIME + r" > limit"), check_measured("max-step-time")),
    Same("check text: peak per core", T("check", r"^FAIL max-peak core " + CORE + r"(?: module \S+)?: " + BYTES + r" \("), check_measured("max-peak")),
    Same("check text: headroom per core, cut down as memory's", T("check", r"^FAIL min-headroom core " + CORE + r"(?: module \S+)?: headroom " + BYTES + " = ", down=True), check_measured("min-headroom")),
    Same("check text: headroom share of capacity, cut down", T("check", r"^FAIL min-headroom core " + CORE + r"(?: module \S+)?: headroom \S+ \S+ = " + PCT + " of", "percent", down=True),
         check_measured("min-headroom", "fraction")),
    Same("check text: FLOP utilization per core", T("check", r"^FAIL min-flops-utilization core " + CORE + r": FLOP utilization " + PCT, "percent"), check_measured("min-flops-utilization")),
    Same("check text: collective bytes per module", T("check", r"^FAIL max-collective-bytes module (?P<core>\S+): " + BYTES), check_measured("max-collective-bytes", key="module")),
    Same("info: events per plane", T("info", r"^    (?P<plane>\S.*?) +\S+ +id \S+ +\d+ lines +(?P<v>\d+) events$", "count"), J("info", "hosts[].planes[].events")),
    Same("info: events per line", T("info", r"^      .*?\S +(?P<v>\d+) events(?:  span .*)?$", "count"), J("info", "hosts[].planes[].lines[].events")),
    Same("info: line span", T("info", r"^      .*?\S +\d+ events  span " + TIME + "$"),
         Fn("info lines[].span_ps", lambda c: {k: v for k, v in walk(c.json("info"), "hosts[].planes[].lines[].span_ps").items() if v is not None})),
    Same("fusions: time of those that ran", T("fusions", r"^  \S+  \S+(?:  inside \S+)?  ran \d+x, " + TIME),
         Fn("fusions[].total_ps", lambda c: {k: v for k, v in walk(c.json("fusions"), "modules[].fusions[].total_ps").items() if v is not None})),
    Same("fusions: executions", T("fusions", r"^  \S+  \S+(?:  inside \S+)?  ran (?P<v>\d+)x", "count"),
         Fn("fusions[].occurrences", lambda c: {k: v for k, v in walk(c.json("fusions"), "modules[].fusions[].occurrences").items() if v})),
    Same("collectives: ring bytes per device per execution", T("collectives", r"^  ring     " + BYTES + " sent per device per execution"),
         Fn("ring_bytes_per_device", lambda c: {k: v for k, v in walk(c.json("collectives"), "collectives[].ring_bytes_per_device").items() if v is not None})),
    Each("collectives: share = achieved / the each-way figure printed beside it",
         Fn("collectives", lambda c: {(x["name"], x["program_id"]): x for x in c.json("collectives")["collectives"] if x["interconnect_share"] is not None}),
         lambda x: abs(x["interconnect_share"] - x["achieved_bytes_per_s"] / x["interconnect_bytes_per_s_each_way"]) < 1e-9
         and x["interconnect_bytes_per_s_each_way"] == x["interconnect_bytes_per_s"]["value"] / 2),
    Same("collectives: interconnect each way in GB/s", T("collectives", r"^  ran .* of \S+(?: \S+)? \((?P<v>[\d.]+) (?P<u>GB/s) each way", "GB/s"),
         Fn("interconnect_bytes_per_s_each_way", lambda c: {k: v for k, v in walk(c.json("collectives"), "collectives[].interconnect_bytes_per_s_each_way").items() if v is not None and walk(c.json("collectives"), "collectives[].interconnect_share").get(k) is not None})),
    Same("report: the bytes of the buffers at the peak not listed", T("report", r"^ +" + BYTES + r" +[\d.]+%  \d+ more buffers? live at the peak"),
         Fn("live_at_peak beyond the 3 largest", top_module_rest)),
    Same("collectives: replica group ids outside the capture", T("collectives", r"^  outside  the groups name (?P<v>\d+)(?P<u>) devices?", "count"),
         Fn("replica_group_ids_outside_capture.count", lambda c: {k: v for k, v in walk(c.json("collectives"), "collectives[].replica_group_ids_outside_capture.count").items()})),
    Each("collectives: ids outside the capture are at or above its devices",
         Fn("replica_group_ids_outside_capture", lambda c: {k: v for k, v in walk(c.json("collectives"), "collectives[].replica_group_ids_outside_capture").items() if v}),
         lambda o: o["devices_in_capture"] <= o["lowest"] <= o["highest"] and 1 <= o["count"] <= o["highest"] - o["lowest"] + 1),
    Same("collectives: share of the interconnect", T("collectives", r"^  ran .* achieved per device = " + PCT + " of", "percent"),
         Fn("interconnect_share", lambda c: {k: v for k, v in walk(c.json("collectives"), "collectives[].interconnect_share").items() if v is not None})),
    Same("collectives: collective time per core", T("collectives", r"^  " + CORE + r": \S+ \S+ sent; " + TIME + " of "), coll_cores("collective_ps")),
    Same("collectives: share of device time per core", T("collectives", r"^  " + CORE + r": \S+ \S+ sent; \S+ \S+ of \S+ \S+ \(" + PCT + r"\)$", "percent"),
         coll_cores("collective_share")),
    Same("collectives: ring bytes each core sent", T("collectives", r"^  " + CORE + r": " + BYTES + " sent; "), coll_cores("ring_bytes")),
    Same("collectives: a core's ring bytes = Σ its collectives' ring bytes × its executions there",
         Fn("cores[].ring_bytes", lambda c: {("%s %s" % (x["host"], x["plane"]),): x["ring_bytes"] for x in c.json("collectives")["cores"] if x["ring_bytes"]}),
         Fn("Σ ring_bytes_per_device × cores[].occurrences", lambda c: core_traffic(c))),
    Same("collectives: a module's ring bytes in total = Σ over its devices",
         Fn("modules[].ring_bytes_total", lambda c: {(m["program_id"],): m["ring_bytes_total"] for m in c.json("collectives")["modules"] if m["ring_bytes_total"]}),
         Fn("Σ cores", lambda c: {(k,): v for k, v in module_traffic_total(c).items() if v})),
    Same("fusions: executions = ops' over cores", Fn("fusions occurrences", lambda c: {(m["program_id"], f["name"]): f["occurrences"] for m in c.json("fusions")["modules"] for f in m["fusions"] if f["occurrences"] and f["parent"] is None}),
         Fn("ops Σ occurrences", lambda c: _ops_counts(c))),

    # debug-print (docs/ops.md): a share of step time per host; the report's
    # figure is the worst host's, as merge gives it over all the hosts
    Same("report: debug-print share per host = from the steps' debug_print_ps", Fn("advice hosts[].share", debug_print_hosts),
         Fn("steps: mean over steps of the mean over cores", debug_print_from_steps)),
    Each("report: debug-print share per host within [0, 100%]", Fn("advice hosts[].share", debug_print_hosts), lambda v: 0 <= v <= 1),
    Same("report: debug-print measured = the largest host share (report = merge over hosts)",
         Fn("advice measured", lambda c: {("0",): debug_print_finding(c)["measured"]}),
         Fn("max hosts[].share", lambda c: {("0",): max(debug_print_hosts(c).values())})),
    Same("check: debug-print share = the report's advice", Fn("check max-debug-print-share", lambda c: {(r["host"],): r["measured"] for r in c.json("check")["results"] if r["rule"] == "max-debug-print-share"}),
         Fn("advice measured, its host", lambda c: {(debug_print_finding(c)["host"],): debug_print_finding(c)["measured"]})),
    Same("check text: debug-print share per host", T("check", r"^FAIL max-debug-print-share host (?P<host>\S+): debug-print " + PCT, "percent"),
         Fn("check max-debug-print-share failed", lambda c: {(r["host"],): r["measured"] for r in c.json("check")["results"] if r["rule"] == "max-debug-print-share" and not r["pass"]})),

    # per device never above the total; equal to the parts' sum
    Check("collectives: per-core executions and time add up", collective_parts_sum),
    Check("ops: each step's parts add up to its duration, exactly", step_parts_sum),
    Check("ops: outside_steps adds up; clock is device or timeline", outside_steps_sum),
    Same("ops: op time outside the steps, text = JSON", T("ops-per-core", r"^" + CORE + r": \d+ ops(?:.*\n)+?  outside the steps: " + TIME),
         Fn("ops cores[].outside_steps.op_ps", lambda c: {k[:-1] if False else k: v for k, v in walk(c.json("ops"), "cores[].outside_steps.op_ps").items() if v})),
    Check("traffic per device <= total, = the busiest device", per_device_traffic),
    Check("symmetric work: traffic per device × devices = total", symmetric_traffic),
    Each("ops: core self time <= device time", Fn("cores", lambda c: {(x["host"], x["plane"]): (x["self_ps"], x["device_ps"]) for x in c.json("ops")["cores"]}), lambda v: v[0] <= v[1]),
    Each("ops: op self <= total <= core device time", Fn("ops", lambda c: {(x["plane"], o["name"]): (o["self_ps"], o["total_ps"], x["device_ps"]) for x in c.json("ops")["cores"] for o in x["ops"]}), lambda v: v[0] <= v[1] <= v[2]),
    # XProf's duty cycle: TPU op-line cores only, no negative part; the
    # barrier time lies in steps (docs/ops.md)
    Each("ops: duty busy and idle >= 0, null exactly off TPU op lines",
         Fn("cores", lambda c: {(x["host"], x["plane"]): (x["source"], x["duty_busy_ps"], x["duty_idle_ps"]) for x in c.json("ops")["cores"]}),
         lambda v: (v[1] is None and v[2] is None) if v[0] != "xla_ops" else (v[1] is None and v[2] is None) or (v[1] >= 0 and v[2] >= 0)),
    Each("ops: barrier time only with steps",
         Fn("cores", lambda c: {(x["host"], x["plane"]): (x["barrier_ps"], len(x["steps"] or [])) for x in c.json("ops")["cores"]}),
         lambda v: v[0] >= 0 and (v[1] > 0 or v[0] == 0)),
    Each("ops: steps_source is a documented one",
         Fn("cores", lambda c: {(x["host"], x["plane"]): x["steps_source"] for x in c.json("ops")["cores"]}),
         lambda v: v in ("steps_line", "group_id", "group_id_empty_steps_line", "inferred")),
    Each("ops: steps across cores compare no SparseCore",
         Fn("steps_across", lambda c: {(str(a["index"]),): (a["slowest_plane"], a["fastest_plane"]) for a in (c.json("ops").get("steps_across") or [])}),
         lambda v: " SparseCore" not in v[0] and " SparseCore" not in v[1]),
    Check("ops: steps across cores: an edge is the first or last of some core's inferred steps, never a straggler", edges_as_defined),
    Check("ops: steps across cores: each side's parts add up to its step and are its row's; spread_from is the part grown most", spread_parts_as_defined),
    Same("report: the straggler finding's step = the worst steady step of ops steps_across, its time that step's start on the slowest core",
         Fn("advice straggler step, time_ps", lambda c: {("step",): straggler_finding(c)["step"], ("time_ps",): straggler_finding(c)["time_ps"]}
            if c.json("ops").get("steps_across") and straggler_finding(c)["step"] is not None else {}),
         Fn("ops steps_across worst row, its slowest core's steps[].start_ps", worst_step_and_start)),
    Same("report: the straggler's worst step, text = JSON",
         T("report", r"^  straggler: .*; worst step (?P<v>\d+): ", "count"),
         Fn("advice straggler step, where fired (report text prints the fired findings' text)",
            lambda c: {("0",): straggler_finding(c)["step"]} if straggler_finding(c)["verdict"] == "fired" else {})),
    Same("check: a straggler's step parts = the worst steady step's in ops steps_across (slowest − fastest)",
         Fn("check max-straggler-spread contributors", lambda c: {(x["name"],): x["value"] for r in c.json("check")["results"]
                                                                  if r["rule"] == "max-straggler-spread" for x in r["contributors"]}),
         Fn("ops steps_across worst step parts", straggler_parts_from_ops)),
    Same("check: max-step-time's step parts = each core's mean steady parts (ops steady, apportioned), the 3 largest",
         Fn("check max-step-time contributors", lambda c: {(r["host"], r["plane"], x["name"]): x["value"]
                                                           for r in c.json("check")["results"] if r["rule"] == "max-step-time"
                                                           for x in r["contributors"]}),
         Fn("ops steady parts, apportioned", step_time_parts_from_ops)),
    Same("check: max-step-time's largest step part, text = JSON",
         T("check", r"^\S+ +max-step-time core (?P<h>\S+) (?P<pl>\S+): .*; spent in: (?P<p>compute|collective|copy|input|idle) (?P<v>[\d.]+) (?P<u>[a-z]+)"),
         Fn("check max-step-time first contributor", lambda c: {(r["host"], r["plane"], r["contributors"][0]["name"]): r["contributors"][0]["value"]
                                                                for r in c.json("check")["results"]
                                                                if r["rule"] == "max-step-time" and r["contributors"]})),
    Same("check: a straggler's step parts, text = JSON",
         T("check", r"(?:fastest core in: |, )(?P<p>compute|collective|copy|input|idle) \+(?P<v>[\d.]+) (?P<u>[a-z]+)"),
         Fn("check max-straggler-spread contributors", lambda c: {(x["name"],): x["value"] for r in c.json("check")["results"]
                                                                  if r["rule"] == "max-straggler-spread" for x in r["contributors"]})),
    Same("ops: steps across cores, the part the spread lies in most, text = JSON",
         T("ops", r"^  (?P<i>\d+) +\S+ \S+ +\S+ \S+ +\S+ \S+ +\S+%  (?P<p>compute|collective|copy|input|idle) \+(?P<v>[\d.]+) (?P<u>\S+)"),
         Fn("ops steps_across spread_from", spread_from_json)),
    Each("memory: headroom = capacity - larger peak", Fn("cores", lambda c: {(x["plane"],): x for x in c.json("memory")["cores"] if x["headroom_bytes"] is not None}),
         lambda x: x["headroom_bytes"] == x["capacity_bytes"] - max(x["compiler_peak_bytes"] or 0, x["runtime_peak_bytes"] or 0)),
    Each("memory: program headroom = program capacity - highest peak (no cores: every program)",
         Fn("program headroom", lambda c: {("0",): c.json("memory-hbm")} if c.json("memory-hbm")["program_headroom_bytes"] is not None and not c.json("memory-hbm")["cores"] else {}),
         lambda m: m["program_headroom_bytes"] == m["program_capacity_bytes"] - max(x["peak_bytes"] or 0 for x in m["modules"])
         and abs(m["program_headroom_percent"] - 100.0 * m["program_headroom_bytes"] / m["program_capacity_bytes"]) < 1e-9),
    Check("memory: scope tree adds up to the peak", scope_tree_adds_up),
    Check("memory: every byte of the peak is a buffer in a category", peak_held_by_buffers),
    Check("ops: op scope root = all op self time", op_scope_root_is_op_time),
    Check("ops: per step, compute by category = the step's compute", step_categories_sum),
    Check("ops: the steady steps' duration spread and the steps-across summary = their rows", steady_durations),
    Same("ops: steps across cores and stragglers, text = JSON",
         T("ops", r"^steps across cores: (?P<v>\d+) steps? on \d+ cores", "count"),
         Fn("ops steps_across_summary.n_steps", lambda c: {("0",): c.json("ops")["steps_across_summary"]["n_steps"]} if c.json("ops")["steps_across_summary"] else {})),
    Same("ops: steps with a straggler, text = JSON",
         T("ops", r"^steps across cores: .* cores, (?P<v>\d+) with a straggler", "count"),
         Fn("ops steps_across_summary.stragglers", lambda c: {("0",): c.json("ops")["steps_across_summary"]["stragglers"]} if c.json("ops")["steps_across_summary"] else {})),
    Check("memory space 5: every byte of the peak is a buffer in a category", lambda c: peak_held_by_buffers(c, "memory-s5")),
    Check("memory space 5: not held to HBM capacity", host_memory_not_held_to_hbm),
    Check("memory: \"cut at least\" over the capacity rounds up", cut_at_least_rounds_up),

    # no share of a peak over 100%
    Check("no share over 100% in any JSON document", shares_at_most_one),
    Check("no share over 100% in text", text_shares_at_most_100),
    Check("async pairs carry their bytes once", async_bytes_once),

    # memory: why-live, freed_by, nothing hidden
    Check("why-live: every step an edge", why_live_edges),
    Check("freed_by = the why-live last user", freed_by_last_user),
    Check("text: one position per instruction (a heap event is no schedule step)", one_position_per_instruction),
    Check("nothing unattributed hides at a tree's root", no_unscoped_root),
    Check("memory: heap events and schedule steps named apart, both for the peak", positions_named_apart),
    Check("memory: the largest scoped allocation names its instruction", scoped_out_of_peak),
    Check("check: a runtime peak names its program; buffers carry their scope", runtime_peak_names_program),
    Check("memory: damaged allocator events counted, warned of, never the peak", damaged_allocator_events),
    Check("ops text: different ops print different names", ops_names_distinct),

    # diff: each row in its unit, labelled, the worst core, never a sum (23.9)
    Check("diff: sections titled, in a unit, totals as total_is says", diff_sections_defined, on="diffs"),
    Check("diff: text rows in the section's unit", diff_text_units, on="diffs"),
    Check("diff: html page = diff --format json", diff_html_is_json, on="diffs"),
    Check("diff: a capture against itself changes nothing", diff_self_zero, on="diffs"),
    Check("diff: each core's mean steady step = ops steady.step_ps of its run; total the slowest", diff_steady_steps, on="diffs"),
    Check("diff: each core's mean steady step by part = ops steady parts apportioned, adding up to its mean steady step", diff_step_parts, on="diffs"),
]


def _ops_counts(cap):
    want = {(m["program_id"], f["name"]) for m in cap.json("fusions")["modules"] for f in m["fusions"]
            if f["occurrences"] and f["parent"] is None}
    out = {}
    for core in cap.json("ops")["cores"]:
        for o in core["ops"]:
            k = (o["program_id"], o["name"])
            if k in want:
                out[k] = out.get(k, 0) + o["occurrences"]
    return out
