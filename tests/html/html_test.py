"""`--format html` in a real headless Chromium (tests/html/cdp.py).

    python3 tests/html/html_test.py TPUPROF GEN_CAPTURE OUTDIR

Writes the pages of report, memory, ops and diff into OUTDIR, then checks
each the way a person would use it, against the JSON the same build
writes: no console error, no request beyond the page's own file (the
browser has no network at all), deep links open what they name, the ops
table holds every op and its filters and totals are exact, fusions open,
search finds, and 100,000 ops stay fast. A screenshot of every view is
kept in OUTDIR.
"""
import glob
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

CAPTURES = "../shared/captures"
TPU4 = CAPTURES + "/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb"
CONV = CAPTURES + "/gpu-mi300x8-jax-conv3d/tw003.xplane.pb"

passed = 0
failed = 0


# The views docs/html.md shows, reduced: screenshot name -> picture name.
# `make html` writes them to OUTDIR/docs/; copy them to docs/html/.
DOC_PICTURES = {
    "report-warnings": "summary", "report-tpu-memory": "memory", "report-tpu-card": "card",
    "report-scope": "scopes", "report-tpu-ops-fusion": "ops", "diff": "diff",
    "memory-memory": "memory-gpu", "report-tpu-ops-by-category-fold": "ops-by-category",
}


def shot(b, out, name):
    b.screenshot(os.path.join(out, name + ".png"))
    if name in DOC_PICTURES:
        os.makedirs(os.path.join(out, "docs"), exist_ok=True)
        b.screenshot(os.path.join(out, "docs", DOC_PICTURES[name] + ".png"), scale=0.6)


