# bench_floor.sh - issue 38's rows of `make bench`, sourced by bench.sh
# (which defines generate, measure, div, per_file, target and get): each
# shape side by side with the decode floor, ../shared/tools/pbwalk.c
# built with `cc -O2` (one thread that maps the file and steps over every
# field of every plane, line, event and stat, keeping nothing), measured
# in the same run on the same file:
#  - the TPU training shape at BENCH_FLOOR_SIZES MB (default "20 200
#    2000": how report scales with the capture; below 200 MB the
#    capture's fixed part, its programs' HLO and every op's row, is most
#    of the work and of the document, so such rows are for the record);
#  - the GPU shapes (jax-gpu, tf-gpu) at 200 MB.
# Each row: the floor, `report --format json`, `ops --limit 0 --format
# json`, wall, CPU and peak RSS against the file; then issue 38's targets
# for each (wall at most the floor's, peak RSS at most 0.2x the file;
# the report and ops documents under 0.1x the file on the many-step
# capture, where they must not grow with steps; for the record on the
# others, whose documents are their ops' rows); bench.sh's many-step
# capture is held to the same rows. BENCH_FLOOR=0 skips it; so
# does a machine without ../shared (no floor to hold tpuprof to).

floor_sizes=${BENCH_FLOOR_SIZES-20 200 2000}
floor_bin=$dir/pbwalk
floor_rows=''

# floor_build: the floor tool, once; false without ../shared
floor_build() {
	[ -x "$floor_bin" ] && return 0
	[ -f ../shared/tools/pbwalk.c ] || return 1
	cc -O2 -o "$floor_bin" ../shared/tools/pbwalk.c
}

# floor_rounds: $runs rounds of the floor, report and ops on $cap, one
# after the other in each round (the machine's drift between runs falls
# on all three alike), into $dir/fl-floor.txt, fl-report.txt and
# fl-ops.txt; false (and says so) when one fails
floor_rounds() {
	warm "$cap"
	: >"$dir/fl-floor.txt"
	: >"$dir/fl-report.txt"
	: >"$dir/fl-ops.txt"
	i=0
	while [ "$i" -lt "$runs" ]; do
		for what in floor report ops; do
			case $what in
			floor) set -- "$floor_bin" "$cap" ;;
			report) set -- "$tpuprof" report -q --format json "$cap" ;;
			ops) set -- "$tpuprof" ops -q --limit 0 --format json "$cap" ;;
			esac
			if ! timed "$dir/time.txt" "$@" 2>"$dir/stderr.txt"; then
				echo "  $what: failed: $(tail -1 "$dir/stderr.txt")"
				return 1
			fi
			cat "$dir/time.txt" >>"$dir/fl-$what.txt"
		done
		i=$((i + 1))
	done
}

# floor_row KEY CAPTURE [RECORD]: the floor, report and ops on CAPTURE;
# keeps the figures under KEY for floor_targets (RECORD: for the record)
floor_row() {
	key=$1 cap=$2
	eval "fl_record_$key=\${3:-}"
	b=$(wc -c <"$cap")
	echo "capture: $cap ($b bytes)"
	floor_rounds || return 0
	summarize "floor: pbwalk (1 thread)" "$b" "$b" "$dir/fl-floor.txt"
	eval "fl_floor_$key=\$wall"
	summarize "tpuprof report --format json" "$b" "$b" "$dir/fl-report.txt"
	eval "fl_rep_$key=\$wall fl_rep_rss_$key=\$rss fl_bytes_$key=\$b"
	"$tpuprof" report -q --format json "$cap" 2>/dev/null | wc -c >"$dir/doc.txt"
	eval "fl_doc_$key=\$(cat \"\$dir/doc.txt\")"
	summarize "tpuprof ops --limit 0 --format json" "$b" "$b" "$dir/fl-ops.txt"
	eval "fl_ops_$key=\$wall fl_ops_rss_$key=\$rss"
	"$tpuprof" ops -q --limit 0 --format json "$cap" 2>/dev/null | wc -c >"$dir/doc.txt"
	eval "fl_ops_doc_$key=\$(cat \"\$dir/doc.txt\")"
	echo "  report / floor: $(div "$(get "fl_rep_$key")" "$(get "fl_floor_$key")")x," \
		"ops / floor: $(div "$(get "fl_ops_$key")" "$(get "fl_floor_$key")")x," \
		"report document: $(get "fl_doc_$key") bytes ($(div "$(get "fl_doc_$key")00" "$b")% of the file)"
	floor_rows="$floor_rows $key"
}

bench_floor() {
	if ! floor_build; then
		echo "floor (issue 38): skipped (no ../shared/tools/pbwalk.c)"
		return 0
	fi
	echo "side by side with the decode floor (issue 38):"
	for mb in $floor_sizes; do
		cap=$dir/train-${mb}mb.xplane.pb
		generate "$cap" "${mb}000000"
		floor_row "tpu_${mb}mb" "$cap" "$([ "$mb" -lt 200 ] && echo record)"
	done
	for shape in jax-gpu tf-gpu; do
		cap=$dir/${shape}-200mb.xplane.pb
		generate "$cap" 200000000 --shape "$shape"
		floor_row "$(echo "$shape" | tr - _)_200mb" "$cap"
	done
}

floor_targets() {
	[ -n "$floor_rows" ] || return 0
	echo "targets (issue 38, each beside the one-thread floor in the same run):"
	for key in $floor_rows; do
		k=$key
		[ -z "$(get "fl_record_$key")" ] || k="($key, for the record)"
		target "$k: report wall / floor wall (x)" \
			"$(div "$(get "fl_rep_$key")" "$(get "fl_floor_$key")")" "<=" 1
		target "$k: ops wall / floor wall (x)" \
			"$(div "$(get "fl_ops_$key")" "$(get "fl_floor_$key")")" "<=" 1
		target "$k: report peak RSS / file" \
			"$(per_file "$(get "fl_rep_rss_$key")" "$(get "fl_bytes_$key")")" "<=" 0.2
		target "$k: ops peak RSS / file" \
			"$(per_file "$(get "fl_ops_rss_$key")" "$(get "fl_bytes_$key")")" "<=" 0.2
		# the documents must not grow with steps (issue 38: the
		# many-step capture's under 0.1x); elsewhere their size is the
		# ops' rows, a capture's fixed part, shown for the record
		case $key in
		many_steps_*) doc=target ;;
		*) doc=record ;;
		esac
		$doc "$k: report document / file (%)" \
			"$(div "$(get "fl_doc_$key")00" "$(get "fl_bytes_$key")")" "<" 10
		$doc "$k: ops document / file (%)" \
			"$(div "$(get "fl_ops_doc_$key")00" "$(get "fl_bytes_$key")")" "<" 10
	done
}
