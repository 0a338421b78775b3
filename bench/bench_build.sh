#!/bin/bash
# bench_build: `lace build --all` from scratch (issue 4, acceptance 5: under
# 2 minutes on 2 cores), side by side with one variant built alone.
#   - the goal is judged on CPU time (user + sys of lace and every gcc it
#     runs) / 2 cores, which does not depend on what else the machine runs;
#     the wall time is printed too;
#   - ratio all/one: 5 variants cost about 3 single builds, since variants
#     that differ only in their linker script share their objects.
# Exits 0 when (CPU / 2) < 120 s, 1 when not, 77 without a built lace.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$root/build}
LACE=${LACE:-$BUILD/lace}
[ -x "$LACE" ] || { echo "bench_build: skipped: $LACE not built"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

run() { # NAME ARGS...: prints "cpu wall" seconds
  local name=$1; shift
  /usr/bin/time -f '%U %S %e' -o "$tmp/$name.time" "$LACE" build -j 2 --out "$tmp/$name" "$@" >/dev/null \
    || { echo "bench_build: lace build $* failed" >&2; exit 2; }
  awk '{ printf "%.1f %.1f\n", $1 + $2, $3 }' "$tmp/$name.time"
}
command -v /usr/bin/time >/dev/null 2>&1 || { echo "bench_build: skipped: /usr/bin/time missing"; exit 77; }
read one_cpu one_wall < <(run one --variant baseline)
read all_cpu all_wall < <(run all --all)
awk -v oc="$one_cpu" -v ow="$one_wall" -v ac="$all_cpu" -v aw="$all_wall" 'BEGIN {
  est = ac / 2
  printf "bench_build: one variant %.1f s CPU (%.1f s wall); --all %.1f s CPU (%.1f s wall)\n", oc, ow, ac, aw
  printf "bench_build: --all / one = %.2f (5 variants, 3 flag sets)\n", ac / oc
  printf "bench_build: --all on 2 cores ~ %.1f s (goal < 120 s): %s\n", est, est < 120 ? "met" : "MISSED"
  exit est < 120 ? 0 : 1
}'
