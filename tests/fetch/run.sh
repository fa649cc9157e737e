#!/bin/sh
# issue 5: end-to-end tests of `tpuprof fetch` and `tpuprof capture`.
#
# Each case starts tests/fetch/server.py on 127.0.0.1 with a free port, in
# the mode of one server version or fault, runs tpuprof against it, and
# checks the exit status, the exact stderr, the exact files written, their
# bytes (cmp against ../shared/captures), and the requests the server saw.
# Nothing reaches beyond 127.0.0.1; every tpuprof run is bounded by
# `timeout`.
#
#   TPUPROF=build/tpuprof sh tests/fetch/run.sh          all cases
#   sh tests/fetch/run.sh gcs 'tb-*'                       cases by name
#   TEST_WRAP='valgrind -q --leak-check=full' sh tests/fetch/run.sh
set -u
cd "$(dirname "$0")/../.." || exit 2
TPUPROF=${TPUPROF:-build/tpuprof}
TEST_WRAP=${TEST_WRAP:-}
LIMIT=${FETCH_TEST_TIMEOUT:-60}
CAPTURES=../shared/captures
PY=$(command -v python3 || echo /usr/bin/python3)
export LC_ALL=C TZ=UTC
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy \
	no_proxy NO_PROXY GOOGLE_OAUTH_ACCESS_TOKEN STORAGE_EMULATOR_HOST TPUPROF_LIBCURL
TOKEN=test-token-5d41402abc4b
V6E=$CAPTURES/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb
V100=$CAPTURES/gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb
GEMM=$CAPTURES/gpu-mi300x-jax-gemm/tw003.xplane.pb
CONV=$CAPTURES/gpu-mi300x8-jax-conv3d/tw003.xplane.pb
ELEM=$CAPTURES/gpu-mi300x-jax-elementwise/tw003.xplane.pb
GOLDEN=$CAPTURES/xprof-json-tpu-v5-jax-training
NEWEST=plugins/profile/2024_06_01_10_00_00
V6E_MODULES='jit__psum(9646411105960254074)
jit_broadcast_in_dim(11287434908481120160)
jit_convert_element_type(2433868464432466958)
jit_f(12190760917235803885)'

root=$(mktemp -d) || exit 2
SRV_PID=
cleanup() {
	[ -n "$SRV_PID" ] && kill "$SRV_PID" 2>/dev/null
	rm -rf "$root"
}
trap cleanup EXIT
trap 'exit 2' INT TERM
pass=0 fail=0 failed=

# ---- helpers ----

# start_server MODE [server.py options]: a fresh server and case folder.
start_server() {
	mode=$1
	shift
	srv=$dir/srv
	mkdir -p "$srv"
	rm -f "$srv/port"
	"$PY" tests/fetch/server.py --mode "$mode" --captures "$CAPTURES" \
		--root "$srv" --port-file "$srv/port" --log "$srv/log" \
		--token "$TOKEN" "$@" 2>"$srv/stderr" &
	SRV_PID=$!
	i=0
	while [ ! -s "$srv/port" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	PORT=$(cat "$srv/port" 2>/dev/null)
	URL=http://127.0.0.1:$PORT
	export STORAGE_EMULATOR_HOST="$URL"
	: >"$srv/log"
}

stop_server() {
	[ -n "$SRV_PID" ] && kill "$SRV_PID" 2>/dev/null && wait "$SRV_PID" 2>/dev/null
	SRV_PID=
	unset STORAGE_EMULATOR_HOST
}

# tp ARGS...: runs tpuprof; stdout, stderr (port and folder made
# generic), rc.
tp() {
	# shellcheck disable=SC2086
	timeout "$LIMIT" $TEST_WRAP "$TPUPROF" "$@" >"$dir/stdout.raw" 2>"$dir/stderr.raw" </dev/null
	rc=$?
	for stream in stdout stderr; do
		sed -e "s|127\.0\.0\.1:$PORT|127.0.0.1:PORT|g" -e "s|$dir|CASE|g" \
			"$dir/$stream.raw" >"$dir/$stream"
	done
}

bad() {
	echo "FAIL $case: $*"
	ok=0
}

expect_rc() {
	[ "$rc" = "$1" ] || bad "exit $rc, expected $1 (stderr: $(head -c 400 "$dir/stderr"))"
}

# expect_err TEXT: stderr is exactly TEXT (a trailing newline added).
expect_err() {
	printf '%s\n' "$1" >"$dir/stderr.want"
	[ -z "$1" ] && : >"$dir/stderr.want"
	cmp -s "$dir/stderr.want" "$dir/stderr" ||
		bad "stderr differs: $(diff "$dir/stderr.want" "$dir/stderr" | head -20)"
}

# expect_files DIR LIST: the files under DIR are exactly LIST (sorted).
expect_files() {
	printf '%s\n' "$2" | sort >"$dir/files.want"
	[ -z "$2" ] && : >"$dir/files.want"
	if [ -d "$1" ]; then
		(cd "$1" && find . -type f | sed 's|^\./||' | sort) >"$dir/files.got"
	else
		: >"$dir/files.got"
	fi
	cmp -s "$dir/files.want" "$dir/files.got" ||
		bad "files differ: $(diff "$dir/files.want" "$dir/files.got" | head -20)"
}

expect_same() {
	cmp -s "$1" "$2" || bad "$1 differs from $2"
}

expect_log() {
	grep -Eq -- "$1" "$srv/log" || bad "no request matching '$1' in the server log"
}

expect_no_log() {
	! grep -Eq -- "$1" "$srv/log" || bad "a request matches '$1' in the server log"
}

expect_log_count() {
	n=$(grep -Ec -- "$1" "$srv/log")
	[ "$n" = "$2" ] || bad "$n requests match '$1', expected $2"
}

expect_out() {
	grep -Fq -- "$1" "$dir/stdout" || bad "stdout lacks '$1'"
}

# expect_info DIR: `tpuprof info` reads the fetched logdir.
expect_info() {
	timeout "$LIMIT" "$TPUPROF" info "$1" >"$dir/info.out" 2>"$dir/info.err"
	info_rc=$?
	[ "$info_rc" = "${2:-0}" ] || bad "tpuprof info $1: exit $info_rc ($(head -c 300 "$dir/info.err"))"
}

expect_json_valid() {
	"$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null ||
		bad "$1 is not valid JSON"
}

# Runs the case functions named on the command line (patterns) or all.
run_case() {
	case=$1
	if [ -n "$PATTERNS" ]; then
		hit=0
		for p in $PATTERNS; do
			# shellcheck disable=SC2254
			case $case in $p) hit=1 ;; esac
		done
		[ $hit = 1 ] || return 0
	fi
	dir=$root/$case
	mkdir -p "$dir"
	ok=1
	"case_$(echo "$case" | tr '.-' '__')"
	stop_server
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		failed="$failed $case"
	fi
}

# ---- server versions ----

