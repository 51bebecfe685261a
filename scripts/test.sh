#!/usr/bin/env bash
# Installs what is missing, builds Gantry, and runs the whole test suite: the
# unit, actor, multi-process and end-to-end tests on a normal build, then the
# same suite on an AddressSanitizer + UndefinedBehaviorSanitizer build.
# Exits non-zero on any failure. Set GANTRY_SKIP_SANITIZE=1 to skip the second run.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/bootstrap.sh
jobs=$(nproc)
# Let ccache share objects between clones in different folders.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true

build_and_test() {
  local dir=$1
  shift
  cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
  ctest --test-dir "$dir" --output-on-failure --timeout 600 -j "$jobs"
}

echo "== build and test (RelWithDebInfo)"
build_and_test build -DCMAKE_BUILD_TYPE=RelWithDebInfo

if [ "${GANTRY_SKIP_SANITIZE:-0}" != "1" ]; then
  echo "== build and test (ASan + UBSan)"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    build_and_test build-asan -DCMAKE_BUILD_TYPE=Debug -DGANTRY_SANITIZE=ON -DGANTRY_BENCH=OFF
fi
