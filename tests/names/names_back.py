#!/usr/bin/env python3
"""Every buffer name tpuprof prints is taken back as printed (issue 39).

For each capture: the names `check`, `report` and `memory` print, in text
and JSON (check's "largest:" contributors, report's buffers at the peak,
memory's live buffers, its split suggestions and their JSON names), each
fed back into `memory --why NAME` and `memory --split NAME:1`. A name is
taken back when --why exits 0 and --split exits 0 or refuses only the
split itself (a scalar or tuple has no dimension to split), never the name.
The same for modules (memory's and report's JSON, into `memory --module`
and `ops --module`) and name scopes (report's text and memory's JSON, into
`check --scope`, which exits 0 or 1, or 3 naming the scope where it has
nothing to measure; never 2).

    python3 tests/names/names_back.py build/tpuprof
Captures of ../shared are skipped (and said so) where it is absent.
"""
import json
import os
import re
import subprocess
import sys

S = "../shared/captures/"
CAPTURES = [
    S + "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb",
    S + "gpu-mi300x-jax-attention/tw003.xplane.pb",
    S + "gpu-mi300x-jax-elementwise/tw003.xplane.pb",
    S + "gpu-mi300x-jax-gemm/tw003.xplane.pb",
    S + "gpu-mi300x8-jax-conv3d/tw003.xplane.pb",
    S + "gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb",
    "testdata/small.xplane.pb",
    "testdata/jit_train_step.hlo_proto.pb",
    "testdata/multi-trace.hlo_proto.pb",
    "testdata/xla-dump",
]
SIZE = r"[\d.]+ (?:B|KiB|MiB|GiB|TiB)"
CATEGORY = r"(?:Parameter|Output|Thread-local|Constant|Temporary)"
# text: check's contributors, report's peak rows, memory's rows and splits
TEXT = {
    "check": re.compile(r"(?:; largest: |, )buffer (\S+) " + SIZE),
    "report": re.compile(r"^ +" + SIZE + r" +[\d.]+%  buffer (\S+) ", re.M),
    "memory": re.compile(r"^ +" + SIZE + r" +" + CATEGORY + r" +(\S+)|^ +(?:or )?split (\S+) ", re.M),
}
ARGS = {"check": ["--max-peak", "1B"], "report": [], "memory": []}


def run(tpuprof, argv):
    p = subprocess.run([tpuprof] + argv, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def json_names(cmd, doc):
    """Buffer names in a JSON document: contributors, live buffers, splits."""
    if cmd == "check":
        return {c["name"] for r in doc["results"] for c in r.get("contributors") or []
                if c["kind"] == "buffer"}
    mem = doc["memory"] if cmd == "report" else doc
    out = set()
    for m in mem["modules"]:
        # display_name is the buffer; instruction is its defining
        # instruction, which a tuple of several elements does not name
        for b in m["live_at_peak"]:
            out.add(b["display_name"])
        for s in m["suggestions"] + ([m["what_if"]] if m["what_if"] else []):
            out.add(s["name"])
    return out


def names_of(tpuprof, cap):
    names = {}
    for cmd, rx in TEXT.items():
        rc, out, err = run(tpuprof, [cmd, cap] + ARGS[cmd])
        if rc not in (0, 1):
            raise SystemExit("FAIL %s %s: exit %d: %s" % (cmd, cap, rc, err.strip()))
        for m in rx.finditer(out):
            names.setdefault(next(g for g in m.groups() if g), "%s text" % cmd)
        rc, out, err = run(tpuprof, [cmd, cap, "--format", "json"] + ARGS[cmd])
        for n in json_names(cmd, json.loads(out)):
            names.setdefault(n, "%s json" % cmd)
    return names


def modules_and_scopes(tpuprof, cap):
    """Module names and name scopes the report and memory print: scopes of
    the peak (checked with a memory rule) and of op time (with the
    collective rule: a scope without collectives then exits 3 naming the
    scope it found, "no collective to measure under scope 'S'", never 0
    with nothing checked)."""
    mods, scopes = set(), {}
    _, out, _ = run(tpuprof, ["memory", cap, "--format", "json"])
    for m in json.loads(out)["modules"]:
        mods.add(m["name"])
        for s in m["scopes"]:
            if s["path"]:
                scopes[s["path"]] = ["--max-peak", "1TiB"]
    _, out, _ = run(tpuprof, ["report", cap])
    for m in re.finditer(r"^ +\S+ \S+ +[\d.]+%  scope (.+)$", out, re.M):
        if m.group(1) != "(no scope)":
            scopes.setdefault(m.group(1), ["--max-collective-bytes", "1TiB"])
    return mods, scopes


def check_modules_scopes(tpuprof, cap):
    fails = checked = 0
    mods, scopes = modules_and_scopes(tpuprof, cap)
    for m in sorted(mods):
        for cmd in ("memory", "ops"):
            checked += 1
            rc, _, err = run(tpuprof, [cmd, cap, "--module", m])
            if rc != 0:
                fails += 1
                print("FAIL %s: module '%s': %s --module exit %d: %s" % (cap, m, cmd, rc, err.strip()))
    for s, rule in sorted(scopes.items()):
        checked += 1
        rc, _, err = run(tpuprof, ["check", cap, "--scope", s] + rule)
        found = rc == 3 and ("no collective to measure under scope '%s'" % s) in err
        if rc not in (0, 1) and not found:
            fails += 1
            print("FAIL %s: scope '%s': check --scope exit %d: %s" % (cap, s, rc, err.strip()))
    return fails, checked


def main():
    tpuprof = sys.argv[1]
    fails = checked = 0
    skipped = [c for c in CAPTURES if not os.path.exists(c)]
    for cap in CAPTURES:
        if cap in skipped:
            continue
        f, n = check_modules_scopes(tpuprof, cap)
        fails, checked = fails + f, checked + n
        for name, where in sorted(names_of(tpuprof, cap).items()):
            checked += 1
            rc, _, err = run(tpuprof, ["memory", cap, "--why", name])
            if rc != 0:
                fails += 1
                print("FAIL %s: '%s' (printed by %s): --why exit %d: %s" % (cap, name, where, rc, err.strip()))
            rc, _, err = run(tpuprof, ["memory", cap, "--split", name + ":1"])
            if rc != 0 and "has no dimension to split" not in err:
                fails += 1
                print("FAIL %s: '%s' (printed by %s): --split exit %d: %s" % (cap, name, where, rc, err.strip()))
    if skipped:
        print("names: skipped %d captures of ../shared (absent)" % len(skipped))
    print("names: %d names (buffers, modules, scopes) taken back, %d failed" % (checked, fails))
    return 1 if fails or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