def check(what, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL html: %s %s" % (what, detail))


def run(tpuprof, *args):
    r = subprocess.run([tpuprof] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise SystemExit("tpuprof %s failed: %s" % (" ".join(args), r.stderr.decode()))
    return r.stdout


def json_of(tpuprof, *args):
    return json.loads(run(tpuprof, *(list(args) + ["--format", "json", "-q"])))


def page(tpuprof, out, name, *args):
    path = os.path.join(out, name + ".html")
    run(tpuprof, *(list(args) + ["--format", "html", "-q", "-o", path]))
    return path


def same(a, b, where="$"):
    """Equal documents, reals to the 9 digits the page keeps; the first
    difference, or None."""
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
                abs(a - b) <= 1e-8 * max(abs(a), abs(b)):
            return None
        return "%s: %r != %r" % (where, a, b)
    if type(a) is not type(b):
        return "%s: %r != %r" % (where, a, b)
    if isinstance(a, dict):
        if list(a) != list(b):
            return "%s: keys %s != %s" % (where, list(a), list(b))
        for k in a:
            d = same(a[k], b[k], where + "." + k)
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: %d != %d items" % (where, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = same(x, y, "%s[%d]" % (where, i))
            if d:
                return d
        return None
    return None if a == b else "%s: %r != %r" % (where, a, b)


def data_of(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="tp-data">(.*?)</script>', text, re.S)
    return unpack(json.loads(m.group(1)))


def static_checks(path):
    """Nothing in the page can load anything: no external src/href, no
    link or import, no url(); the data block cannot end early."""
    text = open(path, encoding="utf-8").read()
    name = os.path.basename(path)
    data = re.search(r'<script type="application/json" id="tp-data">(.*?)</script>', text, re.S)
    check(name + " has one data block", data is not None)
    check(name + " data is valid JSON", data is not None and json.loads(data.group(1)) is not None)
    check(name + " data holds no raw <, > or &", data is not None and not re.search(r"[<>&]", data.group(1)))
    check(name + " has no <link>, <img>, <iframe> or @import",
          not re.search(r"<(link|img|iframe|embed|object)\b|@import", text, re.I))
    check(name + " has no src= or href= to anywhere",
          not re.search(r"""\b(src|href)\s*=\s*["']?(https?:|//)""", text, re.I))
    check(name + " has no url(", "url(" not in text.lower())
    urls = set(re.findall(r"https?://[^\s\"'<>)]*", text))
    check(name + " names no URL but the SVG namespace", urls <= {"http://www.w3.org/2000/svg"}, str(urls))
    check(name + " forbids every fetch (CSP default-src 'none')",
          "default-src 'none'" in text and "connect-src" not in text)
    return len(text)


class Page:
    def __init__(self, browser, path):
        self.b = browser
        self.url = "file://" + os.path.abspath(path)
        self.name = os.path.basename(path)

    def open(self, fragment=""):
        self.b.problems.clear()
        self.b.requests.clear()
        self.b.open(self.url + ("#" + fragment if fragment else ""))
        return self

    def clean(self, what):
        errs = self.b.eval("window.tpErrors")
        others = [u for u in self.b.requests if u.split("#")[0] != self.url]
        check("%s %s: no page error" % (self.name, what), errs == [], str(errs))
        check("%s %s: no console error" % (self.name, what), self.b.problems == [], str(self.b.problems))
        check("%s %s: no request but the page" % (self.name, what), others == [], str(others))

    def js(self, expr):
        return self.b.eval(expr)


def fmt_int(n):
    return "{:,}".format(n)


def buf_name(b):
    if b.get("display_name"):
        return b["display_name"]
    base = b.get("instruction") or b.get("defined_by") or "buffer %d" % b["logical_buffer_id"]
    si = b.get("shape_index") or []
    return base + ("{" + ",".join(map(str, si)) + "}" if si else "")


def test_report(b, path, doc, out, prefix, tpuprof_bin, doc_args):
    p = Page(b, path)
    mem, ops = doc["memory"], doc["ops"]
    n_ops = sum(c["n_ops"] for c in ops["cores"])
    for view in ("summary", "memory", "scopes", "ops"):
        p.open("view=" + view)
        p.clean("view " + view)
        check("%s view %s shown" % (p.name, view),
              p.js("!document.getElementById('view-%s').hidden" % view) is True)
        shot(b, out, "%s-%s" % (prefix, view))

    # summary: the same warnings as the JSON (and the text)
    p.open("view=summary")
    shown = p.js("Array.from(document.querySelectorAll('#warnings li')).map(e => e.textContent)")
    check(p.name + " summary warnings", shown == doc["warnings"], "%r != %r" % (shown, doc["warnings"]))
    # the time line as the text report's
    text = run(tpuprof_bin, "report", "-q", *doc_args).decode()
    want = re.search(r"^time +(.*)$", text, re.M).group(1)
    got = p.js("document.getElementById('summary-time').textContent")
    check(p.name + " summary time line as the text", got.startswith(want), "%r vs %r" % (got, want))
    # steps across cores: the line as `ops` text prints it, a row per step
    across = doc["ops"].get("steps_across")
    if across:
        ops_text = run(tpuprof_bin, "ops", "-q", *doc_args).decode()
        want = re.search(r"^(steps across cores: .*)$", ops_text, re.M).group(1)
        got = p.js("document.getElementById('summary-steps-across').textContent")
        check(p.name + " steps across cores line as ops text", got == want, "%r vs %r" % (got, want))
        cells = p.js("Array.from(document.querySelectorAll('#summary-steps-across-table tr')).slice(1)"
                     ".map(r => Array.from(r.children).map(c => c.textContent))")
        def mostly_in(x):
            k = x["spread_from"]
            if not k:
                return "–"
            return "%s +%s" % (k, c_fmt_ps(x["slowest_parts"][k + "_ps"] - x["fastest_parts"][k + "_ps"]))
        want = [[str(x["index"]), c_fmt_ps(x["slowest_ps"]), c_fmt_ps(x["fastest_ps"]), c_fmt_ps(x["spread_ps"]),
                 "%.1f%%" % (100 * x["spread_share"]), mostly_in(x), x["slowest_host"] + " " + x["slowest_plane"]]
                for x in across]
        check(p.name + " steps across cores: a row per step with the JSON's figures (%d)" % len(across),
              [c[:7] for c in cells] == want, "%r vs %r" % (cells[:2], want[:2]))
        # "mostly in" as ops text prints it (a row it shows with none: "-")
        text_from = re.findall(r"^  \d+ +\S+ \S+ +\S+ \S+ +\S+ \S+ +\S+%  (.+?) +\S+ /", ops_text, re.M)
        check(p.name + " steps across cores: mostly in as ops text",
              [c[5] for c in cells][:len(text_from)] == [t.replace("-", "–") if t == "-" else t for t in text_from],
              "%r vs %r" % ([c[5] for c in cells][:3], text_from[:3]))
    for part, el_id in (("capture", "capture-line"), ("traffic", "summary-traffic")):
        want = re.search(r"^%s +(.*)$" % part, text, re.M).group(1)
        got = p.js("document.getElementById('%s').textContent" % el_id)
        check("%s summary %s line as the text" % (p.name, part), got == want, "%r vs %r" % (got, want))

    # advice: the fired rules' lines as the JSON (and the text) give them
    fired = [a["text"] for a in doc.get("advice", []) if a["verdict"] == "fired"]
    got = p.js("Array.from(document.querySelectorAll('#summary-advice-fired li')).map(e => e.textContent)")
    check(p.name + " summary advice as the JSON", got == fired, "%r != %r" % (got, fired))
    for line in fired:
        check(p.name + " advice line in the text", line in text, line)
    # steps: one row per core with steps, one line per core in the chart
    stepped = [c for c in ops["cores"] if c.get("steps")]
    rows = p.js("document.querySelectorAll('#summary-steps-cores tr').length")
    check(p.name + " summary steps rows", rows == len(stepped) + 1 if stepped else rows == 0, rows)
    # each core's steady compute by category, as the JSON gives it
    got = p.js("Array.from(document.querySelectorAll('#summary-steps-cores td.steps-categories')).map(e => e.textContent)")
    want = [", ".join("%s %s" % (x["category"], p.js("fmtPct(%r)" % (x["share"] or 0)))
                      for x in c["steady"]["compute_by_category"]) for c in stepped]
    check(p.name + " summary steps: compute by category as the JSON", got == want, "%r != %r" % (got, want))
    if len(stepped) >= 2:
        lines = p.js("document.querySelectorAll('#summary-steps-chart polyline').length")
        check(p.name + " step chart has a line per core", lines == len(stepped), lines)

    # a link in the summary opens what it names in the same page
    first = p.js("(() => { const a = document.querySelector('#view-summary a[href^=\"#buffer=\"]'); if (!a) return null;"
                 " const name = a.textContent; a.click(); return name; })()")
    if first:
        b.settle()
        check(p.name + " summary buffer link pins its card",
              p.js("!document.getElementById('view-memory').hidden && document.querySelector('#buffer-card .card-title').textContent") == first)
        p.js("history.back()")
        b.settle()
        check(p.name + " back returns to the summary", p.js("App.current") == "summary", p.js("App.current"))

    # the ops table holds every op, and its totals are exact; by default
    # summed over cores as `ops` sums them (core_groups), made in the page
    p.open("view=ops")
    total = p.js("+document.getElementById('ops-count').dataset.total")
    check(p.name + " ops table holds every op summed over cores", total == n_group_ops(ops), "%s != %s" % (total, n_group_ops(ops)))
    test_ops_views(b, p, ops, out, prefix)
    p.open("view=ops")
    rows_in_dom = p.js("document.querySelectorAll('#ops-table .vt-row').length")
    check(p.name + " ops table renders only what is in sight", 0 < rows_in_dom <= min(n_ops, 80), str(rows_in_dom))
    cats = {}
    for g in ops["core_groups"]:
        for o in g["ops"]:
            cats.setdefault(o["category"] or "", []).append(o)
    cat = max(cats, key=lambda k: len(cats[k]))
    p.js("(() => { const s = document.getElementById('ops_category') || OpsView.ops_category; s.value = %s; "
         "s.dispatchEvent(new Event('change')); })()" % json.dumps(cat))
    shown = p.js("+document.getElementById('ops-count').dataset.shown")
    check(p.name + " category filter", shown == len(cats[cat]), "%s: %s != %s" % (cat, shown, len(cats[cat])))
    occ = p.js("document.getElementById('ops-totals').textContent")
    want = "count " + fmt_int(sum(o["occurrences"] for o in cats[cat]))
    check(p.name + " totals of the filtered rows", want in occ, "%r not in %r" % (want, occ))
    p.js("OpsView.ops_category.value=''; OpsView.ops_category.dispatchEvent(new Event('change'))")
    p.js("document.querySelector('#ops-table .vt-head [data-key=occurrences]').click()")
    first = p.js("OpsView.filtered[0].occurrences")
    most = max(o["occurrences"] for g in ops["core_groups"] for o in g["ops"])
    check(p.name + " sorts by count", first == most, "%s != %s" % (first, most))
    p.js("document.querySelector('#ops-table .vt-head [data-key=name]').click()")
    names = p.js("OpsView.filtered.slice(0, 5).map(r => r.name)")
    check(p.name + " sorts by name", names == sorted(names, key=lambda s: s.lower()) or names == sorted(names), str(names))

    # a fusion opens into the instructions fused into it
    fused = p.js("(() => { const r = OpsView.rows.find(r => r.fused && r.fused.length); if (!r) return null;"
                 " OpsView.setOp(r.name); const before = OpsView.display.length;"
                 " document.querySelector('#ops-table .vt-row[data-op] .twisty').click();"
                 " return [r.name, r.fused.length, before, OpsView.display.length, r.fused[0][0],"
                 " document.querySelector('#ops-table .vt-row.child') ? document.querySelector('#ops-table .vt-row.child').textContent : ''] })()")
    if fused:
        name, n_fused, before, after, first_fused, child_text = fused
        check(p.name + " fusion opens", after == before + n_fused, str(fused))
        check(p.name + " fused op listed", first_fused in child_text, str(fused))
        shot(b, out, "%s-ops-fusion" % prefix)

    # #op=NAME: the table filtered to that op, on every core it ran
    big = max((o for c in ops["cores"] for o in c["ops"]), key=lambda o: o["total_ps"])
    p.open("op=" + big["name"])
    p.clean("#op")
    want = sum(1 for g in ops["core_groups"] for o in g["ops"] if o["name"] == big["name"])
    check(p.name + " #op shows the ops view", p.js("!document.getElementById('view-ops').hidden") is True)
    check(p.name + " #op filters to that op", p.js("+document.getElementById('ops-count').dataset.shown") == want)
    names = p.js("Array.from(document.querySelectorAll('#ops-table .vt-row[data-op]')).map(e => e.dataset.op)")
    check(p.name + " #op rows are that op", names and set(names) == {big["name"]}, str(names))

    # #buffer=NAME: the card of the largest buffer at the highest peak
    mods = [m for m in mem["modules"] if not m["error"] and m["live_at_peak"]]
    if mods:
        m = max(mods, key=lambda m: m["peak_bytes"])
        buf = max(m["live_at_peak"], key=lambda x: x["size_bytes"])
        p.open("buffer=%s&module=%s" % (buf_name(buf), m["program_id"]))
        p.clean("#buffer")
        title = p.js("document.querySelector('#buffer-card .card-title').textContent")
        check(p.name + " #buffer opens its card", title == buf_name(buf), "%r" % title)
        field = lambda k: p.js("(document.querySelector('#buffer-card dd[data-field=\"%s\"] .val') || {}).textContent" % k)
        if buf.get("shape"):
            check(p.name + " card shape", field("shape") == buf["shape"]["text"], field("shape"))
        check(p.name + " card size", (field("size") or "").startswith(fmt_int(buf["size_bytes"]) + " B"), field("size"))
        check(p.name + " card scope", field("scope") == (buf["scope"] or None), field("scope"))
        check(p.name + " card category", (field("category") or "").startswith(buf["category"]), field("category"))
        n_fields = p.js("document.querySelectorAll('#buffer-card dd').length")
        n_copy = p.js("document.querySelectorAll('#buffer-card dd button.copy').length")
        check(p.name + " a copy button per field", n_fields > 5 and n_copy == n_fields, "%s/%s" % (n_copy, n_fields))
        why = p.js("document.getElementById('why-live').textContent")
        if buf.get("why_live"):
            check(p.name + " why_live shown", buf["why_live"]["kind"] in why, why)
        elif buf.get("freed_by"):
            check(p.name + " freed_by shown without why_live", buf["freed_by"] in why, why)
        shot(b, out, "%s-card" % prefix)
        # the defining op, when the table has it, one click away
        op_names = {o["name"] for c in ops["cores"] for o in c["ops"]}
        has_op_button = p.js("!!document.querySelector('#buffer-card dd[data-field=\"defined by\"] button[title^=\"this op\"]')")
        check(p.name + " card links its defining op when it ran", has_op_button == (buf.get("defined_by") in op_names),
              "%s %s" % (has_op_button, buf.get("defined_by")))
        if has_op_button:
            p.js("document.querySelector('#buffer-card dd[data-field=\"defined by\"] button[title^=\"this op\"]').click()")
            check(p.name + " the op button filters the table", p.js("OpsView.state.op") == buf["defined_by"]
                  and p.js("!document.getElementById('view-ops').hidden") is True)
            p.open("buffer=%s&module=%s" % (buf_name(buf), m["program_id"]))
        # the card stays pinned until another buffer is clicked
        p.js("document.getElementById('heap-chart').dispatchEvent(new MouseEvent('mousemove', {bubbles: true}))")
        check(p.name + " card stays on mouse moves",
              p.js("document.querySelector('#buffer-card .card-title').textContent") == buf_name(buf))
        other = [i for i, x in enumerate(m["live_at_peak"]) if buf_name(x) != buf_name(buf)]
        if other:
            p.js("document.querySelector('#heap-chart .band[data-index=\"%d\"]').dispatchEvent(new MouseEvent('click', {bubbles: true}))" % other[0])
            check(p.name + " clicking another band pins it",
                  p.js("document.querySelector('#buffer-card .card-title').textContent") == buf_name(m["live_at_peak"][other[0]]))
        # pointing at the heap curve reads that position
        if m["heap"]:
            i = len(m["heap"]) // 2
            got = p.js("(() => { const h = document.querySelector('#heap-chart .hit'), r = h.getBoundingClientRect();"
                       " h.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: r.left + r.width * %d / %d,"
                       " clientY: r.top + 5})); return document.getElementById('heap-readout').textContent; })()"
                       % (i, len(m["heap"]) - 1))
            want = "heap event %d: %s B" % (i, fmt_int(m["heap"][i]["bytes"]))
            check(p.name + " heap readout", got.startswith(want), "%r, want %r" % (got, want))
            # at the peak every buffer of the tower is live
            i = m["peak_heap_event"] + 1
            axis = p.js("Array.from(document.querySelectorAll('#heap-chart .axis-title')).map(e => e.textContent)")
            check(p.name + " heap axis names heap events, not schedule steps",
                  "heap event (heap-simulator event index; not a schedule step)" in axis, str(axis))
            got = p.js("(() => { const h = document.querySelector('#heap-chart .hit'), r = h.getBoundingClientRect();"
                       " h.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: r.left + r.width * %d / %d,"
                       " clientY: r.top + 5})); return document.getElementById('heap-readout').textContent; })()"
                       % (i, len(m["heap"]) - 1))
            want = "; %d of the peak's buffers live here" % len(m["live_at_peak"])
            check(p.name + " heap readout at the peak holds the tower", want in got, "%r, want %r" % (got, want))
        bands = p.js("document.querySelectorAll('#heap-chart .band').length")
        check(p.name + " the tower has a band per buffer at the peak", bands == len(m["live_at_peak"]), str(bands))
        # search by scope finds every buffer at a peak that matches
        scope_word = next((x["scope"].split("/")[-1] for x in m["live_at_peak"] if x["scope"]), None)
        if scope_word:
            q = scope_word.lower()
            want = sum(1 for mm in mem["modules"] for x in mm["live_at_peak"]
                       if q in buf_name(x).lower() or q in (x["scope"] or "").lower())
            p.js("(() => { const i = document.getElementById('mem-search'); i.value = %s; i.dispatchEvent(new Event('input')); })()" % json.dumps(scope_word))
            got = p.js("document.querySelector('.search-results .muted').textContent")
            check(p.name + " search by scope", got.startswith("%d buffer(s)" % want), "%r want %d" % (got, want))
        p.open("view=memory&color=scope&module=" + m["program_id"])
        p.clean("colour by scope")
        shot(b, out, "%s-memory-by-scope" % prefix)

    # #scope=PATH: that scope opened and selected
    sc = [s for m in mem["modules"] for s in m["scopes"] if s["depth"] >= 2]
    if sc:
        s = max(sc, key=lambda s: (s["depth"], s["inclusive_bytes"]))
        p.open("scope=" + s["path"])
        p.clean("#scope")
        sel = p.js("(document.querySelector('#scope-tree .scope-row.selected') || {dataset: {}}).dataset.path")
        check(p.name + " #scope selects it", sel == s["path"], "%r" % sel)
        title = p.js("document.querySelector('#scope-detail .card-title').textContent")
        check(p.name + " #scope detail", title.startswith(s["path"]), title)
        shot(b, out, "%s-scope" % prefix)


def test_memory_page(b, path, mem, out, prefix):
    p = Page(b, path)
    for view in ("summary", "memory", "scopes"):
        p.open("view=" + view)
        p.clean("view " + view)
        shot(b, out, "%s-%s" % (prefix, view))
    check(p.name + " has no ops view", p.js("App.has('ops')") is False)
    check(p.name + " title names the capture", p.js("document.title") == "tpuprof memory: " + CONV, p.js("document.title"))
    p.open("view=memory")
    n_rt = p.js("document.querySelectorAll('#view-memory .runtime-chart').length")
    check(p.name + " a runtime chart per device memory", n_rt == len(mem["runtime"]), "%s != %s" % (n_rt, len(mem["runtime"])))
    # pointing at a runtime chart reads the allocator event there
    rt = mem["runtime"][0]
    got = p.js("(() => { const h = document.querySelector('#view-memory .runtime-chart .hit'), r = h.getBoundingClientRect();"
               " h.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: r.right - 1, clientY: r.top + 5}));"
               " return document.querySelector('#view-memory .rt-readout').textContent; })()")
    last = rt["timeline"][-1]
    check(p.name + " runtime readout names the last event", (" step %d: %s of " % (last["step"], last["activity"])) in got
          and (last["op"] in got), "%r vs %r" % (got, last))
    ticks = p.js("Array.from(document.querySelectorAll('#heap-chart .tick')).map(e => e.textContent)")
    check(p.name + " byte axis has real ticks", any(t.endswith("iB") for t in ticks), str(ticks[:6]))


def n_group_ops(ops):
    return sum(g["n_ops"] for g in ops["core_groups"])


def test_ops_views(b, p, ops, out, prefix):
    """The select beside the filter: summed over cores (default) = the
    CLI's core_groups, op by op; per core = cores[]; program > category >
    op, with name.N folded on request = ops --by category [--fold]."""
    check(p.name + " ops view: summed over cores by default", p.js("OpsView.viewSelect.value") == "all")
    want = {}
    for g in ops["core_groups"]:
        for o in g["ops"]:
            want[(o["program_id"], o["category"] or "", o["name"], tuple(g["core_indexes"]) if len(g["core_indexes"]) > 1 else None)] = o
    got = p.js("OpsView.rows.map(r => [r.program_id, r.category, r.name, r.n_cores, r.occurrences, r.total_ps, r.self_ps,"
               " r.min_ps, r.min_core, r.max_core, r.device_share])")
    bad = []
    for pid, cat, name, n_cores, occ, total, self_ps, min_ps, lo, hi, share in got:
        cands = [o for k, o in want.items() if k[:3] == (pid, cat, name)]
        if not any(o["occurrences"] == occ and o["total_ps"] == total and o["self_ps"] == self_ps and o["min_ps"] == min_ps
                   and o["n_cores"] == n_cores and o["min_core_self_ps"] == lo and o["max_core_self_ps"] == hi
                   and abs((o["device_share"] or 0) - (share or 0)) < 1e-12 for o in cands):
            bad.append(name)
    check(p.name + " ops summed over cores = core_groups, op by op", not bad and len(got) == n_group_ops(ops), str(bad[:5]))
    shot(b, out, prefix + "-ops-all-cores")
    p.js("(() => { const s = OpsView.viewSelect; s.value = 'per-core'; s.dispatchEvent(new Event('change')); })()")
    n_ops = sum(c["n_ops"] for c in ops["cores"])
    check(p.name + " ops per core: a row per op per core", p.js("+document.getElementById('ops-count').dataset.total") == n_ops)
    p.js("(() => { const s = OpsView.viewSelect; s.value = 'category'; s.dispatchEvent(new Event('change')); })()")
    progs, cats, fold = set(), set(), set()
    for c in ops["cores"]:
        for o in c["ops"]:
            progs.add(o["program_id"])
            cats.add((o["program_id"], o["category"] or ""))
            fold.add((o["program_id"], o["category"] or "", re.sub(r"^(.+)\.\d+$", r"\1", o["name"])))
    heads = p.js("OpsView.display.filter(r => r.header !== undefined).map(r => r.header)")
    check(p.name + " by category: a heading per program and category", heads.count(0) == len(progs) and heads.count(1) == len(cats),
          "%s programs, %s categories: %r" % (len(progs), len(cats), heads[:8]))
    shot(b, out, prefix + "-ops-by-category")
    p.js("(() => { const f = document.getElementById('ops-fold'); f.checked = true; f.dispatchEvent(new Event('change')); })()")
    check(p.name + " by category, folded: a row per op less its .N", p.js("+document.getElementById('ops-count').dataset.total") == len(fold),
          "%s != %s" % (p.js("+document.getElementById('ops-count').dataset.total"), len(fold)))
    shot(b, out, prefix + "-ops-by-category-fold")


def c_fmt_ps(ps):
    """src/util/units.c's tp_fmt_ps: printf's "%.*f" on a double, which
    rounds an exact halfway value to even (Python's % does the same)."""
    if abs(ps) < 1000:
        return "%d ps" % ps
    for scale, unit in ((1e12, "s"), (1e9, "ms"), (1e6, "us"), (1e3, "ns")):
        if abs(ps) >= scale:
            x = ps / scale
            return "%.*f %s" % (3 if abs(x) < 10 else 2 if abs(x) < 100 else 1, x, unit)


def test_rounding(b, path, doc):
    """The page prints a figure as the text output does: an exact halfway
    value (591.25 ns) rounds to even in both, not up in the page."""
    p = Page(b, path).open()
    ties = [591250, 1250, 3250, 12125, 150, 2500, 15, 1005, 99995, 2675]
    ps = sorted({o[k] for c in doc["ops"]["cores"] for o in c["ops"] for k in ("self_ps", "total_ps")} | set(ties))
    got = p.js("JSON.stringify(%s.map(fmtPs))" % json.dumps(ps))
    bad = [(v, g, c_fmt_ps(v)) for v, g in zip(ps, json.loads(got)) if g != c_fmt_ps(v)]
    check(p.name + ": every op time reads as in text (%d values; 591.25 ns is %s)" % (len(ps), c_fmt_ps(591250)),
          not bad, str(bad[:5]))
    shares = [0.0125, 0.0135, 0.00025, 0.5, 1 / 3, 0.21049999999999999]
    got = json.loads(p.js("JSON.stringify(%s.map(fmtPct))" % json.dumps(shares)))
    want = ["%.1f%%" % (100 * v) for v in shares]
    check(p.name + ": shares read as in text", got == want, "%s != %s" % (got, want))


def test_ops_page(b, path, ops, out, prefix, budget_s=None):
    p = Page(b, path)
    t0 = time.time()
    p.open("view=ops")
    opened = time.time() - t0
    p.clean("view ops")
    check(p.name + " table holds every op summed over cores",
          p.js("+document.getElementById('ops-count').dataset.total") == n_group_ops(ops))
    coll = p.js("OpsView.rows.filter(r => r.collective && r.coll).length")
    want = sum(1 for g in ops["core_groups"] for o in g["ops"] if o["collective"])
    check(p.name + " collectives joined", coll == want, "%s != %s" % (coll, want))
    shot(b, out, prefix + "-ops")
    # per core: every op of every core
    p.js("(() => { const s = OpsView.viewSelect; s.value = 'per-core'; s.dispatchEvent(new Event('change')); })()")
    n_ops = sum(c["n_ops"] for c in ops["cores"])
    check(p.name + " per core: table holds every op", p.js("+document.getElementById('ops-count').dataset.total") == n_ops)
    if budget_s:
        check("%s opens in under %ss (%.2fs)" % (p.name, budget_s, opened), opened < budget_s)
        t = p.js("(() => { const t = performance.now(); document.querySelector('#ops-table .vt-head [data-key=name]').click();"
                 " OpsView.scroller.scrollTop = 22 * 50000; OpsView.paint(); return performance.now() - t; })()")
        check("%s sorts and scrolls 100,000 rows in under 1.5s (%.0f ms)" % (p.name, t), t < 1500)
        print("html: %s: %d ops open in %.2f s, sort by name and scroll %.0f ms" % (p.name, n_ops, opened, t))
        rows = p.js("document.querySelectorAll('#ops-table .vt-row').length")
        check(p.name + " keeps under 100 rows in the DOM", 0 < rows < 100, str(rows))
        p.js("(() => { const i = OpsView.ops_text; i.value = 'fusion'; OpsView.state.text = 'fusion'; OpsView.apply(); })()")
        want = sum(1 for c in ops["cores"] for o in c["ops"]
                   if any("fusion" in (o.get(k) or "").lower() for k in ("name", "scope", "category", "source", "module")))
        check(p.name + " text filter over 100,000 rows",
              p.js("+document.getElementById('ops-count').dataset.shown") == want)


def unpack(v):
    """The page's data tables (src/report/html/html_pack.c) as objects."""
    if isinstance(v, list):
        return [unpack(x) for x in v]
    if isinstance(v, dict):
        if set(v) in ({"tp_columns", "tp_rows"}, {"tp_columns", "tp_rows", "tp_constants"}):
            consts = v.get("tp_constants", {})
            kept = [k for k in v["tp_columns"] if k not in consts]
            out = []
            for r in v["tp_rows"]:
                o = dict(zip(kept, map(unpack, r)))
                out.append({k: (consts[k] if k in consts else o[k]) for k in v["tp_columns"]})
            return out
        return {k: unpack(x) for k, x in v.items()}
    return v


def with_why_live(src, dst):
    """The report page with the agreed why_live, display_name and
    peak_by_last_user fields (docs/json.md) put into its data, as a build
    that reports them writes them: the card must show them."""
    text = open(src, encoding="utf-8").read()
    m = re.search(r'(<script type="application/json" id="tp-data">)(.*?)(</script>)', text, re.S)
    data = unpack(json.loads(m.group(2)))
    mem = data["report"]["memory"]
    mod = max(mem["modules"], key=lambda x: x["peak_bytes"] or 0)
    buf = max(mod["live_at_peak"], key=lambda x: x["size_bytes"])
    buf["display_name"] = buf["instruction"] + "{0}"
    buf["why_live"] = {"kind": "temporary", "last_user": "fusion.99", "last_user_position": 31,
                       "last_user_scope": "jit(f)/layer_3/<mlp>", "last_user_source": "model.py:12",
                       "chain": [buf["instruction"], "add.7", "fusion.99"], "wait_positions": 9,
                       "note": None}
    mod["peak_by_last_user"] = [{"last_user": "fusion.99", "scope": "jit(f)/layer_3", "position": 31,
                                 "wait_positions": 9, "bytes": buf["size_bytes"], "buffers": 1}]
    js = json.dumps(data, separators=(",", ":"))
    js = js.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    with open(dst, "w", encoding="utf-8") as f:
        f.write(text[:m.start(2)] + js + text[m.end(2):])
    return buf, mod


def test_why_live(b, src, out):
    path = os.path.join(out, "report-why-live.html")
    buf, mod = with_why_live(src, path)
    p = Page(b, path)
    p.open("buffer=" + buf["display_name"])
    p.clean("why_live")
    title = p.js("document.querySelector('#buffer-card .card-title').textContent")
    check("why_live: #buffer finds display_name", title == buf["display_name"], title)
    field = lambda k: p.js("(document.querySelector('#why-live dd[data-field=\"%s\"] .val') || {}).textContent" % k)
    check("why_live: kind", field("kind") == "temporary", str(field("kind")))
    check("why_live: last user", field("last user") == "fusion.99", str(field("last user")))
    # written with the memory/1 names of before the split: still read
    check("why_live: at schedule step", field("at schedule step") == "31", str(field("at schedule step")))
    check("why_live: its scope (escaped in the data)", field("its scope") == "jit(f)/layer_3/<mlp>", str(field("its scope")))
    check("why_live: waits", field("waits") == "9 schedule steps after the peak", str(field("waits")))
    chain = p.js("Array.from(document.querySelectorAll('#why-live .chain li')).map(e => e.textContent)")
    check("why_live: chain", chain == buf["why_live"]["chain"], str(chain))
    rows = p.js("document.querySelectorAll('#last-users tr').length")
    check("peak_by_last_user table", rows == 2, str(rows))
    shot(b, out, "report-why-live")


def test_split(b, path):
    """memory --split: the what-if row first, with the re-simulated peak."""
    p = Page(b, path)
    p.open("view=memory")
    p.clean("--split")
    row = p.js("Array.from(document.querySelectorAll('#splits tr')[1].children).map(e => e.textContent)")
    check("memory --split: the what-if row", row == ["multiply.24 (--split)", "÷ 4", "17.6 MiB", "3.00 MiB"], str(row))
    said = p.js("(document.getElementById('whatif-assumptions') || {}).textContent || ''")
    check("memory --split: the page says what the estimate assumes",
          said.startswith("--split: multiply.24 dimension 0 (") and
          "the same schedule and buffer assignment" in said and "one at a time" in said, said)


def test_warnings(b, path, doc, out):
    p = Page(b, path)
    p.open("view=summary")
    p.clean("warnings")
    shown = p.js("Array.from(document.querySelectorAll('#warnings li')).map(e => e.textContent)")
    check("summary shows the report's warnings", shown == doc["warnings"] and len(shown) == 2, str(shown))
    over = p.js("document.getElementById('summary-cores').textContent")
    check("summary says a core is over capacity", "over by" in over, over)
    shot(b, out, "report-warnings")


def test_debug_print(b, path, doc, out):
    """testdata/debug-print: the fired debug-print line, then each host
    over 5% with its figure (host0 6.0%, over 4 steps; host1's 1.5% is
    under and not listed)."""
    p = Page(b, path)
    p.open("view=summary")
    fired = p.js("Array.from(document.querySelectorAll('#summary-advice-fired li')).map(e => e.textContent)")
    check("debug-print fired line", fired == [a["text"] for a in doc["advice"] if a["verdict"] == "fired"]
          and any(t.startswith("debug-print: ") for t in fired), str(fired))
    hosts = p.js("Array.from(document.querySelectorAll('#summary-advice-hosts li')).map(e => e.textContent)")
    check("debug-print hosts over the limit with their figures",
          hosts == ["debug-print: host0 6.0% of step time (mean of 4 step(s) with debug_print events)"], str(hosts))
    p.js("document.getElementById('summary-advice').scrollIntoView()")
    shot(b, out, "report-debug-print")


def test_many_steps(b, path, doc, tpuprof_bin, out):
    """testdata/many-steps: 150 steps a core, rows left out (step_rows):
    a summary row per core with its steady step, a line saying the rows
    were left out, no chart, and the steps-across line as `ops` text
    prints it, from steps_across_summary alone."""
    p = Page(b, path)
    p.open("view=summary")
    cores = doc["ops"]["cores"]
    check("many steps: the rows left out", all(c["step_rows"] == "left_out" and c["steps"] is None for c in cores),
          [c["step_rows"] for c in cores])
    rows = p.js("document.querySelectorAll('#summary-steps-cores tr').length")
    check("many steps: a summary row per core", rows == len(cores) + 1, rows)
    got = p.js("Array.from(document.querySelectorAll('#summary-steps-cores tr')).slice(1)"
               ".map(r => r.children[5].textContent)")
    want = [p.js("fmtPs(%d)" % c["steady"]["step_ps"]) for c in cores]
    check("many steps: each core's steady step as the JSON", got == want, "%r != %r" % (got, want))
    left = p.js("(document.getElementById('summary-steps-left-out') || {}).textContent")
    check("many steps: a line says the rows are left out", bool(left) and left.startswith("%d core(s)" % len(cores)), left)
    check("many steps: no chart without rows", p.js("document.getElementById('summary-steps-chart')") is None)
    ops_text = run(tpuprof_bin, "ops", "-q", "testdata/many-steps.xplane.pb").decode()
    want = re.search(r"^(steps across cores: .*)$", ops_text, re.M).group(1)
    got = p.js("document.getElementById('summary-steps-across').textContent")
    check("many steps: steps across cores line as ops text", got == want, "%r vs %r" % (got, want))
    shot(b, out, "report-many-steps")


def first_pixel(png_path, x=4):
    """RGB of pixel (x, 0) of an 8-bit RGB or RGBA PNG (row 0 needs no
    earlier row to unfilter)."""
    import struct
    import zlib
    data = open(png_path, "rb").read()
    pos, idat, width, ctype = 8, b"", 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, _, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(idat)
    filt, row = raw[0], bytearray(raw[1:1 + width * bpp])
    if filt in (1, 3, 4):  # Sub, Average, Paeth: the left neighbour (above is 0)
        for i in range(bpp, len(row)):
            left = row[i - bpp]
            row[i] = (row[i] + (left if filt != 3 else left // 2)) & 0xFF
    return tuple(row[x * bpp:x * bpp + 3])


def test_firefox(pages, out):
    """Firefox, when installed: the page renders with its header and no
    error banner (the banner is what any script error shows). The check is
    proven able to fail by a page whose data are broken."""
    import shutil
    ff = shutil.which("firefox-esr") or shutil.which("firefox")
    if not ff:
        print("html: firefox not installed; its check skipped")
        return
    home = os.path.join(out, "firefox-home")
    os.makedirs(home, exist_ok=True)
    broken = os.path.join(out, "broken.html")
    text = open(pages["report"], encoding="utf-8").read()
    text = re.sub(r'(id="tp-data">).*?(</script>)', lambda m: m.group(1) + "{" + m.group(2), text, count=1, flags=re.S)
    open(broken, "w", encoding="utf-8").write(text)

    def shoot(path, fragment, png):
        subprocess.run([ff, "--headless", "--window-size=1400,900", "--screenshot", os.path.abspath(png),
                        "file://" + os.path.abspath(path) + "#" + fragment],
                       env=dict(os.environ, HOME=os.path.abspath(home)), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=120)
        return first_pixel(png)

    header, banner = (246, 248, 250), (253, 231, 233)
    for view in ("memory", "ops"):
        png = os.path.join(out, "firefox-%s.png" % view)
        px = shoot(pages["report-tpu"], "view=" + view, png)
        check("firefox: %s view renders, no error banner" % view, px == header, str(px))
    px = shoot(broken, "view=memory", os.path.join(out, "firefox-broken.png"))
    check("firefox: a broken page shows the error banner", px == banner, str(px))


def test_diff(b, path, diff, out):
    p = Page(b, path)
    p.open()
    p.clean("diff")
    shot(b, out, "diff")
    towers = p.js("document.querySelectorAll('.diff-towers svg').length")
    check(p.name + " both towers", towers == 2, str(towers))
    # the bands of buffers that appeared in B (or left A) are marked, as
    # the peak_buffers rows of the module pair say
    mod = p.js("DiffView.pairs[DiffView.pair].module")
    rows = [r for r in diff["sections"]["peak_buffers"]["rows"] if r["module"] == mod]
    # a name as the memory pages print it: NAME{i} for an element of a
    # tuple output, NAME{} for a tuple itself (a tuple shape, no index)
    def printed(r, key, shape):
        if r["shape_index"]:
            return r[key] + "{%s}" % ",".join(map(str, r["shape_index"]))
        return r[key] + ("{}" if (r[shape] or "").startswith("(") else "")
    for side, change, key, shape in (("B", "appeared", "instruction_b", "shape_b"),
                                     ("A", "disappeared", "instruction_a", "shape_a")):
        want = sorted(printed(r, key, shape) for r in rows if r["change"] == change)
        got = sorted(p.js("Array.from(document.querySelectorAll('#diff-tower-%s .band[data-change=%s]')).map(e => e.dataset.name)"
                          % (side, change)))
        check("%s tower %s marks the buffers that %s" % (p.name, side, change), got == want and len(want) > 0,
              "%s vs %s" % (got, want))
    rows = [r for r in diff["sections"]["ops"]["rows"] if r["change"] != "unchanged"]
    shown = p.js("document.querySelectorAll('#diff-ops tr.row').length")
    check(p.name + " every changed op", shown == len(rows), "%s != %s" % (shown, len(rows)))
    # every section is labelled in words (its title), never by its JSON
    # key, and every value is in its section's unit: FLOP utilization (ppb
    # of the peak) reads as a percentage, as text does, never as bytes
    cells = p.js("Array.from(document.querySelectorAll('#diff-totals tr[data-section]')).map("
                 "tr => [tr.dataset.section].concat(Array.from(tr.cells).map(c => c.textContent)))")
    for row in cells:
        key, label, a, b_ = row[0], row[1], row[2], row[3]
        sec = diff["sections"][key]
        check("%s totals: %s labelled by its title" % (p.name, key), label == sec["title"] and "_" not in label, label)
        if sec["unit"] == "ppb":
            want = [text_ppb(sec["totals"][x]) for x in ("a", "b")]
            check("%s totals: %s in %% of the peak" % (p.name, key), [a, b_] == want, "%s vs %s" % ([a, b_], want))
    check(p.name + " totals: every section", sorted(r[0] for r in cells) == sorted(diff["sections"]), str(cells))
    # red marks B worse: more bytes or time, but less FLOP utilization or headroom
    for key in ("cores_flop_utilization", "ops"):
        d = diff["sections"][key]["totals"]["delta"]
        cls = p.js("document.querySelector('#diff-totals tr[data-section=%s] span').className" % key)
        want = ("delta-down" if d > 0 else "delta-up") if key == "cores_flop_utilization" else ("delta-up" if d > 0 else "delta-down")
        check("%s totals: %s change (%+d) coloured %s" % (p.name, key, d, want), d != 0 and cls == want, cls)
    names = p.js("Array.from(document.querySelectorAll('details.section tr.row')).map(tr => tr.cells[0].textContent)")
    check(p.name + " every changed row named", len(names) > 0 and all(names), str(names[:5]))
    util = p.js("Array.from(document.querySelectorAll('#diff-cores_flop_utilization tr.row td.num')).map(c => c.textContent)")
    check(p.name + " FLOP utilization rows in %", len(util) > 0 and all(re.search(r"%$|^–$", u) and "B" not in u for u in util), str(util))


def text_ppb(v):
    """A ppb value as the text diff prints it (%.3g%%)."""
    return "–" if v is None else ("%.3g%%" % (v / 1e7))


OOM_LOGS = ["../shared/oom-reports/01-tpu-v3-tf1-detection-au2018.log",
            "../shared/oom-reports/28-tpu-v2-ptxla-runtime-reserve-table.log"]


def test_oom(b, path, doc, out):
    """The oom page: a section per report, the tower of listed
    allocations, the pinned card with a copy button per field, the scope
    roll-up."""
    p = Page(b, path)
    p.open("view=oom")
    p.clean("oom")
    n = p.js("document.querySelectorAll('.oom-report').length")
    check(p.name + " a section per report", n == doc["reports_count"], "%s != %s" % (n, doc["reports_count"]))
    r = doc["reports"][0]
    verdict = p.js("document.querySelector('#oom-report-1 .verdict').textContent")
    check(p.name + " verdict", verdict == "The program needs 17.60G of 16.00G hbm: over by 1.60G", verdict)
    bands = p.js("document.querySelectorAll('#oom-report-1 .oom-tower .band').length")
    check(p.name + " a band per listed allocation", bands == len(r["allocations"]), "%s != %s" % (bands, len(r["allocations"])))
    p.js("document.querySelector('#oom-report-1 .oom-tower .band[data-index=\"0\"]').dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    fields = p.js("Array.from(document.querySelectorAll('#oom-report-1 .oom-card dd')).map(d => [d.dataset.field, d.querySelector('.val').textContent, d.querySelectorAll('button.copy').length])")
    got = {f: v for f, v, _ in fields}
    check(p.name + " pinned card: shape, tiles, padded dimensions, instruction",
          got.get("shape") == r["allocations"][0]["shape"] and got.get("tiles") == "T(8,128)"
          and got.get("padded dimensions") == "dim 3 (9) \u2192 16, dim 4 (18) \u2192 128"
          and got.get("instruction") == "fusion.1668" and got.get("op name") == "one_hot", str(got))
    check(p.name + " a copy button per card field", all(c == 1 for _, _, c in fields) and len(fields) >= 10, str(fields))
    pinned = p.js("document.querySelectorAll('#oom-report-1 .oom-tower .band.pinned').length")
    check(p.name + " the clicked band is pinned", pinned == 1, str(pinned))
    rows = p.js("document.querySelectorAll('#oom-report-1 .oom-scopes tr').length") - 1
    check(p.name + " a row per name scope", rows == len(r["scopes"]), "%s != %s" % (rows, len(r["scopes"])))
    shot(b, out, "oom")


ALL_OOM = sorted(glob.glob("../shared/oom-reports/*.log"))
TEXT_ALLOC = re.compile(r"^ {4}[ \d]\d\. (\S+)\s+(.*?)(?: \(entry parameter subshape\))?$")


def text_allocs(tpuprof):
    """Per report of `oom` over every shared log: [(rank, size, shape)]."""
    out, cur = [], None
    for line in run(tpuprof, "oom", *ALL_OOM).decode().split("\n"):
        if line.startswith("report "):
            cur = []
            out.append(cur)
        m = TEXT_ALLOC.match(line)
        if m and cur is not None:
            cur.append((int(line.split(".")[0]), m.group(1), m.group(2)))
    return out


def test_oom_agree(b, path, doc, tpuprof):
    """Text, JSON and HTML carry the same figures: every listed allocation
    of every shared report (rank, size, shape or entry parameter subshape)
    alike in the three; the cause before the verdict; the budget bar; the
    figures named in words; lower bounds not below the overage."""
    p = Page(b, path)
    p.open("view=oom")
    p.clean("oom (all shared)")
    texts = text_allocs(tpuprof)
    for i, r in enumerate(doc["reports"]):
        n = len(r["allocations"])
        cut = "last_allocation_details" in r["missing"]
        js = [(a["rank"], a["size"]["text"], a["shape"] or a["entry_parameter_subshape"] or
               ("(the entry is cut off here)" if cut and k == n - 1 else "(shape not printed)"))
              for k, a in enumerate(r["allocations"])]
        html = p.js("Array.from(document.querySelectorAll('#oom-report-%d .oom-tower .band title')).map(t => t.textContent)" % (i + 1))
        html = [(int(h.split(" ")[0][1:]), h.split(" ")[1], h.split(" ", 2)[2]) for h in html]
        check("oom %s: text = JSON = HTML allocations" % os.path.basename(r["input"]),
              texts[i] == js == html, "%s | %s | %s" % (texts[i], js, html))
        cut = p.js("Array.from(document.querySelectorAll('#oom-report-%d li')).map(l => l.textContent).join(' ')" % (i + 1))
        m = re.search(r"Cut at least ([\d.]+) (\w+)", cut)
        if r["verdict"]["over_by_bytes"] and r["verdict"]["over_by_bytes"] > 0:
            unit = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
            got = m and float(m.group(1)) * unit[m.group(2)]
            check("oom %s: HTML 'cut at least' not below the overage" % os.path.basename(r["input"]),
                  # the byte count comes from printed sizes each rounded to a
                  # whole byte: that rounding (up to 2 bytes) makes no digit
                  # (report 31: 4.57 GiB is 4,907,000,135.68 bytes, held as
                  # 4,907,000,136), as check_oom_variants.py allows
                  got and got >= r["verdict"]["over_by_bytes"] - 2, "%s < %s" % (m and m.group(0), r["verdict"]["over_by_bytes"]))
    k = [i for i, r in enumerate(doc["reports"]) if "14-tpu-v3" in r["input"]][0] + 1
    order = p.js("Array.from(document.querySelectorAll('#oom-report-%d > p')).map(e => e.className)" % k)
    cause = p.js("document.querySelector('#oom-report-%d .oom-cause').textContent" % k)
    check("oom 14: the cause first, naming the arguments", order[:2] == ["oom-cause", "verdict"] and
          cause.startswith("Cause: The arguments alone (15.90G) exceed the capacity (15.48G)"), "%s %s" % (order, cause))
    parts = p.js("Array.from(document.querySelectorAll('#oom-report-%d .oom-budget .budget-part')).map(r => r.dataset.figure)" % k)
    line = p.js("document.querySelectorAll('#oom-report-%d .oom-budget .budget-line').length" % k)
    check("oom 14: the budget bar: reservation, arguments, output, program parts and the capacity line",
          parts == ["reserved", "arguments", "output", "global", "scoped", "hlo_temp"] and line == 1, "%s %s" % (parts, line))
    k28 = [i for i, r in enumerate(doc["reports"]) if "28-tpu-v2" in r["input"]][0] + 1
    both = p.js("document.querySelector('#oom-report-%d .oom-disagree').textContent" % k28)
    check("oom 28: both shortfalls shown, and which is used", both.startswith(
        "Two figures disagree: the HBM capacity table's 'Available after request' gives 2.55G, the request "
        "less 'reservable' gives 2.03 GiB; tpuprof uses the first"), both)
    names = p.js("Array.from(document.querySelectorAll('#oom-report-%d .oom-figures td:first-child')).map(t => t.textContent)" % k)
    check("oom 14: figures named in words, not JSON keys", "runtime reservation" in names and
          not any("_" in n for n in names), str(names))


def main():
    tpuprof, gen, out = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    if not cdp.find_chromium():
        raise SystemExit("html: chromium not found (sh tests/install_deps.sh installs it)")
    pages = {
        "report": page(tpuprof, out, "report", "report", "testdata/small.xplane.pb"),
        "report-hbm": page(tpuprof, out, "report-hbm", "report", "--hbm", "22MiB", "testdata/small.xplane.pb"),
        "report-tpu": page(tpuprof, out, "report-tpu", "report", TPU4),
        "report-debug-print": page(tpuprof, out, "report-debug-print", "report", "testdata/debug-print"),
        "report-many-steps": page(tpuprof, out, "report-many-steps", "report", "testdata/many-steps.xplane.pb"),
        "memory": page(tpuprof, out, "memory", "memory", CONV),
        "memory-split": page(tpuprof, out, "memory-split", "memory", "--split", "multiply.24:4", "testdata/small.xplane.pb"),
        "ops": page(tpuprof, out, "ops", "ops", "testdata/small.xplane.pb"),
        "diff": page(tpuprof, out, "diff", "diff", "testdata/small.xplane.pb", "testdata/diff-b.xplane.pb"),
        "oom": page(tpuprof, out, "oom", "oom", *OOM_LOGS),
        "oom-all": page(tpuprof, out, "oom-all", "oom", *ALL_OOM),
    }
    big = os.path.join(out, "ops-100k.xplane.pb")
    if not os.path.exists(big):
        subprocess.run([gen, "--cores", "2", "--programs", "10", "--steps", "10", "--instructions", "5000",
                        "--fusions", "20", "--events-per-line", "60000", "--memory-events", "50", "-o", big],
                       check=True, stdout=subprocess.DEVNULL)
    pages["ops-100k"] = page(tpuprof, out, "ops-100k", "ops", big)
    for name, path in pages.items():
        size = static_checks(path)
        if name == "report":
            check("report page stays small (%d bytes)" % size, size < 400000)
        if name == "ops-100k":
            check("100,000 ops page stays under 30 MB (%d bytes)" % size, size < 30 << 20)
    # the page holds the very documents --format json writes
    rep = data_of(pages["report"])["report"]
    want = json_of(tpuprof, "report", "testdata/small.xplane.pb")
    d = same(rep, want)
    check("report page data = report --format json", d is None, d)
    ops_page = data_of(pages["ops"])
    # the page sums over cores itself: no core_groups in its data
    d = same(ops_page["ops"], {k: v for k, v in json_of(tpuprof, "ops", "testdata/small.xplane.pb").items() if k != "core_groups"})
    check("ops page data = ops --format json", d is None, d)
    d = same(ops_page["op_scopes"], {k: v for k, v in json_of(tpuprof, "ops", "--by", "scope", "testdata/small.xplane.pb").items()
                                     if k not in ("cores", "steps_across_summary", "steps_across", "core_groups")})
    check("ops page op_scopes = ops --by scope --format json without cores (nor steps across them)", d is None, d)
    d = same(ops_page["collectives"], json_of(tpuprof, "collectives", "testdata/small.xplane.pb"))
    check("ops page collectives = collectives --format json", d is None, d)
    d = same(data_of(pages["memory"])["memory"], json_of(tpuprof, "memory", CONV))
    check("memory page data = memory --format json", d is None, d)
    d = same(data_of(pages["oom"])["oom"], json_of(tpuprof, "oom", *OOM_LOGS))
    check("oom page data = oom --format json", d is None, d)
    b = cdp.Browser()
    try:
        test_oom(b, pages["oom"], json_of(tpuprof, "oom", *OOM_LOGS), out)
        test_oom_agree(b, pages["oom-all"], json_of(tpuprof, "oom", *ALL_OOM), tpuprof)
        test_report(b, pages["report"], json_of(tpuprof, "report", "testdata/small.xplane.pb"), out, "report",
                    tpuprof, ["testdata/small.xplane.pb"])
        test_report(b, pages["report-tpu"], json_of(tpuprof, "report", TPU4), out, "report-tpu", tpuprof, [TPU4])
        test_rounding(b, pages["report-tpu"], json_of(tpuprof, "report", TPU4))
        test_why_live(b, pages["report"], out)
        test_debug_print(b, pages["report-debug-print"], json_of(tpuprof, "report", "testdata/debug-print"), out)
        test_many_steps(b, pages["report-many-steps"], json_of(tpuprof, "report", "testdata/many-steps.xplane.pb"),
                        tpuprof, out)
        test_split(b, pages["memory-split"])
        test_warnings(b, pages["report-hbm"], json_of(tpuprof, "report", "--hbm", "22MiB", "testdata/small.xplane.pb"), out)
        test_memory_page(b, pages["memory"], json_of(tpuprof, "memory", CONV), out, "memory")
        test_ops_page(b, pages["ops"], json_of(tpuprof, "ops", "testdata/small.xplane.pb"), out, "ops")
        test_ops_page(b, pages["ops-100k"], json_of(tpuprof, "ops", big), out, "ops-100k", budget_s=15)
        test_diff(b, pages["diff"], json_of(tpuprof, "diff", "testdata/small.xplane.pb", "testdata/diff-b.xplane.pb"), out)
    finally:
        b.close()
    test_firefox(pages, out)
    print("html: %d passed, %d failed (screenshots in %s)" % (passed, failed, out))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
