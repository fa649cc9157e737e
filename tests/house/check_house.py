#!/usr/bin/env python3
"""The house rules of issue 14, checked on the whole tree.

usage: check_house.py BUILD_DIR

- no C file under src/ over 500 lines; no folder with more than 15 C files;
- calls between files, read from the objects' symbol tables (nm): which
  file defines each function or variable another file uses;
- no loop of calls between two modules, where a module is a folder (files
  of one folder are one module with one private header);
- every call points down the layers below (a module may use its own layer
  and the layers under it, never one above), and fetch uses nothing above
  decode;
- the top of the tree holds what the brief names (Makefile, README.md,
  src/, proto/, include/, tests/, testdata/, docs/, .ci/) and the shell
  completions, nothing else tracked by git (a stray output committed
  by mistake is caught here);
- public headers sit in the folder of their layer (include/tpuprof/util/,
  decode/, device/, analyze/common/, analyze/, fetch/, report/: the layers
  of src/), each declaring only what its layer defines, and no #include
  points up the layers.
"""
import re
import os
import subprocess
import sys
from collections import defaultdict

# Layers, lowest first. A module is a folder under src/; its layer is the
# first prefix that matches.
LAYERS = [
    ("util", ["src/util"]),
    ("decode", ["src/decode"]),
    ("device", ["src/device"]),
    ("analyze/common", ["src/analyze/common"]),
    ("analyze", ["src/analyze"]),
    ("fetch", ["src/fetch"]),
    ("report", ["src/report"]),
    ("cli", ["src/cli"]),
]
# What each layer may use besides itself (its own modules may not loop).
ALLOWED = {
    "util": set(),
    "decode": {"util"},
    "device": {"util"},
    "analyze/common": {"util", "decode", "device"},
    "analyze": {"util", "decode", "device", "analyze/common"},
    "fetch": {"util", "decode"},
    "report": {"util", "decode", "device", "analyze/common", "analyze", "fetch"},
    "cli": {"util", "decode", "device", "analyze/common", "analyze", "fetch", "report"},
}
MAX_LINES = 500
MAX_FILES = 15


def layer_of(module):
    for name, prefixes in LAYERS:
        for p in prefixes:
            if module == p or module.startswith(p + "/"):
                return name
    return None


def c_files():
    out = []
    for root, _, files in os.walk("src"):
        for f in files:
            if f.endswith(".c"):
                out.append(os.path.join(root, f))
    return sorted(out)


def symbols(obj):
    text = subprocess.run(["nm", obj], capture_output=True, text=True,
                          check=True).stdout
    defined, used = set(), set()
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBR":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


DECL = re.compile(r"^[a-z].*?\b(tp_[a-z0-9_]+)\s*\(", re.M)
INCLUDE = re.compile(r'^#include "tpuprof/([a-z0-9_/]+\.h)"', re.M)


def header_layer(h):
    """A public header's layer is its folder, named as under src/:
    include/tpuprof/analyze/common/shape.h is analyze/common's."""
    folder = os.path.dirname(h)
    return layer_of("src/" + folder) if folder else None


def public_headers():
    out = []
    for root, _, files in os.walk("include/tpuprof"):
        out += [os.path.join(root, f) for f in files if f.endswith(".h")]
    return sorted(out)


def include_problems(owner):
    """Every public header sits in the folder of its layer, and the
    functions it declares are defined in that layer (so the folder tells
    the truth); no file includes a header of a layer it may not use."""
    problems = []
    users = [(f, layer_of(os.path.dirname(f))) for f in c_files()]
    for root, _, files in os.walk("src"):
        users += [(os.path.join(root, f), layer_of(root))
                  for f in files if f.endswith(".h")]
    for path in public_headers():
        rel = os.path.relpath(path, "include/tpuprof")
        layer = header_layer(rel)
        if layer is None:
            problems.append(f"{path}: not in a layer folder (include/tpuprof/<layer>/, "
                            "the layers of src/)")
            continue
        users.append((path, layer))
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        for name in DECL.findall(text):
            f = owner.get(name)
            fl = f and layer_of(os.path.dirname(f))
            if fl and fl != layer:
                problems.append(f"{path} declares {name}, defined in {f}: "
                                f"a header of layer {fl}")
    for path, layer in sorted(users):
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        for h in INCLUDE.findall(text):
            lh = header_layer(h)
            if lh is None:
                problems.append(f"{path} includes tpuprof/{h}: not in a layer folder")
            elif lh != layer and lh not in ALLOWED[layer]:
                problems.append(f"upward include: {path} ({layer}) includes "
                                f"tpuprof/{h} ({lh})")
    return problems


