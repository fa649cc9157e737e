#!/bin/sh
# `tpuprof memory --svg`: the SVG must render with a real renderer
# (rsvg-convert, Debian's librsvg2-bin) and hold the peak marker, the peak
# label, buffer labels and the runtime panel. Usage: svg_test.sh TPUPROF
set -eu
cd "$(dirname "$0")/.."
tpuprof=${1:-build/tpuprof}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0 pass=0
check() { # description, grep pattern, file
	if grep -q -- "$2" "$3"; then pass=$((pass + 1)); else echo "FAIL svg: $1"; fail=$((fail + 1)); fi
}
svgs=toy
# the real capture only where ../shared is (a clone without it: the rest)
if [ -d ../shared/captures ]; then
svgs="conv toy"
$tpuprof memory -q --svg "$tmp/conv.svg" ../shared/captures/gpu-mi300x8-jax-conv3d/tw003.xplane.pb >/dev/null
check "peak marker" 'id="peak-marker"' "$tmp/conv.svg"
check "peak label" '>peak 1104.49 MiB<' "$tmp/conv.svg"
check "module title" 'module jit_forward_3d_conv (program 15): peak 1104.49 MiB at heap event 2' "$tmp/conv.svg"
check "largest buffer label" 'input_transpose_fusion: bf16\[55862,5120\]{1,0} (545.53 MiB)' "$tmp/conv.svg"
check "runtime panel" 'runtime memory GPU_1_bfc: peak 1651.93 MiB' "$tmp/conv.svg"
fi
$tpuprof memory -q --svg "$tmp/toy.svg" testdata/jit_train_step.hlo_proto.pb >/dev/null
check "no runtime panel without events" '<svg' "$tmp/toy.svg"
if grep -q 'runtime-curve' "$tmp/toy.svg"; then echo "FAIL svg: runtime panel without events"; fail=$((fail + 1)); fi
for f in $svgs; do
	if rsvg-convert "$tmp/$f.svg" -o "$tmp/$f.png" && [ -s "$tmp/$f.png" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL svg: $f.svg does not render"
		fail=$((fail + 1))
	fi
done
echo "svg: $pass passed, $fail failed"
[ $fail = 0 ]
