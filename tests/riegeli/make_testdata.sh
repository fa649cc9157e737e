#!/bin/sh
# Writes testdata/riegeli/ (committed; the golden cases read them):
#   small.xplane.riegeli    testdata/small.xplane.pb split as a profiler
#                           would and written with Zstd (8 chunks)
#   damaged.xplane.riegeli  the same with one byte of its third chunk's
#                           data flipped (its data hash fails)
#   in-place.xplane.riegeli a generated capture of one TPU core whose op
#                           line crosses block headers, uncompressed (a
#                           chunk a plane): fuzz_riegeli's seed for lines
#                           read in place and the gaps the decoder steps
#                           over; 237,706 bytes, 2 mod 4, which the
#                           fuzz target reads in place (docs/fuzzing.md)
# Usage: sh tests/riegeli/make_testdata.sh RIEGELI_PACK GEN_CAPTURE
set -eu
PACK=$1
GEN=$2
cd "$(dirname "$0")/../.."
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
mkdir -p testdata/riegeli
protoc -Iproto --python_out="$DIR" proto/xplane.proto
/usr/bin/python3 tests/riegeli/xspace_split.py "$DIR" testdata/small.xplane.pb "$DIR/rec"
"$PACK" -c zstd "$DIR/rec" testdata/riegeli/small.xplane.riegeli
/usr/bin/python3 - testdata/riegeli/small.xplane.riegeli testdata/riegeli/damaged.xplane.riegeli <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
assert len(b) < 65536     # one block: chunks follow each other
pos, k = 64, 0
while pos < len(b):
    size = struct.unpack_from("<Q", b, pos + 8)[0]
    if k == 2:
        b[pos + 40 + size // 2] ^= 0x01
        break
    pos, k = pos + 40 + size, k + 1
open(sys.argv[2], "wb").write(b)
PY
"$GEN" --seed 3 --cores 1 --events-per-line 5503 -o "$DIR/one-core.xplane.pb"
/usr/bin/python3 tests/riegeli/xspace_split.py "$DIR" "$DIR/one-core.xplane.pb" \
	"$DIR/rec" planes
"$PACK" -c none "$DIR/rec" testdata/riegeli/in-place.xplane.riegeli
[ $(($(wc -c <testdata/riegeli/in-place.xplane.riegeli) % 4)) = 2 ] || {
	echo "in-place.xplane.riegeli: its size is not 2 mod 4" >&2; exit 1; }