def loops(edges):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, sccs = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(set(edges) | {d for ds in edges.values() for d in ds}):
        if v not in index:
            visit(v)
    return sccs


# Loops of calls between the files of one folder that are not yet broken
# (issue 24): each is a main file and helpers that call back into it. The
# list may only shrink: a new loop fails, and so does a listed one that is
# gone (take it off the list). Empty since issue 24 broke the last ones:
# kept so that a loop found later is listed here, never waved through.
KNOWN_FILE_LOOPS = []


def file_loop_problems(owner, uses):
    """Inside a folder, calls point one way too: the main file calls its
    helpers, the helpers call a shared file, nothing calls back."""
    edges = defaultdict(set)
    why = {}
    for f, used in uses.items():
        for s in used:
            g = owner.get(s)
            if g and g != f and os.path.dirname(g) == os.path.dirname(f):
                edges[f].add(g)
                why.setdefault((f, g), f"{os.path.basename(f)} uses {s} "
                                       f"from {os.path.basename(g)}")
    problems = []
    found = loops(edges)
    known = [sorted(k) for k in KNOWN_FILE_LOOPS]
    for comp in found:
        if comp in known:
            continue
        detail = "; ".join(why[(a, b)] for a in comp for b in comp
                           if (a, b) in why)
        problems.append("loop between files " + ", ".join(comp) + ": " + detail)
    for k in known:
        if k not in found:
            problems.append("no longer a loop (take it off KNOWN_FILE_LOOPS): "
                            + ", ".join(k))
    return problems


# What the top of the tree may hold (tracked files and folders).
TOP_LEVEL = {".ci", ".gitignore", "Makefile", "README.md", "completions",
             "docs", "include", "proto", "src", "testdata", "tests"}


def top_level_problems():
    """Tracked entries at the top that the brief does not name."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], capture_output=True,
                             check=True).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        return []   # not a git checkout (a tarball): nothing to tell
    tops = {f.split("/", 1)[0] for f in out.split("\0") if f}
    return [f"{t}: at the top of the tree (only {', '.join(sorted(TOP_LEVEL))})"
            for t in sorted(tops - TOP_LEVEL)]


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    problems = top_level_problems()
    files = c_files()
    per_folder = defaultdict(int)
    for f in files:
        per_folder[os.path.dirname(f)] += 1
        with open(f, encoding="utf-8") as fh:
            n = sum(1 for _ in fh)
        if n > MAX_LINES:
            problems.append(f"{f}: {n} lines (at most {MAX_LINES})")
    for folder, n in sorted(per_folder.items()):
        if n > MAX_FILES:
            problems.append(f"{folder}/: {n} C files (at most {MAX_FILES})")

    owner = {}
    uses = {}
    for f in files:
        obj = os.path.join(build, f[:-2] + ".o")
        if not os.path.exists(obj):
            problems.append(f"{obj}: missing (build first)")
            continue
        defined, used = symbols(obj)
        for s in defined:
            owner[s] = f
        uses[f] = used
    edges = defaultdict(set)   # module -> modules it uses
    why = {}
    for f, used in uses.items():
        mod = os.path.dirname(f)
        for s in used:
            g = owner.get(s)
            if g is None:
                continue
            dep = os.path.dirname(g)
            if dep != mod:
                edges[mod].add(dep)
                why.setdefault((mod, dep), f"{f} uses {s} from {g}")

    for mod, deps in sorted(edges.items()):
        lm = layer_of(mod)
        if lm is None:
            problems.append(f"{mod}/: no layer (add it to tests/house/check_house.py)")
            continue
        for dep in sorted(deps):
            ld = layer_of(dep)
            if ld != lm and ld not in ALLOWED[lm]:
                problems.append(f"upward: {why[(mod, dep)]} ({lm} may not use {ld})")

    # Loops between modules (strongly connected components of size > 1).
    for comp in loops(edges):
        detail = "; ".join(why[(a, b)] for a in comp for b in comp
                           if (a, b) in why)
        problems.append("loop between " + ", ".join(comp) + ": " + detail)
    problems += file_loop_problems(owner, uses)

    problems += include_problems(owner)
    for p in problems:
        print("house: " + p)
    if problems:
        print(f"house: {len(problems)} problem(s)")
        return 1
    print(f"house: {len(files)} C files in {len(per_folder)} folders; "
          f"{sum(len(d) for d in edges.values())} module dependencies, all downward")
    return 0


if __name__ == "__main__":
    sys.exit(main())
