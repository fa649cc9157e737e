#!/usr/bin/env python3
"""The JSON contract: every key that a command emits is documented in
docs/json.md under its schema, and every key documented there is emitted
by at least one of the sample runs below. Keys are compared by name per
schema (the tables' first column, split on '.', '[]' and ',').
Usage: json_contract.py TPUPROF"""
import json
import re
import subprocess
import sys

tpuprof = sys.argv[1]
S = "../shared/captures/"
runs = {
    "tpuprof.info/1": [
        ["info", "--format", "json", S + "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb"],
        ["info", "--format", "json", "testdata/jit_train_step.hlo_proto.pb"],
        ["info", "--format", "json", "testdata/logdir"],
        ["info", "--format", "json", "testdata/corrupt/damaged-three-parts.xplane.pb"],
        ["info", "--format", "json", "testdata/riegeli/damaged.xplane.riegeli"],
    ],
    "tpuprof.ops/1": [
        ["ops", "--format", "json", S + "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb"],
        ["ops", "--format", "json", "--by", "scope", "testdata/layout-b.xplane.pb.gz"],
        ["ops", "--format", "json", "--by", "category", "--fold", "testdata/small.xplane.pb"],
        ["ops", "--format", "json", S + "gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb"],
        ["ops", "--format", "json", S + "gpu-mi300x-jax-gemm/tw003.xplane.pb"],
    ],
    "tpuprof.fusions/1": [
        ["fusions", "--format", "json", "--scope", "mlp", "testdata/jit_train_step.hlo_proto.pb"],
        ["fusions", "--format", "json", "testdata/small.xplane.pb"],
    ],
    "tpuprof.collectives/1": [
        ["collectives", "--format", "json", S + "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb"],
        ["collectives", "--format", "json", "testdata/collectives.xplane.pb"],
        ["collectives", "--format", "json", S + "gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb"],
    ],
    "tpuprof.check/1": [
        ["check", "--format", "json", "--max-peak", "1GiB", "--max-peak-fraction", "0.5",
         "--max-collective-bytes", "1MiB", "--baseline", "testdata/run-3hosts/host0.xplane.pb",
         "--max-growth", "10%", "--hbm", "32GiB", "testdata/small.xplane.pb"],
        ["check", "--format", "json", "--min-headroom", "10%", "--min-flops-utilization", "0.3",
         "testdata/small.xplane.pb"],
        ["check", "--format", "json", "--scope", "jit(train_step)/jit(main)/transformer",
         "--module", "jit_train_step", "--max-peak", "1GiB", "testdata/small.xplane.pb"],
    ],
    "tpuprof.devices/1": [
        ["devices", "--format", "json"],
    ],
    "tpuprof.report/2": [
        ["report", "--format", "json", "testdata/small.xplane.pb"],
    ],
    "tpuprof.diff/1": [
        ["diff", "--format", "json", "testdata/small.xplane.pb", "testdata/diff-b.xplane.pb"],
    ],
    "tpuprof.memory_why/1": [
        ["memory", "--format", "json", "--why", "cudnn-conv.1{1}", S + "gpu-mi300x8-jax-conv3d/tw003.xplane.pb"],
    ],
    "tpuprof.oom/1": [
        ["oom", "--format", "json", "../shared/oom-reports/01-tpu-v3-tf1-detection-au2018.log",
         "../shared/oom-reports/13-tpu-v4-jax-easydel-falcon.log",
         "../shared/oom-reports/17-tpu-v6e-reactant-e1000-oneliner.log",
         "../shared/oom-reports/28-tpu-v2-ptxla-runtime-reserve-table.log",
         "../shared/oom-reports/30-tpu-v2-jax-runtime-allocate-fragmentation.log",
         "../shared/oom-reports/34-gpu-jax-bufferassignment-peak-buffers.log",
         "../shared/oom-reports/35-gpu-jax-bufferassignment-stats-only.log",
         "../shared/oom-reports/39-gpu-jax-mtj-failed-to-allocate-request.log",
         "tests/oom/bfc.log", "testdata/oom/e1002-tensorcore-sparsecore.log",
         "testdata/oom/e0101-load.log", "testdata/oom/fragment-program.log"],
    ],
    "tpuprof.oom_diff/1": [
        ["oom", "diff", "--format", "json", "../shared/oom-reports/13-tpu-v4-jax-easydel-falcon.log",
         "../shared/oom-reports/14-tpu-v3-jax-easydel-gemma-arguments.log"],
    ],
    "tpuprof.memory/1": [
        ["memory", "--format", "json", "--split", "multiply.24:4", "testdata/small.xplane.pb"],
        ["memory", "--format", "json", S + "gpu-mi300x-jax-attention/tw003.xplane.pb"],
        ["memory", "--format", "json", "--hbm", "1MiB", "testdata/small.xplane.pb"],
        ["memory", "--format", "json", "--memory-space", "5", S + "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb"],
    ],
}


def documented(schema):
    text = open("docs/json.md").read()
    m = re.search(r"^## `" + re.escape(schema) + r"`.*?$(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not m:
        return None
    names = set()
    table_ok = False
    for line in m.group(1).splitlines():
        if line.startswith("| ") and not line.startswith("|---"):
            first = line.split("|")[1]
            if first.strip() in ("field", "XProf (`memory_viewer` JSON)"):
                table_ok = first.strip() == "field"
                continue
            if not table_ok:
                continue
            for tok in re.findall(r"`([^`]+)`", first):
                for part in re.split(r"[.,\s]|\[\]", tok):
                    if re.fullmatch(r"[a-z_][a-z0-9_]*|[A-Z][a-z-]+", part):
                        names.add(part)
        elif line.startswith("### "):
            table_ok = False
    return names


def emitted(doc, keys, stats_ok):
    if isinstance(doc, dict):
        for k, v in doc.items():
            keys.add(k)
            # plane stats and versions are keyed by the capture's own names
            if k in ("stats", "versions") and stats_ok:
                continue
            emitted(v, keys, stats_ok)
    elif isinstance(doc, list):
        for v in doc:
            emitted(v, keys, stats_ok)


bad = 0
for schema, cmds in runs.items():
    doc_names = documented(schema)
    if doc_names is None:
        print(f"{schema}: no section in docs/json.md")
        bad += 1
        continue
    keys = set()
    for cmd in cmds:
        res = subprocess.run([tpuprof] + cmd, capture_output=True)
        # check exits 1 when a rule breaks, with its document written
        if res.returncode not in ((0, 1) if cmd[0] == "check" else (0,)):
            raise subprocess.CalledProcessError(res.returncode, cmd, res.stdout, res.stderr)
        out = res.stdout
        d = json.loads(out)
        if d.get("schema") != schema:
            print(f"{' '.join(cmd)}: schema {d.get('schema')!r}, expected {schema!r}")
            bad += 1
        if schema == "tpuprof.report/2":
            # its parts are the other documents, checked under their schemas
            keys.update(d.keys())
            # but advice, its own part, is checked here
            emitted(d.get("advice", []), keys, False)
            continue
        emitted(d, keys, True)
    for k in sorted(keys - doc_names):
        print(f"{schema}: emitted but not documented: {k}")
        bad += 1
    for k in sorted(doc_names - keys):
        print(f"{schema}: documented but never emitted: {k}")
        bad += 1
    print(f"{schema}: {len(keys)} keys checked")
print(f"json contract: {bad} problems")
sys.exit(1 if bad else 0)