case_tb_2_4() {
	start_server tb-2.4.0 --data-location local
	tp fetch -o "$dir/out" "$URL"
	expect_rc 0
	# the probe's /tools answer is the listing: asked once
	expect_log_count '^GET /data/plugin/profile/tools ' 1
	expect_err "tpuprof: note: taking the newest of 3 runs, '2024_06_01_10_00_00' (choose with --run NAME)
tpuprof: note: modules: not asked from the server (graph_viewer), as the .xplane.pb files embed them"
	expect_files "$dir/out" "$NEWEST/34.83.195.179_6003.xplane.pb
$NEWEST/34.83.195.179_6003.memory_profile.json
$NEWEST/34.83.195.179_6003.overview_page.json
$NEWEST/tpu_inference_2.xplane.pb
$NEWEST/tpu_inference_2.memory_profile.json
$NEWEST/tpu_inference_2.overview_page.json"
	expect_same "$dir/out/$NEWEST/tpu_inference_2.xplane.pb" "$V6E"
	expect_same "$dir/out/$NEWEST/34.83.195.179_6003.xplane.pb" "$V100"
	expect_json_valid "$dir/out/$NEWEST/tpu_inference_2.memory_profile.json"
	expect_log '^GET /data/plugin/profile/tools '
	expect_log 'tag=memory_profile%5E&host=tpu_inference_2 '
	expect_no_log 'run_tools'
	expect_out 'TensorBoard with profile plugin 2.3-2.8 (/tools API)'
	expect_out 'memory_viewer: not offered by the server for this run'
	expect_info "$dir/out"
}

case_tb_2_15_gcs() {
	start_server tb-2.15.2 --data-location gs
	tp fetch --token "$TOKEN" --tools memory_profile,op_profile -o "$dir/out" "$URL/"
	expect_rc 0
	expect_err "tpuprof: note: taking the newest of 3 runs, '2024_06_01_10_00_00' (choose with --run NAME)"
	modules=$(printf '%s\n' "$V6E_MODULES" | sed "s|^|$NEWEST/|; s|\$|.hlo_proto.pb|")
	expect_files "$dir/out" "$modules
$NEWEST/34.83.195.179_6003.xplane.pb
$NEWEST/tpu_inference_2.xplane.pb
$NEWEST/34.83.195.179_6003.memory_profile.json
$NEWEST/tpu_inference_2.memory_profile.json
$NEWEST/34.83.195.179_6003.op_profile.json
$NEWEST/tpu_inference_2.op_profile.json"
	expect_same "$dir/out/$NEWEST/tpu_inference_2.xplane.pb" "$V6E"
	expect_same "$dir/out/$NEWEST/jit_f(12190760917235803885).hlo_proto.pb" \
		"$srv/logs/$NEWEST/jit_f(12190760917235803885).hlo_proto.pb"
	# gzip (every plugin answer since 2.15) was decoded
	expect_json_valid "$dir/out/$NEWEST/tpu_inference_2.op_profile.json"
	# the token went to the bucket only, never to the TensorBoard
	expect_log '^GET /storage/v1/b/tpuprof-test/o\?prefix=logs%2Fplugins%2Fprofile%2F2024_06_01_10_00_00%2F.* auth=bearer-ok'
	expect_log 'pageToken=2 '
	expect_no_log '^GET /data.* auth=bearer'
	expect_no_log '^GET /storage.* auth=-'
	expect_out 'raw files   gs://tpuprof-test/logs/plugins/profile/2024_06_01_10_00_00'
	expect_out 'TensorBoard 2.15.2 with profile plugin 2.9 or later (/runs API); tool names end in ^'
	expect_info "$dir/out"
}

# 2.9-2.21.x answer /run_tools with 500 unless /runs came first.
case_tb_2_18_objects() {
	start_server tb-2.18.0 --data-location unreadable --fault sloppy-hosts
	"$PY" -c 'import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(sys.argv[1] + "/data/plugin/profile/run_tools?run=2024_06_01_10_00_00")
    sys.exit(1)
except urllib.error.HTTPError as e:
    sys.exit(0 if e.code == 500 else 1)' "$URL" || bad "the emulator does not answer /run_tools with 500 before /runs"
	tp fetch --tools memory_profile,graph_viewer -o "$dir/out" --run 2024_06_01_10_00_00 "$URL"
	expect_rc 0
	expect_err ""
	expect_files "$dir/out" "$NEWEST/34.83.195.179_6003.memory_profile.json
$NEWEST/tpu_inference_2.memory_profile.json"
	expect_log '^GET /data/plugin/profile/hosts\?run=2024_06_01_10_00_00&tag=xplane '
	expect_no_log 'host=ALL_HOSTS'
	expect_out "raw .xplane.pb files: no server version serves them over HTTP, and the server's logdir '/nonexistent/tpuprof/logs' is not readable here"
	expect_out 'module HloProtos: this server cannot export them (graph_viewer type=pb needs profile plugin 2.19.5 or later)'
	expect_out 'info     no: needs an .xplane.pb or .hlo_proto.pb'
	expect_info "$dir/out" 3
}

case_xprof_2_20() {
	start_server xprof-2.20.0
	tp fetch -o "$dir/out" "$URL"
	expect_rc 0
	# the probe's answer is the listing: /runs asked once
	expect_log_count '^GET /data/plugin/profile/runs ' 1
	expect_err "tpuprof: note: taking the newest of 4 runs, '2024_06_01_10_00_00' (choose with --run NAME)"
	files=
	for m in $V6E_MODULES; do
		files="$files$NEWEST/$m.hlo_proto.pb
$NEWEST/$m.memory_viewer.json
"
	done
	for h in 34.83.195.179_6003 tpu_inference_2; do
		for t in memory_profile op_profile hlo_stats overview_page; do
			files="$files$NEWEST/$h.$t.json
"
		done
	done
	expect_files "$dir/out" "${files%?}"
	for m in $V6E_MODULES; do
		expect_same "$dir/out/$NEWEST/$m.hlo_proto.pb" "$srv/logs/$NEWEST/$m.hlo_proto.pb"
	done
	expect_log 'tag=graph_viewer&host=jit_f%2812190760917235803885%29&module_name=jit_f%2812190760917235803885%29&type=pb '
	expect_out 'standalone XProf 2.19.1-2.21.4'
	expect_out 'raw .xplane.pb files: no server version serves them over HTTP, and this server does not say where its logdir is (no /data/environment)'
	expect_out 'memory   compiler timelines only'
	expect_info "$dir/out"
	grep -q 'jit_f' "$dir/info.out" || bad "info does not list module jit_f"
}

