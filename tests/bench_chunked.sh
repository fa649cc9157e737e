# bench_chunked.sh - sourced by tests/bench.sh (its helpers: generate,
# measure, div; its variables: dir, py, pack, tpuprof): issue 38's chunked
# layouts. The 200 MB TPU-training shaped capture of the bench's options,
# split by tests/riegeli/xspace_split.py in each layout a profiler may
# write and packed by riegeli_pack:
#   planes    a chunk a plane, the two largest planes in two chunks of
#             whole lines (ids kept);
#   cut       every line cut in time across two chunks (the second half
#             of its events from a later line start; ids kept);
#   renumber  the same cut, the second chunk's metadata under other ids
#             (every event of it remapped);
# uncompressed, and the renumbered one as Zstd and as Brotli chunks too
# (Brotli at quality 6, window 22: Riegeli's default, what XProf's
# captures hold), each beside the codec's own decode time of the same
# records (zstd -d, level 3 as riegeli_pack writes; brotli -d, its
# quality and window). report's CPU (user + sys) and peak RSS on each,
# against the same capture's .pb measured just before it (the VM's load
# moves between rows); the JSON of each equals the .pb's but for the
# source fields (tests/riegeli/compare.py).
# The .riegeli files and records are deleted; the .pb is kept in bench/.
# Beside each uncompressed row, for the record, the user-space
# instructions of one run (valgrind's cachegrind, no cache model) against
# the .pb's, whole and per byte: CPU time on a shared VM swings by a
# third from one run to the next (docs/performance.md, twelfth session),
# an instruction count does not. About 15 s a capture.
#   BENCH_CHUNKED=0 skips it; BENCH_COUNT=0 skips the instruction counts.

# cpu_s: user + sys seconds of the last measure; empty if it failed
cpu_s() { awk -v w="${wall:-}" -v u="${user:-}" -v s="${sys:-}" 'BEGIN {
	if (w != "") printf "%.2f", u + s }'; }

# instructions FILE: user-space instructions of one report on FILE
# (cachegrind's I refs); empty without valgrind, with BENCH_COUNT=0, or
# when the run fails
instructions() {
	[ "${BENCH_COUNT:-1}" != 0 ] && command -v valgrind >/dev/null || return 0
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
		"$tpuprof" report -q --format json "$1" 2>&1 >/dev/null |
		awk '/I[ ]+refs:/ { gsub(",", "", $NF); print $NF }'
}

# chunked_count NAME FILE: FILE's instructions against the .pb's (counted
# once), whole and per byte: ch_ir_NAME, ch_irb_NAME
chunked_count() {
	[ -n "${ch_ir_pb:-}" ] || ch_ir_pb=$(instructions "$ch_pb")
	n=$(instructions "$2")
	[ -n "$n" ] && [ -n "$ch_ir_pb" ] || return 0
	ir=$(div "$n" "$ch_ir_pb")
	irb=$(awk -v n="$n" -v p="$ch_ir_pb" -v b="$(wc -c <"$2")" \
		-v pb="$(wc -c <"$ch_pb")" 'BEGIN { printf "%.3f", n / b / (p / pb) }')
	eval "ch_ir_$1=\$ir ch_irb_$1=\$irb"
	awk -v n="$n" -v p="$ch_ir_pb" -v b="$irb" 'BEGIN {
		printf "    instructions: %.3f G, the .pb %.3f G (%.3fx; per byte %.3fx)\n",
			n / 1e9, p / 1e9, n / p, b }'
}

# chunked_row NAME LABEL FILE: report on the .pb, then on FILE;
# ch_pbcpu_NAME, ch_pbrss_NAME, ch_cpu_NAME, ch_rss_NAME
chunked_row() {
	warm "$ch_pb" "$3"
	b=$(wc -c <"$ch_pb")
	measure "report on the .pb, beside it" "$b" "$b" "$tpuprof" report -q --format json "$ch_pb"
	eval "ch_pbcpu_$1=\$(cpu_s) ch_pbrss_$1=\${rss:-}"
	b=$(wc -c <"$3")
	measure "$2" "$b" "$b" "$tpuprof" report -q --format json "$3"
	eval "ch_cpu_$1=\$(cpu_s) ch_rss_$1=\${rss:-}"
	"$py" tests/riegeli/compare.py "$tpuprof" "$ch_pb" "$3" report \
		>"$dir/compare.txt" 2>&1 || ch_differs="$ch_differs $1"
	sed 's/^/    /' "$dir/compare.txt"
}

