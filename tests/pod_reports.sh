#!/bin/sh
# pod_reports.sh REPORT.json DIR: 1,024 host reports in DIR
# (host0000.json ... host1023.json), each REPORT.json with its host
# "host0" renamed, for merging at pod scale (tests/scale_test.sh,
# tests/bench.sh). One awk process.
set -eu
mkdir -p "$2"
awk -v dir="$2" '{ line[NR] = $0 } END {
	for (h = 0; h < 1024; h++) {
		f = sprintf("%s/host%04d.json", dir, h)
		for (i = 1; i <= NR; i++) {
			s = line[i]; gsub(/"host0"/, sprintf("\"host%04d\"", h), s); print s > f
		}
		close(f)
	} }' "$1"
