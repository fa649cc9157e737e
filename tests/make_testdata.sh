#!/bin/sh
# Regenerates testdata/ with the capture generator (make testdata), then the
# bad inputs in testdata/corrupt/. The files are committed; tests compare
# against them, so run this only when the generator changes, and review
# the golden diffs it causes.
# Usage: tests/make_testdata.sh GEN_CAPTURE
set -eu
gen=$1
cd "$(dirname "$0")/.."
td=testdata
rm -rf "$td/run-3hosts" "$td/logdir" "$td/xla-dump" "$td/debug-print" "$td/debug-print-inferred"
# The main job's capture: 2 TPU cores, 2 programs, fusions, a collective,
# heap traces and runtime memory events.
"$gen" --seed 1 --cores 2 --programs 2 --events-per-line 200 \
	--summary "$td/small.summary.json" -o "$td/small.xplane.pb"
# Layout B, gzip, 4 cores, lines split into several XLine messages.
"$gen" --seed 2 --cores 4 --programs 3 --layout B --gzip --split-line 50 \
	--steps-line --summary "$td/layout-b.summary.json" -o "$td/layout-b.xplane.pb.gz"
# A standalone HloProto with nested fusions and SHARE_WITH heap events.
"$gen" --seed 3 --programs 1 --fusions 4 --nested-fusions 2 --hlo-only \
	-o "$td/jit_train_step.hlo_proto.pb"
# Three heap-simulator traces per module, with SHARE_WITH both ways.
"$gen" --seed 9 --programs 1 --heap-traces 3 --heap-events 60 --instructions 30 \
	--hlo-only -o "$td/multi-trace.hlo_proto.pb"
# GPU-shaped captures: JAX kernels with seven stats each, and TF-era GPU
# (eight stats per kernel, a TensorFlow Ops line).
"$gen" --seed 10 --shape jax-gpu --cores 2 --programs 2 --events-per-line 120 \
	-o "$td/jax-gpu.xplane.pb"
"$gen" --seed 11 --shape tf-gpu --cores 2 --programs 2 --events-per-line 120 \
	-o "$td/tf-gpu.xplane.pb"
# Steps with known ground truth: 3 cores, one program run 5 times; the
# last core idles 50 us more at the end of each run (a straggler); the
# summary lists each core's executions (start, end, busy ps).
"$gen" --seed 12 --cores 3 --programs 1 --steps 5 --events-per-line 100 \
	--straggler-ps 50000000 --summary-steps \
	--summary "$td/steps.summary.json" -o "$td/steps.xplane.pb"
# Many steps (issue 38): one program run 150 times on each of 2 cores,
# more than the 100 steps a core whose rows a document keeps without
# --per-step (docs/json.md, step_rows).
"$gen" --seed 14 --cores 2 --programs 1 --steps 150 --events-per-line 600 --instructions 4 \
	--fusions 1 --heap-events 10 --memory-events 10 -o "$td/many-steps.xplane.pb"
# A run directory of three hosts.
"$gen" --seed 4 --hosts 3 --cores 2 --events-per-line 50 \
	--summary "$td/run-3hosts.summary.json" -o "$td/run-3hosts"
# The debug-print rule by hand: two hosts of two cores, four 10 us steps
# (a Steps line); each step on core c of host i starts with a debug_print
# op of (c+1) x 400 ns (host0) or (c+1) x 100 ns (host1): per step 4% and
# 8% on host0, mean 6% (fires, >= 5%); 1% and 2% on host1, mean 1.5%.
"$gen" --seed 13 --hosts 2 --cores 2 --programs 1 --steps 4 --events-per-line 20 \
	--steps-line --step-ps 10000000 --debug-print-ps 400000,100000 -o "$td/debug-print"
# The same without a Steps line: the steps are inferred from the busiest
# program's runs (docs/ops.md), each from its start to the next run's:
# runs back to back (--gap-ps 0), so the figures are the same.
"$gen" --seed 13 --hosts 2 --cores 2 --programs 1 --steps 4 --events-per-line 20 \
	--step-ps 10000000 --gap-ps 0 --debug-print-ps 400000,100000 -o "$td/debug-print-inferred"
# A logdir with two runs; the newer one has no HLO.
mkdir -p "$td/logdir/plugins/profile/2026_01_01_10_00_00" \
	"$td/logdir/plugins/profile/2026_01_02_10_00_00"
"$gen" --seed 5 --events-per-line 20 \
	-o "$td/logdir/plugins/profile/2026_01_01_10_00_00/worker0.xplane.pb"
"$gen" --seed 6 --events-per-line 20 --no-hlo --no-hostnames \
	-o "$td/logdir/plugins/profile/2026_01_02_10_00_00/worker0.xplane.pb"
# An XLA dump directory: only the after-optimizations proto is taken.
mkdir -p "$td/xla-dump"
"$gen" --seed 7 --programs 1 --hlo-only \
	-o "$td/xla-dump/module_0001.jit_step.sm_8.0_gpu_after_optimizations.hlo.pb"
"$gen" --seed 8 --programs 1 --hlo-only \
	-o "$td/xla-dump/module_0001.jit_step.before_optimizations.hlo.pb"
# Every collective kind (explicit and iota groups, channel ids, an async
# all-reduce-start/done pair) on 4 cores, for `tpuprof collectives`.
"$gen" --seed 9 --cores 4 --programs 1 --collectives 6 --events-per-line 120 \
	-o "$td/collectives.xplane.pb"
# `tpuprof diff` against small.xplane.pb (same seed): diff-b has 4 more
# instructions per module and a second collective (instructions renumber,
# buffers and ops appear and disappear); diff-longer has the same programs
# and 300 op events per core instead of 200 (memory unchanged, time grows).
"$gen" --seed 1 --cores 2 --programs 2 --events-per-line 240 --instructions 24 \
	--collectives 2 -o "$td/diff-b.xplane.pb"
"$gen" --seed 1 --cores 2 --programs 2 --events-per-line 300 \
	-o "$td/diff-longer.xplane.pb"
python3 tests/make_corrupt.py "$td"
# The main job's capture whose first two allocator events count bytes in
# use below zero (a damaged capture): runtime[].damaged_events, the
# warning, check's damaged part (the figures contract walks it).
"$gen" --seed 1 --cores 2 --programs 2 --events-per-line 200 --damaged-memory-events 2 \
	-o "$td/corrupt/damaged-allocator.xplane.pb"
# The CI gate (issue 40): one program on 2 cores, 4 steps of exactly 40 us
# on host worker7 (the baseline) and 8 such steps on worker8 (the same per
# step: passes); slow/worker8 has 8 steps of 48 us (+20%: fails). No
# hostnames in the XSpace: the hosts are named by their files, so the
# baseline's host differs from the run's as on CI runners. Runs back to
# back (--gap-ps 0): each step, start to next start, is its run's length.
mkdir -p "$td/ci/slow"
"$gen" --seed 20 --cores 2 --programs 1 --steps 4 --events-per-line 40 --step-ps 40000000 \
	--gap-ps 0 --no-hostnames -o "$td/ci/worker7.xplane.pb"
"$gen" --seed 20 --cores 2 --programs 1 --steps 8 --events-per-line 80 --step-ps 40000000 \
	--gap-ps 0 --no-hostnames -o "$td/ci/worker8.xplane.pb"
"$gen" --seed 20 --cores 2 --programs 1 --steps 8 --events-per-line 80 --step-ps 48000000 \
	--gap-ps 0 --no-hostnames -o "$td/ci/slow/worker8.xplane.pb"
