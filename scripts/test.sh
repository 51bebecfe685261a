#!/usr/bin/env bash
# Installs what is missing, builds Gantry, and runs the whole test suite: the
# unit, actor, multi-process and end-to-end tests on a normal build, then the
# same suite on an AddressSanitizer + UndefinedBehaviorSanitizer build, then
# every libFuzzer target (tests/fuzz) for a short fixed number of runs.
# Exits non-zero on any failure. Set GANTRY_SKIP_SANITIZE=1 to skip the second
# run and the fuzzing, GANTRY_SKIP_FUZZ=1 to skip the fuzzing only.
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

if [ "${GANTRY_SKIP_SANITIZE:-0}" != "1" ] && [ "${GANTRY_SKIP_FUZZ:-0}" != "1" ]; then
  echo "== fuzz targets (clang-14, libFuzzer + ASan + UBSan, short runs)"
  # Its own tree: clang objects and g++ objects do not mix. Only the fuzz
  # targets and the parser sources they reach are built.
  cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGANTRY_FUZZ=ON >/dev/null
  cmake --build build-fuzz -j "$jobs"
  # A fixed number of runs from the seed corpus; any crash, sanitizer report,
  # leak or 10 s input fails the suite and leaves the input in
  # build-fuzz/crashes/. New inputs go to a scratch folder (the first one
  # named), never into the checked-in corpus.
  rm -rf build-fuzz/crashes build-fuzz/new-inputs
  mkdir -p build-fuzz/crashes
  for target in build-fuzz/bin/fuzz_*; do
    name=${target#build-fuzz/bin/fuzz_}
    echo "fuzz_$name"
    mkdir -p "build-fuzz/new-inputs/$name"
    UBSAN_OPTIONS=print_stacktrace=1 "$target" -runs=20000 -max_len=4096 -timeout=10 \
      -rss_limit_mb=2048 -artifact_prefix="build-fuzz/crashes/$name-" \
      "build-fuzz/new-inputs/$name" "tests/fuzz/corpus/$name" 2>"build-fuzz/crashes/$name.log" ||
      { tail -n 60 "build-fuzz/crashes/$name.log"; exit 1; }
  done
fi
