#!/bin/bash
# lace build --shuffle K --seed S: K randomized layouts of baseline,
# reproducible to the byte wherever they are built, different from each
# other and from another seed, and still working programs.
. "$SRC/tests/integration/lib.sh"

expect_exit 0 "$LACE" build --shuffle 2 --seed 7 -p hashmmu-driver --out "$T/a"
expect_match "baseline-shuffle-1" "$OUT"
expect_exit 0 "$LACE" build --shuffle 2 --seed 7 -p hashmmu-driver --out "$T/b"
expect_exit 0 "$LACE" build --shuffle 1 --seed 8 -p hashmmu-driver --out "$T/c"
[ -d "$T/a/baseline" ] && fail "--shuffle alone should build only the shuffled layouts"

for i in 1 2; do
  cmp -s "$T/a/baseline-shuffle-$i/hashmmu-driver" "$T/b/baseline-shuffle-$i/hashmmu-driver" \
    || fail "seed 7 build $i differs between two output folders"
  cmp -s "$T/a/baseline-shuffle-$i/link.ld" "$T/b/baseline-shuffle-$i/link.ld" || fail "scripts differ"
done
cmp -s "$T/a/baseline-shuffle-1/hashmmu-driver" "$T/a/baseline-shuffle-2/hashmmu-driver" \
  && fail "builds 1 and 2 of one seed are identical"
cmp -s "$T/a/baseline-shuffle-1/hashmmu-driver" "$T/c/baseline-shuffle-1/hashmmu-driver" \
  && fail "seeds 7 and 8 give the same build"

# the order of functions really changes
order() { nm -n "$1" | awk '$2 ~ /^[Tt]$/ { print $3 }' | grep -E '^(hash_page_mm|hpte_insert|hpte_remove|lace_syscall|vsid_scramble|hashmmu_touch)$' | tr '\n' ' '; }
o1=$(order "$T/a/baseline-shuffle-1/hashmmu-driver")
o2=$(order "$T/a/baseline-shuffle-2/hashmmu-driver")
[ "$o1" != "$o2" ] || fail "same function order in both shuffled builds: $o1"
# baseline has no entry region, nor do its randomized builds; the
# manifests say what was done
nm "$T/a/baseline-shuffle-1/hashmmu-driver" | grep -q ' __entry_text_start$' && fail "entry marker in a shuffled baseline"
expect_match '"seed": 7' "$(cat "$T/a/baseline-shuffle-2/manifest.json")"
expect_match '"index": 2' "$(cat "$T/a/baseline-shuffle-2/manifest.json")"
expect_match '-ffunction-sections' "$(cat "$T/a/baseline-shuffle-2/manifest.json")"
# and they run
for i in 1 2; do
  r=$(LACE_TRACE=hash_fault "$T/a/baseline-shuffle-$i/hashmmu-driver" --pages 16 --rounds 2) || fail "shuffled build $i does not run"
  expect_match '"faults": [1-9]' "$r"
done
exit 0
