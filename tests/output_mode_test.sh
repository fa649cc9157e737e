#!/bin/sh
# -o FILE is written to a temporary file and renamed over FILE: the result
# has the mode a new file gets (0666 less the umask), or keeps the mode of
# the file it replaces; mkstemp alone left it 0600. An output that is one
# of the inputs (by path, through a link, --svg, or check's --baseline,
# or a file a directory, logdir or pattern argument expands to) is
# refused with exit 2
# and the input left as it was; before, the output replaced the capture.
# A closed pipe ends quietly (exit 141).
#   sh tests/output_mode_test.sh TPUPROF
set -u
tpuprof=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
expect() {
	got=$(stat -c %a "$2")
	if [ "$got" = "$1" ]; then pass=$((pass + 1)); else
		fail=$((fail + 1)); echo "FAIL output mode: $3: $got, expected $1"; fi
}
(umask 022; "$tpuprof" info -o "$tmp/new.json" --format json testdata/small.xplane.pb)
expect 644 "$tmp/new.json" "new file, umask 022"
(umask 027; "$tpuprof" report -o "$tmp/new.txt" testdata/small.xplane.pb)
expect 640 "$tmp/new.txt" "new file, umask 027"
: >"$tmp/kept.json"; chmod 604 "$tmp/kept.json"
(umask 077; "$tpuprof" info -o "$tmp/kept.json" --format json testdata/small.xplane.pb)
expect 604 "$tmp/kept.json" "replaced file keeps its mode"
cp testdata/small.xplane.pb "$tmp/cap.pb"
ln -s cap.pb "$tmp/link.pb"
"$tpuprof" report --format json -q -o "$tmp/rep.json" testdata/small.xplane.pb
cp "$tmp/rep.json" "$tmp/rep0.json"
refused() { # WHAT FILE WAS ARGS...: exit 2, the message, FILE still WAS
	what=$1 file=$2 was=$3
	shift 3
	"$tpuprof" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && grep -q "is also an input: the output would replace it" "$tmp/err" &&
		cmp -s "$file" "$was"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL output is input: $what: exit $rc, $(cat "$tmp/err")"
	fi
}
small=testdata/small.xplane.pb
refused "trace -o" "$tmp/cap.pb" $small trace -q "$tmp/cap.pb" -o "$tmp/cap.pb"
cp $small "$tmp/cap.pb"
refused "report -o ./path" "$tmp/cap.pb" $small report "$tmp/cap.pb" -o "$tmp/./cap.pb"
cp $small "$tmp/cap.pb"
refused "info -o via a link" "$tmp/cap.pb" $small info "$tmp/link.pb" -o "$tmp/cap.pb"
cp $small "$tmp/cap.pb"
refused "memory --svg" "$tmp/cap.pb" $small memory "$tmp/cap.pb" --svg "$tmp/cap.pb"
refused "merge -o" "$tmp/rep.json" "$tmp/rep0.json" merge -q "$tmp/rep.json" -o "$tmp/rep.json"
# check's --baseline is an input too: its verdict written over it lost
# the baseline without a word (exit 0)
refused "check -o over --baseline" "$tmp/rep.json" "$tmp/rep0.json" check --max-growth 5% \
	--baseline "$tmp/rep.json" -o "$tmp/rep.json" $small
refused "check --json-out over --baseline" "$tmp/rep.json" "$tmp/rep0.json" check \
	--max-growth 5% --baseline "$tmp/rep.json" --json-out "$tmp/rep.json" $small
# A file a directory, logdir or pattern argument expands to is an input
# too, compared with the files read by device and inode; before, only the
# arguments were, and the output was renamed over the capture (exit 0).
log=$tmp/log/plugins/profile/r1
mkdir -p "$log" "$tmp/rundir" "$tmp/reps"
host=$log/host0.xplane.pb
cp $small "$host"
cp $small "$tmp/rundir/h.xplane.pb"
for args in "report $tmp/log" "trace -q $tmp/log" "info $tmp/log" "ops $tmp/log" \
	"memory $tmp/log" "fusions $tmp/log" "collectives $tmp/log" \
	"check $tmp/log --max-peak 100GiB" "diff $small $tmp/log"; do
	cp $small "$host"   # as it was, whatever an earlier case did
	# shellcheck disable=SC2086
	refused "$args -o (in a logdir)" "$host" $small $args -o "$host"
done
cp $small "$host"
refused "memory --svg (in a logdir)" "$host" $small memory "$tmp/log" --svg "$host"
refused "check --json-out (in a logdir)" "$host" $small check "$tmp/log" --max-peak 100GiB \
	--json-out "$host"