# XProf's own answers, byte for byte (the shared golden JSON).
# XProf's browser URL names its run (?run=...&tool=...): that run is
# fetched, as with --run; a --run that names another is a usage error.
# Before, the run= was dropped and the newest fetched.
case_xprof_browser_url() {
	start_server xprof-2.21.5
	tp fetch -n --tools none -o "$dir/out" "$URL/?run=2024_05_01_09_00_00&tool=overview_page"
	expect_rc 0
	expect_out "run         2024_05_01_09_00_00 (4 runs on the source)"
	expect_no_log 'run=2024_06_01_10_00_00'
	tp fetch -n --tools none --run 2024_06_01_10_00_00 -o "$dir/out" "$URL/#run=2024_05_01_09_00_00"
	expect_rc 2
	expect_err "tpuprof: --run '2024_06_01_10_00_00' and the URL's run=2024_05_01_09_00_00 name two runs"
}

case_xprof_golden() {
	start_server xprof-2.21.5
	tp fetch --run tpu-training --tools memory_profile,op_profile,memory_viewer,graph_viewer \
		-o "$dir/out" "$URL"
	expect_rc 0
	expect_err ""
	run=plugins/profile/tpu-training
	zcat "$GOLDEN/data_tpu-training_op_profile_tpu_training.json.gz" >"$dir/op.json"
	expect_same "$dir/out/$run/tpu_training.op_profile.json" "$dir/op.json"
	zcat "$GOLDEN/data_tpu-training_memory_profile_tpu_training.json.gz" >"$dir/mp.json"
	expect_same "$dir/out/$run/tpu_training.memory_profile.json" "$dir/mp.json"
	zcat "$GOLDEN/data_tpu-training_memory_viewer_tpu_training_jit_train_step_2041036616644817336_.json.gz" >"$dir/mv.json"
	expect_same "$dir/out/$run/jit_train_step(2041036616644817336).memory_viewer.json" "$dir/mv.json"
	n=$(find "$dir/out/$run" -name '*.memory_viewer.json' | wc -l)
	[ "$n" -eq 12 ] || bad "$n memory_viewer files, not 12"
	expect_out "module 'jit_train_step(2041036616644817336)': the server has no HloProto for it (404)"
	expect_out 'standalone XProf 2.21.5'
	expect_log '^GET /data/plugin/profile/version '
}

case_xprof_json_summary() {
	start_server xprof-2.21.5
	tp fetch --format json --tools graph_viewer -o "$dir/out" "$URL"
	expect_rc 0
	"$PY" - "$dir/stdout.raw" <<'EOF' 2>"$dir/py.err" || bad "JSON summary: $(cat "$dir/py.err")"
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d)[0] == "schema" and d["schema"] == "tpuprof.fetch/1", d.get("schema")
assert d["source_kind"] == "xprof" and d["plugin_version"] == "2.21.5"
assert d["run"] == "2024_06_01_10_00_00" and len(d["runs"]) == 4
assert d["dry_run"] is False and d["raw_from"] is None
f = d["files"]
assert len(f) == 4 and all(x["kind"] == "hlo_proto" and x["status"] == "fetched" for x in f)
assert f[0]["bytes"] > 0 and f[0]["tool"] is None
assert d["analyses"] == {"info": True, "memory_compiler": True,
                         "memory_runtime": False, "ops": False}, d["analyses"]
assert any("raw .xplane.pb" in u for u in d["unavailable"])
EOF
}

case_dry_run() {
	start_server xprof-2.21.5
	tp fetch -n --tools op_profile -o "$dir/out" "$URL"
	expect_rc 0
	[ -e "$dir/out" ] && bad "--dry-run created $dir/out"
	grep -Fq "tpu_inference_2.op_profile.json  <- http://127.0.0.1:PORT/data/plugin/profile/data?run=2024_06_01_10_00_00&tag=op_profile&host=tpu_inference_2" "$dir/stdout" ||
		bad "dry run does not list the op_profile request"
	expect_no_log 'tag=op_profile'
}

case_keep_and_force() {
	start_server xprof-2.21.5
	tp fetch -q --tools graph_viewer -o "$dir/out" "$URL"
	expect_rc 0
	f="$dir/out/$NEWEST/jit_f(12190760917235803885).hlo_proto.pb"
	printf 'local edit' >"$f"
	tp fetch --tools graph_viewer -o "$dir/out" --run 2024_06_01_10_00_00 "$URL"
	expect_rc 0
	expect_err "tpuprof: note: 4 files already in CASE/out/$NEWEST kept (--force fetches them again)"
	[ "$(cat "$f")" = "local edit" ] || bad "a kept file was overwritten"
	tp fetch -q --force --tools graph_viewer -o "$dir/out" "$URL"
	expect_rc 0
	expect_same "$f" "$srv/logs/$NEWEST/jit_f(12190760917235803885).hlo_proto.pb"
}

# Headers given with -H are for the source's host: a redirect to another
# origin is refused, not followed with them (libcurl alone would send them
# on: the proxy key reached the other host, exit 0); one to the same
# origin is followed with them.
case_header_redirects() {
	start_server xprof-2.21.5 --fault redirect-elsewhere
	tp fetch -n -q --tools none -H 'X-Proxy-Key: secret-42' -o "$dir/out" "$URL"
	expect_rc 4
	expect_err "tpuprof: http://127.0.0.1:PORT/data/plugin/profile/runs: redirected to another host (http://localhost:$PORT): not followed, since the headers it carries (-H, a token) are for the source's host only"
	expect_log_count 'moved=1' 0
	stop_server
	start_server xprof-2.21.5 --fault redirect-same
	tp fetch -n -q --tools none -H 'X-Proxy-Key: secret-42' -o "$dir/out" "$URL"
	expect_rc 0
	expect_log 'GET /data/plugin/profile/runs\?moved=1 .* x-proxy-key=secret-42'
	stop_server
	# without -H, libcurl follows as before
	start_server xprof-2.21.5 --fault redirect-elsewhere
	tp fetch -n -q --tools none -o "$dir/out" "$URL"
	expect_rc 0
	expect_log 'moved=1'
}

# An object whose body ends short of the size its listing gives (no
# length sent, the connection closed) is no copy: exit 4, nothing kept;
# before, it was saved as complete (exit 0) and kept by every later fetch.
# A file of another size than the listing is fetched again, not kept.
case_gcs_cut_short() {
	start_server none --fault close-short
	tp fetch -q --retries 0 --token "$TOKEN" -o "$dir/out" gs://tpuprof-test/logs
	expect_rc 4
	expect_err "tpuprof: gs://tpuprof-test/logs/$NEWEST/tpu_inference_2.xplane.pb: $(($(wc -c <"$V6E") / 2)) bytes came where the listing gives $(wc -c <"$V6E") (cut short)"
	[ -e "$dir/out/$NEWEST/tpu_inference_2.xplane.pb" ] && bad "the short body was kept"
	stop_server
	mkdir -p "$dir/out/$NEWEST"
	head -c 1000 "$V6E" >"$dir/out/$NEWEST/tpu_inference_2.xplane.pb"
	start_server none
	tp fetch -q --token "$TOKEN" -o "$dir/out" gs://tpuprof-test/logs
	expect_rc 0
	expect_same "$dir/out/$NEWEST/tpu_inference_2.xplane.pb" "$V6E"
}

