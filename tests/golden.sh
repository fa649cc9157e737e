#!/bin/sh
# Golden CLI tests: each tests/golden/NAME.cmd holds the arguments of one
# tpuprof run (shell words, evaluated from the project root); NAME.out,
# NAME.err and NAME.exit hold the exact stdout, stderr and exit status.
#
#   TPUPROF=build/tpuprof sh tests/golden.sh            run all
#   TPUPROF=build/tpuprof sh tests/golden.sh --update   rewrite expectations
#   TPUPROF=build/tpuprof sh tests/golden.sh --update 'fetch-*'   only those
#
# The environment is pinned (LC_ALL=C, no proxies, TZ=UTC) so output does
# not depend on the machine. Expectations were checked by hand and, for
# the shared captures, against tests/reference/ before being committed.
set -u
cd "$(dirname "$0")/.." || exit 2
TPUPROF=${TPUPROF:-build/tpuprof}
TEST_WRAP=${TEST_WRAP:-}
update=0
pattern='*'
[ "${1:-}" = "--update" ] && update=1 && pattern=${2:-*}
# a name, not a path: a pattern with a / (or matching no test) once ran
# tpuprof with no arguments and wrote its usage as expectations at the top
# of the tree
case $pattern in */*) echo "golden: '$pattern': a test's name or a pattern of names, not a path" >&2; exit 2 ;; esac
export LC_ALL=C TZ=UTC
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY no_proxy
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0 skipped=0
# a clone without ../shared (the reference captures) runs the rest
shared=1
[ -d ../shared/captures ] || shared=0
for cmd in tests/golden/$pattern.cmd; do
	[ -f "$cmd" ] || { echo "golden: no test matches tests/golden/$pattern.cmd" >&2; exit 2; }
	name=${cmd%.cmd}
	args=$(cat "$cmd")
	case $args in
	*../shared/*) if [ $shared = 0 ]; then skipped=$((skipped + 1)); continue; fi ;;
	esac
	eval "$TEST_WRAP $TPUPROF $args" >"$tmp/out" 2>"$tmp/err" </dev/null
	echo $? >"$tmp/exit"
	if [ $update = 1 ]; then
		cp "$tmp/out" "$name.out"
		cp "$tmp/err" "$name.err"
		cp "$tmp/exit" "$name.exit"
		continue
	fi
	ok=1
	for part in out err exit; do
		if ! cmp -s "$tmp/$part" "$name.$part"; then
			ok=0
			echo "FAIL $name ($part differs):"
			diff -u "$name.$part" "$tmp/$part" | head -20
		fi
	done
	if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
[ $update = 1 ] && { echo "golden expectations rewritten"; exit 0; }
if [ $skipped -gt 0 ]; then
	echo "golden: $pass passed, $fail failed, $skipped skipped (they read ../shared, absent)"
else
	echo "golden: $pass passed, $fail failed"
fi
[ $fail = 0 ]