refused "check -o over a --baseline logdir" "$host" $small check $small --max-growth 5% \
	--baseline "$tmp/log" -o "$host"
refused "report -o (in a run directory)" "$tmp/rundir/h.xplane.pb" $small report \
	"$tmp/rundir" -o "$tmp/rundir/h.xplane.pb"
cp "$tmp/rep0.json" "$tmp/reps/a.json"
refused "merge DIR -o" "$tmp/reps/a.json" "$tmp/rep0.json" merge -q "$tmp/reps" \
	-o "$tmp/reps/a.json" --format text
refused "merge 'GLOB' -o" "$tmp/reps/a.json" "$tmp/rep0.json" merge -q "$tmp/reps/*.json" \
	-o "$tmp/reps/a.json" --format text
# a file beside the captures that is not read may be written
if "$tpuprof" report -q "$tmp/log" -o "$tmp/log/report.txt" && [ -s "$tmp/log/report.txt" ] &&
	"$tpuprof" merge -q "$tmp/reps" -o "$tmp/reps/merged.txt" --format text; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
	echo "FAIL an output beside the inputs was refused"
fi
# -o "" (-o "$OUT" with OUT unset) names no file: exit 2, one line
# (before: exit 5, "cannot replace ''")
"$tpuprof" report -o "" $small >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && [ "$(cat "$tmp/err")" = "tpuprof: empty name for -o (a file, or - for standard output) (see 'tpuprof help report')" ]; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
	echo "FAIL -o '': exit $rc, $(cat "$tmp/err")"
fi
# A reader that closes the pipe early (| head) ends the run quietly with
# 141, the status of git or grep killed by SIGPIPE; before, "cannot write
# standard output: Broken pipe" and 5. The document (tens of KiB) is
# larger than what the pipe takes before head -c 1 has closed it.
pipe_closed() { # WHAT ARGS...
	what=$1
	shift
	("$tpuprof" "$@" 2>"$tmp/pipe.err"; echo $? >"$tmp/pipe.rc") | head -c 1 >/dev/null
	rc=$(cat "$tmp/pipe.rc")
	if [ "$rc" = 141 ] && [ ! -s "$tmp/pipe.err" ]; then pass=$((pass + 1)); else
		fail=$((fail + 1)); echo "FAIL closed pipe: $what: exit $rc, $(cat "$tmp/pipe.err")"; fi
}
# Past a file-size limit (ulimit -f) a write fails with EFBIG: exit 5,
# one line naming what could not be written, nothing left behind. Before,
# SIGXFSZ killed the run (exit 153) and left -o's FILE.tmp.XXXXXX there.
too_large() { # WHAT MESSAGE TMPDIR ARGS...: run with ulimit -f 2 (TMPDIR "": /tmp)
	what=$1 message=$2 dir=$3
	shift 3
	(ulimit -f 2; TMPDIR=$dir "$tpuprof" "$@" >/dev/null 2>"$tmp/big.err"; echo $? >"$tmp/big.rc")
	rc=$(cat "$tmp/big.rc")
	if [ "$rc" = 5 ] && grep -q "$message" "$tmp/big.err" &&
		[ "$(wc -l <"$tmp/big.err")" = 1 ] && [ -z "$(ls "$tmp/big" 2>/dev/null)" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL file size limit: $what: exit $rc, $(cat "$tmp/big.err"), left: $(ls "$tmp/big")"
	fi
}
mkdir "$tmp/big"
too_large "report -o" "cannot write $tmp/big/rep.json: File too large" "" \
	report --format json -q -o "$tmp/big/rep.json" $small
too_large "the merge's temporary files" \
	"cannot write the temporary file in $tmp/big its chunks are merged into: File too large" "$tmp/big" \
	report -q testdata/riegeli/small.xplane.riegeli
too_large "no TMPDIR" \
	"cannot create a temporary file in $tmp/none to merge its chunks: No such file or directory" "$tmp/none" \
	report -q testdata/riegeli/small.xplane.riegeli
v6e=../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb
if [ -f $v6e ]; then  # a clone without ../shared runs the rest
	pipe_closed "info --format json" info --format json $v6e
	pipe_closed "memory --format html" memory --format html $v6e
	pipe_closed "trace -o -" trace -o - $v6e
	pipe_closed "trace -o /dev/stdout" trace -o /dev/stdout $v6e
	pipe_closed "report --format json -o /dev/stdout" report --format json -o /dev/stdout $v6e
fi
echo "output mode: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