bench_chunked() {
	[ -n "$pack" ] || { echo "chunked layouts: skipped (no riegeli_pack)"; return 0; }
	ch_pb=$dir/tpu-200mb.xplane.pb ch_differs=''
	generate "$ch_pb" 200000000
	rec=$dir/chunked.rec
	echo "chunked layouts (issue 38): $ch_pb ($(wc -c <"$ch_pb") bytes) as .xplane.riegeli"
	ch_done=1
	for layout in planes cut renumber; do
		"$py" tests/riegeli/xspace_split.py "$dir/py" "$ch_pb" "$rec" "$layout"
		rg=$dir/chunked-$layout.xplane.riegeli
		"$pack" -c none "$rec" "$rg"
		chunked_row "$layout" "report, $layout" "$rg"
		chunked_count "$layout" "$rg"
		rm -f "$rg"
	done
	# the renumbered records (still in $rec) as Zstd chunks, and the
	# codec alone on the same records
	rg=$dir/chunked-renumber-zstd.xplane.riegeli
	"$pack" -c zstd "$rec" "$rg"
	chunked_row zstd "report, renumber, Zstd" "$rg"
	zstd -q -3 -f "$rec" -o "$rec.zst" 2>/dev/null && {
		measure "zstd -d of the same records" "$(wc -c <"$rec")" \
			"$(wc -c <"$rec")" zstd -q -d -c "$rec.zst"
		ch_codec=$(cpu_s)
	}
	rm -f "$rg" "$rec.zst"
	rg=$dir/chunked-renumber-brotli.xplane.riegeli
	"$pack" -c brotli "$rec" "$rg"
	chunked_row brotli "report, renumber, Brotli" "$rg"
	command -v brotli >/dev/null &&
		brotli -q 6 -w 22 -f -c "$rec" >"$rec.br" 2>/dev/null && {
		measure "brotli -d of the same records" "$(wc -c <"$rec")" \
			"$(wc -c <"$rec")" brotli -d -c "$rec.br"
		ch_codec_brotli=$(cpu_s)
	}
	rm -f "$rg" "$rec" "$rec.br"
}

# chunked_targets: issue 38's rows, printed by targets()
chunked_targets() {
	[ -n "${ch_done:-}" ] || return 0
	echo "targets (issue 38, chunked captures of the 200 MB TPU capture, against its .pb):"
	for layout in planes cut renumber; do
		target "$layout, uncompressed: report CPU / the .pb's (x)" \
			"$(div "$(get "ch_cpu_$layout")" "$(get "ch_pbcpu_$layout")")" "<=" 1.1
		target "$layout, uncompressed: report peak RSS / the .pb's (x)" \
			"$(div "$(get "ch_rss_$layout")" "$(get "ch_pbrss_$layout")")" "<=" 1
		record "($layout: instructions / the .pb's (x))" "$(get "ch_ir_$layout")"
		record "($layout: instructions per byte / the .pb's (x))" "$(get "ch_irb_$layout")"
	done
	# compressed: at most 1.1x the .pb's CPU plus the codec's own
	target "renumber, Zstd: report CPU / (1.1 .pb + zstd -d) (x)" \
		"$(div "${ch_cpu_zstd:-}" "$(awk -v p="${ch_pbcpu_zstd:-}" -v c="${ch_codec:-}" 'BEGIN {
			if (c != "" && p != "") print 1.1 * p + c }')")" "<=" 1
	target "renumber, Zstd: report peak RSS / the .pb's (x)" \
		"$(div "${ch_rss_zstd:-}" "${ch_pbrss_zstd:-}")" "<=" 1
	target "renumber, Brotli: report CPU / (1.1 .pb + brotli -d) (x)" \
		"$(div "${ch_cpu_brotli:-}" "$(awk -v p="${ch_pbcpu_brotli:-}" -v c="${ch_codec_brotli:-}" 'BEGIN {
			if (c != "" && p != "") print 1.1 * p + c }')")" "<=" 1
	target "renumber, Brotli: report peak RSS / the .pb's (x)" \
		"$(div "${ch_rss_brotli:-}" "${ch_pbrss_brotli:-}")" "<=" 1
	[ -z "$ch_differs" ] || echo "  JSON differs from the .pb's:$ch_differs  FAIL"
}