# A fetch that gets no file at all is an error (exit 3): it exited 0 and
# named a directory it never made. An empty .xplane.pb (the profiler's
# capture over 2 GB) is said, not kept, not promised to `info`.
case_no_files() {
	start_server tb-2.18.0 --data-location unreadable
	tp fetch -q --tools none -o "$dir/out" --run 2024_06_01_10_00_00 "$URL"
	expect_rc 3
	expect_err "tpuprof: http://127.0.0.1:PORT: the run '2024_06_01_10_00_00' holds no file tpuprof reads (no .xplane.pb; --tools names the tool data to fetch)"
	[ -e "$dir/out" ] && bad "a directory was made for nothing"
	stop_server
	start_server tb-2.4.0 --data-location local
	: >"$srv/logs/$NEWEST/empty.xplane.pb"
	tp fetch --tools none -o "$dir/out2" --run 2024_06_01_10_00_00 "$URL"
	expect_rc 0
	expect_out "'empty' is empty (0 bytes) on the server, as the profiler leaves a capture over 2 GB: not kept"
	[ -e "$dir/out2/$NEWEST/empty.xplane.pb" ] && bad "the empty capture was kept"
	expect_info "$dir/out2"
}

# A tool's view the server fails to convert (HTTP 500) is one view not
# available: the captures are fetched, exit 0. It failed the whole fetch
# (exit 4, no summary).
case_tool_500() {
	start_server tb-2.4.0 --data-location local --fault data-500
	tp fetch --retries 0 --tools overview_page -o "$dir/out" --run 2024_06_01_10_00_00 "$URL"
	expect_rc 0
	expect_files "$dir/out" "$NEWEST/34.83.195.179_6003.xplane.pb
$NEWEST/tpu_inference_2.xplane.pb"
	expect_out "overview_page^ for 'tpu_inference_2': the server failed: HTTP 500 Internal Server Error: ValueError: conversion failed for host"
	expect_info "$dir/out"
}

# A listing that names an object twice gives one file and one transfer:
# two raced on one FILE.part (exit 5 now and then, "cannot rename").
case_gcs_dup_listing() {
	start_server none --fault dup-listing
	tp fetch -q -j 4 --token "$TOKEN" -o "$dir/out" gs://tpuprof-test/logs
	expect_rc 0
	expect_files "$dir/out" "$NEWEST/34.83.195.179_6003.xplane.pb
$NEWEST/tpu_inference_2.xplane.pb"
	expect_same "$dir/out/$NEWEST/tpu_inference_2.xplane.pb" "$V6E"
	expect_log_count 'tpu_inference_2\.xplane\.pb\?alt=media' 1
}

# A name that needs no change keeps it: "a_b" stays "a_b" though "a b",
# listed before it, is also made "a_b" (it gets "a_b~2"). Before, "a b"
# took "a_b" and the object really named so became "a_b~2".
case_gcs_name_clash() {
	start_server none --fault name-clash
	tp fetch --run 2024_06_01_10_00_00 --token "$TOKEN" -o "$dir/out" gs://tpuprof-test/logs
	expect_rc 0
	expect_err "tpuprof: note: file 'a b' is saved as 'a_b~2'"
	expect_same "$dir/out/$NEWEST/a_b.xplane.pb" "$CAPTURES/gpu-mi300x-jax-attention/tw003.xplane.pb"
	expect_same "$dir/out/$NEWEST/a_b~2.xplane.pb" "$CAPTURES/gpu-mi300x-jax-gemm/tw003.xplane.pb"
}

# A redirect that cannot be followed says where it pointed and why
# (libcurl's "Unsupported protocol" and "Number of redirects hit maximum
# amount" before).
case_redirect_errors() {
	start_server xprof-2.21.5 --fault redirect-ftp
	tp fetch -n -q --retries 0 --tools none -o "$dir/out" "$URL"
	expect_rc 4
	expect_err "tpuprof: http://127.0.0.1:PORT/data/plugin/profile/runs: redirected to ftp://127.0.0.1/runs: only http and https redirects are followed"
	stop_server
	start_server xprof-2.21.5 --fault redirect-loop
	tp fetch -n -q --retries 0 --tools none -o "$dir/out" "$URL"
	expect_rc 4
	expect_err "tpuprof: http://127.0.0.1:PORT/data/plugin/profile/runs: more than 5 redirects (a loop?)"
}

# DIR cannot be written: exit 5, nothing written elsewhere.
case_output_errors() {
	start_server none
	: >"$dir/file"
	tp fetch --token "$TOKEN" -o "$dir/file" gs://tpuprof-test/logs
	expect_rc 5
	expect_err "tpuprof: note: taking the newest of 3 runs, '2024_06_01_10_00_00' (choose with --run NAME)
tpuprof: 'CASE/file' exists and is not a directory"
	mkdir -p "$dir/out/plugins" "$dir/elsewhere"
	ln -s "$dir/elsewhere" "$dir/out/plugins/profile"
	tp fetch -q --token "$TOKEN" -o "$dir/out" gs://tpuprof-test/logs
	expect_rc 5
	expect_err "tpuprof: 'CASE/out/plugins/profile' is a symbolic link: refusing to write through it"
	expect_files "$dir/elsewhere" ""
	# -o "" (an unset variable): a usage error; it wrote into /plugins
	# before (-n here: a binary with the fault writes nothing)
	tp fetch -n -q --token "$TOKEN" -o "" gs://tpuprof-test/logs
	expect_rc 2
	expect_err "tpuprof: bad value '' for --output (not empty) (see 'tpuprof help fetch')"
	expect_log_count 'alt=media' 0
	# a --cacert that cannot be read: usage (exit 2), not a server whose
	# certificate failed (exit 4)
	tp fetch -n -q --cacert "$dir/no-such.pem" -o "$dir/out" "$URL"
	expect_rc 2
	expect_err "tpuprof: cannot read --cacert 'CASE/no-such.pem': No such file or directory (see 'tpuprof help fetch')"
	# a port out of range: usage, not libcurl's "bad/illegal format" (4)
	tp fetch -n -q -o "$dir/out" http://127.0.0.1:99999
	expect_rc 2
	expect_err "tpuprof: 'http://127.0.0.1:99999': a port out of range (1 to 65535)"
}

# ---- Google Cloud Storage (the emulator pages two objects at a time) ----

