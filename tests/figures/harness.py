"""The runs the figures contract walks: every capture, every analysis
command, each format it has, run once and shared by every invariant.

A Capture holds the outputs of one input: json(cmd), text(cmd) and
html(cmd) (the document the HTML page embeds in its tp-data script
block). Each run happens once, in parallel, before any invariant looks.
"""
import concurrent.futures
import json
import os
import re
import subprocess

S = "../shared/captures/"

# Every shared capture that decodes (SOURCES.md; the mangled copy is a
# decoder test, the Riegeli and XProf-JSON folders are no captures) and
# every test capture of testdata/.
CAPTURES = [
    ("tpu-v6e-4chip", S + "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb"),
    ("mi300x-attention", S + "gpu-mi300x-jax-attention/tw003.xplane.pb"),
    ("mi300x-elementwise", S + "gpu-mi300x-jax-elementwise/tw003.xplane.pb"),
    ("mi300x-gemm", S + "gpu-mi300x-jax-gemm/tw003.xplane.pb"),
    ("mi300x8-conv3d", S + "gpu-mi300x8-jax-conv3d/tw003.xplane.pb"),
    ("v100x8-tf", S + "gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb"),
    ("small", "testdata/small.xplane.pb"),
    ("diff-b", "testdata/diff-b.xplane.pb"),
    ("diff-longer", "testdata/diff-longer.xplane.pb"),
    ("collectives", "testdata/collectives.xplane.pb"),
    ("jax-gpu", "testdata/jax-gpu.xplane.pb"),
    ("tf-gpu", "testdata/tf-gpu.xplane.pb"),
    ("layout-b", "testdata/layout-b.xplane.pb.gz"),
    ("run-3hosts", "testdata/run-3hosts"),
    # one host of the three: its replica groups name the others' devices
    ("run-3hosts-host0", "testdata/run-3hosts/host0.xplane.pb"),
    ("jit_train_step", "testdata/jit_train_step.hlo_proto.pb"),
    ("multi-trace", "testdata/multi-trace.hlo_proto.pb"),
    ("xla-dump", "testdata/xla-dump"),
    ("debug-print", "testdata/debug-print"),
    # small's capture with two allocator events below zero (damaged_events)
    ("damaged-allocator", "testdata/corrupt/damaged-allocator.xplane.pb"),
]

# A clone without ../shared (the reference captures) runs the rest.
CAPTURES = [(n, p) for n, p in CAPTURES if os.path.exists(p)]

# Pairs for diff besides each capture against itself: two runs of one
# program, a longer run, and other programs on the same device kind.
DIFF_PAIRS = [
    ("small", "diff-b"),
    ("small", "diff-longer"),
    ("mi300x8-conv3d", "mi300x-attention"),
    ("mi300x-elementwise", "mi300x-gemm"),
]
DIFF_PAIRS = [(a, b) for a, b in DIFF_PAIRS if a in dict(CAPTURES) and b in dict(CAPTURES)]

# Command lines (after the command name), and the formats each has.
COMMANDS = {
    "report": ([], ("text", "json", "html")),
    "ops": (["--limit", "0"], ("text", "json", "html")),
    "memory": ([], ("text", "json", "html")),
    "collectives": ([], ("text", "json")),
    "fusions": ([], ("text", "json")),
    "info": ([], ("text", "json")),
    # limits every subject breaks, so that text prints every measured
    # figure; the rules that need a capacity or FLOPs are added where the
    # capture has them
    "check": (["--max-peak", "1B"], ("text", "json")),
}
# Runs of a command with other arguments, under their own name.
ALIASES = {"memory-s5": "memory", "ops-per-core": "ops", "memory-hbm": "memory",
           "memory-tight": "memory"}
COMMANDS["memory-hbm"] = (["--hbm", "80GiB"], ("json",))  # a capacity for dumps
# a capacity a dump's program does not fit: its "cut at least" (memory.md)
COMMANDS["memory-tight"] = (["--hbm", "8400000B"], ("text", "json"))
COMMANDS["memory-s5"] = (["--memory-space", "5"], ("json",))  # host memory (S(5))
COMMANDS["ops-per-core"] = (["--limit", "0", "--per-core"], ("text",))  # a table per core
NO_CAPACITY = {"jit_train_step", "multi-trace", "xla-dump"}
NO_FLOPS = NO_CAPACITY | {"mi300x-attention", "mi300x-elementwise", "mi300x-gemm",
                          "mi300x8-conv3d", "v100x8-tf", "jax-gpu", "tf-gpu"}


# captures with steps (GPU ones: inferred from the busiest program's
# kernels, or from group_id), where the debug-print advice is judged
WITH_STEPS = {"tpu-v6e-4chip", "v100x8-tf", "small", "diff-b", "diff-longer", "collectives", "layout-b",
              "run-3hosts", "run-3hosts-host0", "debug-print", "mi300x-attention", "mi300x-elementwise", "mi300x-gemm",
              "mi300x8-conv3d", "jax-gpu", "tf-gpu", "damaged-allocator"}


# captures without an XLA collective: --max-collective-bytes has nothing to
# measure there and exits 3 (docs/ci.md)
NO_COLLECTIVES = {"mi300x-attention", "mi300x-elementwise", "mi300x-gemm", "mi300x8-conv3d",
                  "v100x8-tf"}


