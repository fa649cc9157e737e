#!/bin/sh
# -o FILE is written to a temporary file and renamed over FILE: the result
# has the mode a new file gets (0666 less the umask), or keeps the mode of
# the file it replaces; mkstemp alone left it 0600.
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
echo "output mode: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