case_gcs() {
	start_server none
	tp fetch --token "$TOKEN" -o "$dir/out" gs://tpuprof-test/logs
	expect_rc 0
	expect_err "tpuprof: note: taking the newest of 3 runs, '2024_06_01_10_00_00' (choose with --run NAME)"
	expect_files "$dir/out" "$NEWEST/34.83.195.179_6003.xplane.pb
$NEWEST/tpu_inference_2.xplane.pb"
	expect_same "$dir/out/$NEWEST/tpu_inference_2.xplane.pb" "$V6E"
	expect_same "$dir/out/$NEWEST/34.83.195.179_6003.xplane.pb" "$V100"
	expect_log_count '^GET /storage/v1/b/tpuprof-test/o\?prefix=logs%2F' 2
	expect_log 'prefix=logs%2F&.*&pageToken=2 ' 
	expect_log 'o/logs%2Fplugins%2Fprofile%2F2024_06_01_10_00_00%2Ftpu_inference_2\.xplane\.pb\?alt=media&generation=1700000000000001 '
	expect_info "$dir/out"
}

case_gcs_nested_run() {
	start_server none
	GOOGLE_OAUTH_ACCESS_TOKEN=$TOKEN
	export GOOGLE_OAUTH_ACCESS_TOKEN
	tp fetch --run train/2023_01_01_00_00_00 -o "$dir/out" gs://tpuprof-test/logs/
	unset GOOGLE_OAUTH_ACCESS_TOKEN
	expect_rc 0
	expect_err "tpuprof: note: run 'train/2023_01_01_00_00_00' is saved as 'train_2023_01_01_00_00_00'"
	expect_files "$dir/out" "plugins/profile/train_2023_01_01_00_00_00/tw003.xplane.pb"
	expect_same "$dir/out/plugins/profile/train_2023_01_01_00_00_00/tw003.xplane.pb" "$CONV"
}

case_gcs_one_object() {
	start_server none
	tp fetch --token-command "echo $TOKEN" -o "$dir/out" \
		gs://tpuprof-test/logs/plugins/profile/2024_05_01_09_00_00/tw003.xplane.pb
	expect_rc 0
	expect_err ""
	expect_files "$dir/out" "plugins/profile/2024_05_01_09_00_00/tw003.xplane.pb"
	expect_same "$dir/out/plugins/profile/2024_05_01_09_00_00/tw003.xplane.pb" "$GEMM"
}

case_gcs_bad_token() {
	start_server none --fault echo-token
	tp fetch --token wrong-secret-7f3a -o "$dir/out" gs://tpuprof-test/logs
	expect_rc 4
	expect_err "tpuprof: http://127.0.0.1:PORT/storage/v1/b/tpuprof-test/o?prefix=logs%2F&fields=items%28name%2Csize%2Cgeneration%29%2CnextPageToken: HTTP 401 Unauthorized: Invalid Credentials: Bearer *** (check --token, GOOGLE_OAUTH_ACCESS_TOKEN or --token-command)"
	grep -q 'wrong-secret' "$dir/stderr.raw" "$dir/stdout.raw" && bad "the token was printed"
	[ -e "$dir/out" ] && bad "a failed listing created $dir/out"
	# a token from --token-command is masked the same way
	tp fetch --token-command 'echo cmd-secret-9e1b' -o "$dir/out" gs://tpuprof-test/logs
	expect_rc 4
	grep -q 'cmd-secret' "$dir/stderr.raw" "$dir/stdout.raw" && bad "the token was printed"
	grep -q 'Bearer \*\*\*' "$dir/stderr" || bad "the token was not masked"
}

case_gcs_token_command_fails() {
	start_server none
	tp fetch --token-command 'exit 3' -o "$dir/out" gs://tpuprof-test/logs
	expect_rc 4
	expect_err "tpuprof: --token-command failed (exit status 3)"
	expect_log_count . 0
}

# ---- a logdir served as static files ----

# libcurl is loaded when a fetch starts (src/fetch/http/curl_api.h): a
# missing one is a one-line error before any request, exit 4, nothing
# written; TPUPROF_LIBCURL names the build to load instead.
case_no_libcurl() {
	start_server none
	TPUPROF_LIBCURL=/nonexistent/libcurl.so.4 tp fetch -o "$dir/out" "$URL/static/logs/"
	expect_rc 4
	expect_err "tpuprof: cannot load libcurl, which fetching needs: /nonexistent/libcurl.so.4: cannot open shared object file: No such file or directory (Debian: apt-get install libcurl4)"
	expect_no_log 'GET'
	[ -e "$dir/out" ] && bad "a fetch without libcurl created $dir/out"
	TPUPROF_LIBCURL=libcurl.so.4 tp fetch -o "$dir/out" "$URL/static/logs/"
	expect_rc 0
	expect_same "$dir/out/$NEWEST/tpu_inference_2.xplane.pb" "$V6E"
	unset TPUPROF_LIBCURL
}

case_static() {
	start_server none
	tp fetch -o "$dir/out" "$URL/static/logs/"
	expect_rc 0
	expect_err "tpuprof: note: taking the newest of 3 runs, '2024_06_01_10_00_00' (choose with --run NAME)"
	expect_files "$dir/out" "$NEWEST/34.83.195.179_6003.xplane.pb
$NEWEST/tpu_inference_2.xplane.pb"
	expect_same "$dir/out/$NEWEST/tpu_inference_2.xplane.pb" "$V6E"
	expect_log '^GET /static/logs/train/plugins/profile/ '
	expect_out 'a static file server (no profile plugin answered)'
	expect_info "$dir/out"
}

case_static_one_file() {
	start_server none
	tp fetch -o "$dir/out" "$URL/static/logs/train/plugins/profile/2023_01_01_00_00_00/tw003.xplane.pb"
	expect_rc 0
	expect_files "$dir/out" "plugins/profile/2023_01_01_00_00_00/tw003.xplane.pb"
	expect_same "$dir/out/plugins/profile/2023_01_01_00_00_00/tw003.xplane.pb" "$CONV"
	expect_log_count . 1
	# no server was probed: said so (it said "no profile plugin answered")
	expect_out "one capture file's URL (no server probed)"
}

case_tls() {
	command -v openssl >/dev/null 2>&1 || { echo "skip $case: no openssl"; return; }
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
		-addext subjectAltName=IP:127.0.0.1 -keyout "$dir/key.pem" \
		-out "$dir/cert.pem" >/dev/null 2>&1 || { echo "skip $case: openssl failed"; return; }
	start_server none --tls "$dir/cert.pem" "$dir/key.pem"
	https=https://127.0.0.1:$PORT/static/logs/plugins/profile/2024_05_01_09_00_00/tw003.xplane.pb
	tp fetch -o "$dir/out" "$https"
	expect_rc 4
	case $(cat "$dir/stderr") in
	"tpuprof: https://127.0.0.1:PORT/static/logs/plugins/profile/2024_05_01_09_00_00/tw003.xplane.pb: TLS certificate not trusted: "*"(see --cacert, --insecure)") ;;
	*) bad "TLS failure: $(cat "$dir/stderr")" ;;
	esac
	tp fetch -q -k -o "$dir/out" "$https"
	expect_rc 0
	expect_same "$dir/out/plugins/profile/2024_05_01_09_00_00/tw003.xplane.pb" "$GEMM"
	tp fetch -q --force --cacert "$dir/cert.pem" -o "$dir/out" "$https"
	expect_rc 0
}

