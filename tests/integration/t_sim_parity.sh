# Acceptance 1 of the simulator: on three programs (one forking) the
# lace-vg tool's L1i misses equal cachegrind's I1 misses for two
# geometries, its iTLB misses equal cachegrind's I1 misses with the page as
# the line, and the instruction counts are equal -- per process.
. "$SRC/tests/integration/lib.sh"
VG=$BUILD/vg
need_vg
export VALGRIND_LIB=$VG   # same environment for both tools: same instruction stream

cc -O1 -o footprint "$SRC/tests/fixtures/sim/footprint.c" || fail "cannot build footprint"
cc -O1 -o forker "$SRC/tests/fixtures/sim/forker.c" || fail "cannot build forker"
printf '%s\n' delta alpha charlie bravo echo golf foxtrot hotel > words

# cachegrind: "Ir I1mr" per process, sorted
cg() { # I1GEOM CMD...
  local geom=$1; shift
  rm -f cg.*
  valgrind -q --tool=cachegrind --cache-sim=yes --I1="$geom" --cachegrind-out-file=cg.%p \
    "$@" >/dev/null 2>cg.err || fail "cachegrind failed on $*: $(tail -3 cg.err)"
  for f in cg.[0-9]*; do awk '/^summary:/ { print $2, $3 }' "$f"; done | sort
}
# lace-vg: "instructions misses" per process, counts inherited from a
# forking parent added back (cachegrind's child files carry them), sorted
lv() { # MISSKEY TOOLOPTS CMD...
  local key=$1 opts=$2; shift 2
  rm -f lv.*
  valgrind -q --tool=lace-vg --lace-out=lv $opts "$@" >/dev/null 2>lv.err ||
    fail "lace-vg failed on $*: $(tail -3 lv.err)"
  for f in lv.[0-9]*; do
    awk -v k="$key" '$1 == "instructions" || $1 == "inherited-instructions" { i += $2 }
                     $1 == k || $1 == "inherited-" k { m += $2 }
                     END { print i, m }' "$f"
  done | sort
}

check() { # NAME CMD...
  local name=$1; shift
  local a b n
  # two L1i geometries
  a=$(cg 32768,8,64 "$@"); b=$(lv L1-icache-load-misses "--lace-l1i=32768,8,64" "$@")
  expect_eq "$b" "$a" "$name: L1i 32K/8/64 (instructions misses per process) vs cachegrind"
  a=$(cg 4096,2,128 "$@"); b=$(lv L1-icache-load-misses "--lace-l1i=4096,2,128" "$@")
  expect_eq "$b" "$a" "$name: L1i 4K/2/128 vs cachegrind"
  # iTLB: 16 entries, 4 ways, 4 KiB pages = I1 of 64 KiB, 4-way, 4096 B lines
  a=$(cg 65536,4,4096 "$@"); b=$(lv iTLB-load-misses "--lace-itlb=16,4" "$@")
  expect_eq "$b" "$a" "$name: iTLB 16/4 vs cachegrind with the page as the line"
  n=$(printf '%s\n' "$a" | awk '{ m += $2 } END { print m + 0 }')
  [ "$n" -gt 0 ] || fail "$name: no misses at all, the comparison proves nothing"
  echo "$name: per process (instructions, iTLB misses): $(echo $a)"
}

check footprint ./footprint 20
check forker ./forker 3
check sort sort words
# the forking program really gave one result per process
[ "$(ls lv.[0-9]* | wc -l)" -ge 1 ]
lv L1-icache-load-misses "" ./forker 3 >/dev/null
expect_eq "$(ls lv.[0-9]* | wc -l)" 4 "forker: result files (parent + 3 children)"
expect_match '^forked-from ' "$(cat lv.[0-9]*)"