# captures with steps on one core only: the straggler cannot be judged,
# and --max-straggler-spread exits 3 quoting why (docs/ci.md)
ONE_STEPPED_CORE = {"mi300x-attention", "mi300x-elementwise", "mi300x-gemm"}


def check_args(name):
    return ([] if name in NO_COLLECTIVES else ["--max-collective-bytes", "1B"]) + \
        ([] if name in NO_CAPACITY else ["--min-headroom", "100%"]) + \
        ([] if name in NO_FLOPS else ["--min-flops-utilization", "1"]) + \
        (["--max-debug-print-share", "0", "--max-step-time", "1ps"] if name in WITH_STEPS else []) + \
        (["--max-straggler-spread", "0%"] if name in WITH_STEPS - ONE_STEPPED_CORE else [])
DIFF_FORMATS = ("text", "json", "html")
# check exits 1 when a rule breaks and still writes its document
OK_EXIT = {"check": (0, 1)}

HTML_DATA = re.compile(r"<script[^>]*\bid=\"tp-data\"[^>]*>(.*?)</script>", re.S)


def unpack(v):
    """The page's data tables (src/report/html/html_pack.c) as objects."""
    if isinstance(v, list):
        return [unpack(x) for x in v]
    if isinstance(v, dict):
        if set(v) in ({"tp_columns", "tp_rows"}, {"tp_columns", "tp_rows", "tp_constants"}):
            # a column the same in every row is given once (html_pack.c)
            consts = v.get("tp_constants", {})
            kept = [k for k in v["tp_columns"] if k not in consts]
            rows = [dict(zip(kept, map(unpack, r))) for r in v["tp_rows"]]
            return [{k: (consts[k] if k in consts else o[k]) for k in v["tp_columns"]} for o in rows]
        return {k: unpack(x) for k, x in v.items()}
    return v


class RunError(Exception):
    pass


class Run:
    def __init__(self, argv, rc, out, err):
        self.argv, self.rc, self.out, self.err = argv, rc, out, err


def _run(tpuprof, argv):
    p = subprocess.run([tpuprof] + argv, capture_output=True)
    return Run(argv, p.returncode, p.stdout.decode("utf-8", "replace"),
               p.stderr.decode("utf-8", "replace"))


class Outputs:
    """Every run, made once and in parallel."""

    def __init__(self, tpuprof, jobs):
        self.tpuprof = tpuprof
        self.runs = {}
        wanted = []
        for name, path in CAPTURES:
            for cmd, (args, fmts) in COMMANDS.items():
                for fmt in fmts:
                    extra = check_args(name) if cmd == "check" else []
                    wanted.append(((name, cmd, fmt), [ALIASES.get(cmd, cmd), "-q", "--format", fmt] + args + extra + [path]))
            for fmt in DIFF_FORMATS:
                wanted.append(((name, "diff", fmt), ["diff", "--format", fmt, "--limit", "0", path, path]))
        paths = dict(CAPTURES)
        for a, b in DIFF_PAIRS:
            for fmt in DIFF_FORMATS:
                wanted.append((("%s..%s" % (a, b), "diff", fmt),
                               ["diff", "--format", fmt, "--limit", "0", paths[a], paths[b]]))
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
            futs = {key: ex.submit(_run, tpuprof, argv) for key, argv in wanted}
            for key, f in futs.items():
                self.runs[key] = f.result()
        self._parsed = {}

    def get(self, name, cmd, fmt):
        key = (name, cmd, fmt)
        if key in self._parsed:
            return self._parsed[key]
        r = self.runs.get(key)
        if r is None:
            raise RunError("no run %s" % (key,))
        if r.rc not in OK_EXIT.get(cmd, (0,)):
            raise RunError("tpuprof %s: exit %d: %s" % (" ".join(r.argv), r.rc, r.err.strip()[:300]))
        if fmt == "json":
            v = json.loads(r.out)
        elif fmt == "html":
            m = HTML_DATA.search(r.out)
            if not m:
                raise RunError("tpuprof %s: no tp-data block" % " ".join(r.argv))
            v = unpack(json.loads(m.group(1)))
        else:
            v = r.out
        self._parsed[key] = v
        return v


class Capture:
    """One input's outputs, as the invariants see them."""

    def __init__(self, outputs, name, is_pair=False):
        self.o, self.name, self.is_pair = outputs, name, is_pair

    def json(self, cmd):
        return self.o.get(self.name, cmd, "json")

    def text(self, cmd):
        return self.o.get(self.name, cmd, "text")

    def html(self, cmd):
        return self.o.get(self.name, cmd, "html")

    @property
    def path(self):
        return dict(CAPTURES).get(self.name)


def captures(outputs):
    return [Capture(outputs, n) for n, _ in CAPTURES]


def diff_runs(outputs):
    """Every diff: each capture against itself, then the pairs."""
    return [Capture(outputs, n) for n, _ in CAPTURES] + \
        [Capture(outputs, "%s..%s" % p, True) for p in DIFF_PAIRS]


def jobs():
    try:
        return max(2, len(os.sched_getaffinity(0)))
    except AttributeError:
        return 2