# ---- faults ----

case_fault_reset_resume() {
	start_server none --fault reset-once
	tp fetch -q --token "$TOKEN" --retry-delay 10ms -o "$dir/out" gs://tpuprof-test/logs
	expect_rc 0
	expect_err ""
	expect_same "$dir/out/$NEWEST/tpu_inference_2.xplane.pb" "$V6E"
	expect_log 'tpu_inference_2\.xplane\.pb\?alt=media.* range=bytes=[1-9][0-9]*- auth=bearer-ok ae=-$'
	expect_files "$dir/out" "$NEWEST/34.83.195.179_6003.xplane.pb
$NEWEST/tpu_inference_2.xplane.pb"
}

case_fault_reset_fails() {
	start_server none --fault reset-always
	tp fetch -q -j 1 --retries 1 --retry-delay 10ms -o "$dir/out" "$URL/static/logs/"
	expect_rc 4
	sed 's/after [0-9]* bytes/after N bytes/' "$dir/stderr" >"$dir/stderr.n"
	mv "$dir/stderr.n" "$dir/stderr"
	expect_err "tpuprof: http://127.0.0.1:PORT/static/logs/plugins/profile/2024_06_01_10_00_00/tpu_inference_2.xplane.pb: connection dropped after N bytes of the answer: Failure when receiving data from the peer (after 2 attempts)"
	# the complete file stays; no partial file is left behind
	expect_files "$dir/out" "$NEWEST/34.83.195.179_6003.xplane.pb"
}

# --keep-partial leaves FILE.part, and beside it the object's validator
# (its ETag); the next run continues it with a range, If-Range that ETag.
case_fault_resume_across_runs() {
	start_server none --fault reset-always
	tp fetch -q -j 1 --retries 0 --keep-partial -o "$dir/out" "$URL/static/logs/"
	expect_rc 4
	expect_files "$dir/out" "$NEWEST/34.83.195.179_6003.xplane.pb
$NEWEST/tpu_inference_2.xplane.pb.part
$NEWEST/tpu_inference_2.xplane.pb.part.validator"
	stop_server
	start_server none
	tp fetch -q -o "$dir/out" "$URL/static/logs/"
	expect_rc 0
	expect_log '^GET /static/logs/plugins/profile/2024_06_01_10_00_00/tpu_inference_2\.xplane\.pb range=bytes=[1-9][0-9]*- '
	expect_same "$dir/out/$NEWEST/tpu_inference_2.xplane.pb" "$V6E"
	expect_files "$dir/out" "$NEWEST/34.83.195.179_6003.xplane.pb
$NEWEST/tpu_inference_2.xplane.pb"
}

# A FILE.part of another object (another run's, or this object's before it
# changed) is never continued into a file of neither: with a validator
# that no longer matches, the server's If-Range gives the whole object;
# without one (a .part from before this run), it is fetched whole. Before,
# both were continued with a range and the capture spliced.
case_part_of_another_object() {
	start_server none
	mkdir -p "$dir/out/$NEWEST"
	head -c 3000 "$CAPTURES/gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb" \
		>"$dir/out/$NEWEST/tpu_inference_2.xplane.pb.part"
	printf '"%s"' 0123456789abcdef >"$dir/out/$NEWEST/tpu_inference_2.xplane.pb.part.validator"
	tp fetch -q -o "$dir/out" "$URL/static/logs/"
	expect_rc 0
	# asked with a range (If-Range the stale ETag), answered whole
	expect_log_count '^GET /static/logs/plugins/profile/2024_06_01_10_00_00/tpu_inference_2\.xplane\.pb range=bytes=3000- ' 1
	expect_same "$dir/out/$NEWEST/tpu_inference_2.xplane.pb" "$V6E"
	expect_files "$dir/out" "$NEWEST/34.83.195.179_6003.xplane.pb
$NEWEST/tpu_inference_2.xplane.pb"
	rm -rf "$dir/out"
	mkdir -p "$dir/out/$NEWEST"
	head -c 3000 "$CAPTURES/gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb" \
		>"$dir/out/$NEWEST/tpu_inference_2.xplane.pb.part"
	tp fetch -q -o "$dir/out" "$URL/static/logs/"
	expect_rc 0
	# no validator: asked whole, no second range
	expect_log_count '^GET /static/logs/plugins/profile/2024_06_01_10_00_00/tpu_inference_2\.xplane\.pb range=bytes=3000- ' 1
	expect_same "$dir/out/$NEWEST/tpu_inference_2.xplane.pb" "$V6E"
}

# A TensorBoard whose profile plugin did not load: said so, with the
# remedy and the logdir it reads (it said "no profile runs found").
case_tb_no_plugin() {
	start_server tb-2.18.0 --data-location local --fault no-plugin
	tp fetch -o "$dir/out" "$URL"
	expect_rc 4
	expect_err "tpuprof: http://127.0.0.1:PORT: TensorBoard 2.18.0 answers, but not its profile plugin (no /data/plugin/profile/runs or /tools): the plugin is not installed or did not load there ('pip install tensorboard-plugin-profile' where TensorBoard runs, then restart it); or fetch the logdir it reads, 'CASE/srv/logs'"
	[ -e "$dir/out" ] && bad "a failed fetch created $dir/out"
	tp capture -n --service-addr localhost:1 -o "$dir/out" "$URL"
	expect_rc 4
}

case_fault_500() {
	start_server xprof-2.21.5 --fault 500-runs
	tp fetch --retries 2 --retry-delay 10ms -o "$dir/out" "$URL"
	expect_rc 4
	expect_err "tpuprof: http://127.0.0.1:PORT/data/plugin/profile/runs: HTTP 500 Internal Server Error (after 3 attempts)"
	expect_log_count '^GET /data/plugin/profile/runs ' 3
	[ -e "$dir/out" ] && bad "a failed fetch created $dir/out"
}

# The probe's /runs, retried once, is the listing too: asked twice, not
# three times (a big or gs:// logdir's /runs is slow).
case_fault_500_once() {
	start_server xprof-2.21.5 --fault 500-once
	tp fetch -n -q --tools none --retry-delay 10ms -o "$dir/out" "$URL"
	expect_rc 0
	expect_log_count '^GET /data/plugin/profile/runs ' 2
}

case_fault_429() {
	start_server xprof-2.21.5 --fault 429-once
	# Retry-After: 0 wins over the 20 s backoff: well within 10 s.
	old=$LIMIT
	LIMIT=10
	tp fetch -n -q --tools none --retry-delay 20s -o "$dir/out" "$URL"
	LIMIT=$old
	expect_rc 0
	expect_log_count '^GET /data/plugin/profile/hosts' 2
}

