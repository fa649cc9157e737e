#!/bin/sh
# Installs the Debian packages tpuprof needs to build and test, and only
# those that are missing (a no-op when all are present). Runs apt-get as
# root, or through sudo when not root. chromium is for the HTML page tests
# (make html: the page opened in a real browser, headless); Brotli, Zstd,
# Snappy and HighwayHash for .xplane.riegeli captures (docs/riegeli.md).
#   sh tests/install_deps.sh           install what is missing
#   sh tests/install_deps.sh --list    print what is missing, install nothing
#   --bench   also what `make bench` measures with (GNU time, perf,
#             valgrind's instruction counts, and the brotli and zstd tools,
#             each codec's own decode time beside a compressed capture's);
#             protoc and python3-protobuf are always
#             installed (make reference uses them)
#   --fuzz    also clang and its fuzzer runtime, for `make fuzz`
set -eu
PACKAGES="gcc make pkg-config protobuf-c-compiler libprotobuf-c-dev \
libjansson-dev libcurl4-openssl-dev zlib1g-dev check python3 librsvg2-bin \
protobuf-compiler python3-protobuf parallel python3-yaml chromium \
libbrotli-dev libzstd-dev libsnappy-dev libhighwayhash-dev"
list=no
for arg in "$@"; do
	case $arg in
	--list) list=yes ;;
	--bench) PACKAGES="$PACKAGES time linux-perf valgrind brotli zstd" ;;
	--fuzz) PACKAGES="$PACKAGES clang libclang-rt-14-dev" ;;
	*) echo "usage: sh tests/install_deps.sh [--list] [--bench] [--fuzz]" >&2; exit 2 ;;
	esac
done

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
if [ "$list" = yes ]; then
	echo "${missing# }"
	exit 0
fi
[ -z "$missing" ] && exit 0
echo "tpuprof: installing missing packages:$missing" >&2
if [ "$(id -u)" = 0 ]; then
	SUDO=
elif command -v sudo >/dev/null 2>&1; then
	SUDO=sudo
else
	echo "tpuprof: need root (or sudo) to install:$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