case_fault_slow() {
	start_server xprof-2.21.5 --fault slow-runs
	tp fetch --idle-timeout 500ms --retries 0 -o "$dir/out" "$URL"
	expect_rc 4
	expect_err "tpuprof: http://127.0.0.1:PORT/data/plugin/profile/runs: no data for 0.5 s (see --idle-timeout)"
}

case_fault_slow_file() {
	start_server none --fault slow-file
	tp fetch -q --token "$TOKEN" --idle-timeout 300ms --retries 1 --retry-delay 10ms \
		-o "$dir/out" gs://tpuprof-test/logs
	expect_rc 4
	expect_err "tpuprof: gs://tpuprof-test/logs/plugins/profile/2024_06_01_10_00_00/tpu_inference_2.xplane.pb: no data for 0.3 s (see --idle-timeout) (after 2 attempts)"
	expect_files "$dir/out" "$NEWEST/34.83.195.179_6003.xplane.pb"
}

case_fault_wrong_type() {
	start_server tb-2.18.0 --fault wrong-type
	tp fetch -o "$dir/out" "$URL"
	expect_rc 4
	expect_err "tpuprof: note: taking the newest of 3 runs, '2024_06_01_10_00_00' (choose with --run NAME)
tpuprof: http://127.0.0.1:PORT/data/plugin/profile/hosts?run=2024_06_01_10_00_00&tag=xplane: content type text/plain, not JSON"
	[ -e "$dir/out" ] && bad "a failed fetch created $dir/out"
}

case_fault_html_200() {
	start_server xprof-2.21.5 --fault html-runs
	tp fetch -o "$dir/out" "$URL"
	expect_rc 4
	expect_err "tpuprof: http://127.0.0.1:PORT/data/plugin/profile/runs: an HTML page (text/html), not JSON (a route this server does not know?)"
}

case_fault_html_file() {
	start_server none --fault html-file
	tp fetch -q -j 1 -o "$dir/out" "$URL/static/logs/"
	expect_rc 4
	expect_err "tpuprof: http://127.0.0.1:PORT/static/logs/plugins/profile/2024_06_01_10_00_00/tpu_inference_2.xplane.pb: an HTML page (text/html), not an XSpace (.xplane.pb) (a route this server does not know?)"
	expect_files "$dir/out" "$NEWEST/34.83.195.179_6003.xplane.pb"
}

case_fault_truncated_gzip() {
	start_server xprof-2.21.5 --fault truncated-gzip
	tp fetch -q -j 1 --tools memory_profile,op_profile -o "$dir/out" "$URL"
	expect_rc 4
	sed 's/([0-9]* bytes decoded/(N bytes decoded/' "$dir/stderr" >"$dir/stderr.n"
	mv "$dir/stderr.n" "$dir/stderr"
	expect_err "tpuprof: http://127.0.0.1:PORT/data/plugin/profile/data?run=2024_06_01_10_00_00&tag=op_profile&host=34.83.195.179_6003: truncated gzip data (N bytes decoded before the body ended)"
	expect_files "$dir/out" "$NEWEST/34.83.195.179_6003.memory_profile.json
$NEWEST/tpu_inference_2.memory_profile.json"
}

case_fault_endless() {
	start_server none --fault endless
	tp fetch -q -j 1 --token "$TOKEN" --max-size 4MiB -o "$dir/out" gs://tpuprof-test/logs
	expect_rc 4
	expect_err "tpuprof: gs://tpuprof-test/logs/plugins/profile/2024_06_01_10_00_00/tpu_inference_2.xplane.pb: the answer is larger than the limit of 4194304 bytes (see --max-size)"
	expect_files "$dir/out" "$NEWEST/34.83.195.179_6003.xplane.pb"
}

# Hostile names never leave -o DIR and never reach the terminal raw.
case_fault_hostile_names() {
	start_server xprof-2.21.5 --fault hostile
	tp fetch --tools memory_profile,graph_viewer --run '../../x' -o "$dir/work/out" "$URL"
	expect_rc 0
	expect_err "tpuprof: note: run '../../x' is saved as '___.._x'
tpuprof: note: module '../evil(1)' is saved as '___evil(1)'
tpuprof: note: module '.hidden(3)' is saved as '_hidden(3)'
tpuprof: note: host '../../h' is saved as '___.._h'
tpuprof: note: host '/etc/y' is saved as '_etc_y'
tpuprof: note: host 'a\nb' is saved as 'a_b'"
	expect_files "$dir/work" "out/plugins/profile/___.._x/___evil(1).hlo_proto.pb
out/plugins/profile/___.._x/ok(2).hlo_proto.pb
out/plugins/profile/___.._x/_hidden(3).hlo_proto.pb
out/plugins/profile/___.._x/___.._h.memory_profile.json
out/plugins/profile/___.._x/_etc_y.memory_profile.json
out/plugins/profile/___.._x/a_b.memory_profile.json"
	ls /etc/y* >/dev/null 2>&1 && bad "something was written to /etc"
}

# A run whose name is no plain relative path is not looked for in the
# server's logdir, readable as it is: said so (it said the logdir was "not
# readable here").
case_hostile_run_raw() {
	start_server tb-2.18.0 --data-location local --fault hostile
	tp fetch -n --tools none --run '../../x' -o "$dir/out" "$URL"
	expect_rc 0
	expect_out "raw .xplane.pb files: the run name '../../x' is no plain relative path (it holds '..', starts with '/' or is empty), so no folder of the server's logdir 'CASE/srv/logs' is read for it"
}

case_fault_hostile_objects() {
	start_server none --fault hostile
	tp fetch -q --token "$TOKEN" --run .. -o "$dir/out" gs://tpuprof-test/logs
	expect_rc 0
	expect_files "$dir/out" "plugins/profile/__/up.xplane.pb"
	tp fetch --token "$TOKEN" --run "r
un" -o "$dir/out" gs://tpuprof-test/logs
	expect_rc 0
	expect_err "tpuprof: note: run 'r\nun' is saved as 'r_un'
tpuprof: note: file 'h\nost' is saved as 'h_ost'"
	expect_out 'raw files   gs://tpuprof-test/logs/plugins/profile/r\nun'
	expect_files "$dir/out" "plugins/profile/__/up.xplane.pb
plugins/profile/r_un/h_ost.xplane.pb"
	expect_no_log 'escape'
}

# ---- capture ----

case_capture() {
	start_server tb-2.18.0 --data-location local
	tp capture --service-addr localhost:9012 --duration-ms 500 --tools none \
		-o "$dir/out" "$URL"
	expect_rc 0
	expect_err ""
	expect_files "$dir/out" "plugins/profile/2024_07_01_00_00_00/localhost_9012.xplane.pb"
	expect_same "$dir/out/plugins/profile/2024_07_01_00_00_00/localhost_9012.xplane.pb" "$ELEM"
	expect_log '^GET /data/plugin/profile/capture_profile\?service_addr=localhost%3A9012&is_tpu_name=false&duration=500&num_retry=0&worker_list=&host_tracer_level=2&device_tracer_level=1&python_tracer_level=0&delay=0 '
	expect_out 'capture     Capture profile successfully. Please refresh.'
	expect_info "$dir/out"
}

case_capture_error_200() {
	start_server tb-2.18.0
	tp capture --service-addr 10.0.0.2:1 --num-retry 2 --delay-ms 5 -o "$dir/out" "$URL"
	expect_rc 4
	expect_err "tpuprof: http://127.0.0.1:PORT/data/plugin/profile/capture_profile?service_addr=10.0.0.2%3A1&is_tpu_name=false&duration=1000&num_retry=2&worker_list=&host_tracer_level=2&device_tracer_level=1&python_tracer_level=0&delay=5: the server could not capture: empty trace result."
	expect_log_count capture_profile 1
}

case_capture_error_500() {
	start_server xprof-2.21.5
	tp capture --service-addr 10.0.0.2:1 --retries 3 -o "$dir/out" "$URL"
	expect_rc 4
	expect_err "tpuprof: http://127.0.0.1:PORT/data/plugin/profile/capture_profile?service_addr=10.0.0.2%3A1&is_tpu_name=false&duration=1000&num_retry=0&worker_list=&host_tracer_level=2&device_tracer_level=1&python_tracer_level=0&delay=0: the server could not capture: empty trace result."
	# a capture is never repeated by the client
	expect_log_count capture_profile 1
}

case_capture_dry_run() {
	start_server xprof-2.21.5
	tp capture -n --service-addr localhost:9012 -o "$dir/out" "$URL"
	expect_rc 0
	expect_err "tpuprof: note: dry run: would ask http://127.0.0.1:PORT/data/plugin/profile/capture_profile?service_addr=localhost%3A9012&is_tpu_name=false&duration=1000&num_retry=0&worker_list=&host_tracer_level=2&device_tracer_level=1&python_tracer_level=0&delay=0, then fetch the run that appears"
	expect_log_count capture_profile 0
	[ -e "$dir/out" ] && bad "--dry-run created $dir/out"
}

case_capture_timeout() {
	start_server xprof-2.21.5 --fault slow-capture
	tp capture --service-addr localhost:9012 --capture-timeout 500ms -o "$dir/out" "$URL"
	expect_rc 4
	expect_err "tpuprof: http://127.0.0.1:PORT/data/plugin/profile/capture_profile?service_addr=localhost%3A9012&is_tpu_name=false&duration=1000&num_retry=0&worker_list=&host_tracer_level=2&device_tracer_level=1&python_tracer_level=0&delay=0: no data for 0.5 s (see --capture-timeout)"
	expect_log_count capture_profile 1
}

case_capture_no_new_run() {
	start_server xprof-2.21.5 --fault no-new-run
	tp capture --service-addr localhost:9012 -o "$dir/out" "$URL"
	expect_rc 4
	expect_err "tpuprof: http://127.0.0.1:PORT: the server reported a capture, but no new run appeared (the profiled machine may have saved it in its own logdir; see docs/fetch.md)"
}

case_capture_not_a_server() {
	start_server none
	tp capture --service-addr localhost:9012 -o "$dir/out" "$URL/static/logs/"
	expect_rc 4
	expect_err "tpuprof: http://127.0.0.1:PORT/static/logs/: no TensorBoard or XProf profile plugin answers there (no /runs or /tools)"
}

# A terminal gets a progress line on stderr; a pipe does not (above).
case_progress_tty() {
	command -v script >/dev/null 2>&1 || { echo "skip $case: no script(1)"; return; }
	start_server none
	script -qec "$TPUPROF fetch -o '$dir/out' '$URL/static/logs/'" "$dir/typescript" \
		>/dev/null 2>&1 </dev/null
	grep -q '2/2 files' "$dir/typescript" || bad "no progress line on a terminal"
}

# A chunked capture (.xplane.riegeli) fetched from GCS and from a static
# logdir: the bytes as they are (a Riegeli golden file stands in for one).
RIEGELI=$CAPTURES/riegeli-golden/multi_records_zstd.riegeli
case_gcs_riegeli() {
	start_server none --chunked "$RIEGELI"
	tp fetch --token-command "echo $TOKEN" -o "$dir/out" \
		gs://tpuprof-test/logs/chunked/plugins/profile/2024_04_01_00_00_00/
	expect_rc 0
	expect_files "$dir/out" "plugins/profile/2024_04_01_00_00_00/tpu_chunked.xplane.riegeli"
	expect_same "$dir/out/plugins/profile/2024_04_01_00_00_00/tpu_chunked.xplane.riegeli" "$RIEGELI"
}

case_tb_riegeli() {
	start_server tb-2.15.2 --data-location gs --chunked "$RIEGELI"
	tp fetch --token "$TOKEN" --tools memory_profile --run chunked/2024_04_01_00_00_00 \
		-o "$dir/out" "$URL/"
	expect_rc 0
	expect_files "$dir/out" "plugins/profile/chunked_2024_04_01_00_00_00/tpu_chunked.xplane.riegeli
plugins/profile/chunked_2024_04_01_00_00_00/tpu_chunked.memory_profile.json"
	expect_same "$dir/out/plugins/profile/chunked_2024_04_01_00_00_00/tpu_chunked.xplane.riegeli" "$RIEGELI"
}

case_static_riegeli() {
	start_server none --chunked "$RIEGELI"
	tp fetch -o "$dir/out" "$URL/static/logs/chunked/"
	expect_rc 0
	expect_files "$dir/out" "plugins/profile/2024_04_01_00_00_00/tpu_chunked.xplane.riegeli"
	expect_same "$dir/out/plugins/profile/2024_04_01_00_00_00/tpu_chunked.xplane.riegeli" "$RIEGELI"
}

PATTERNS="$*"
for c in tb-2.4 tb-2.15-gcs tb-2.18-objects xprof-2.20 xprof-golden xprof-json-summary \
	xprof-browser-url dry-run keep-and-force header-redirects redirect-errors gcs-cut-short gcs-dup-listing gcs-name-clash tool-500 no-files output-errors gcs gcs-nested-run gcs-one-object gcs-bad-token \
	gcs-token-command-fails static static-one-file tls fault-reset-resume \
	fault-reset-fails fault-resume-across-runs part-of-another-object tb-no-plugin fault-500 fault-500-once \
	fault-429 fault-slow fault-slow-file fault-wrong-type fault-html-200 fault-html-file \
	fault-truncated-gzip fault-endless fault-hostile-names hostile-run-raw fault-hostile-objects \
	capture capture-error-200 capture-error-500 capture-dry-run capture-timeout capture-no-new-run \
	capture-not-a-server progress-tty gcs-riegeli tb-riegeli static-riegeli no-libcurl; do
	run_case "$c"
done
echo "fetch: $pass passed, $fail failed${failed:+ (}${failed# }${failed:+)}"
[ $fail = 0 ]
