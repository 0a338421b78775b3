# Acceptance 2 of the workloads: faultbench over N fresh pages, one pass,
# takes exactly N hash faults; old PTEs add the accessed-bit fault once per
# 64 KiB Linux page; the hash_fault tracepoint, enabled with
# LACE_TRACE=hash_fault, counts the same number (and nothing when off).
. "$SRC/tests/integration/lib.sh"

FB=$BUILD/bench/faultbench
[ -x "$FB" ] || fail "$FB not built"

# val KEY: the value of KEY in the lace-counts line of $OUT
val() {
  printf '%s\n' "$OUT" | sed -n 's/^lace-counts: .* '"$1"'=\([0-9]*\).*/\1/p'
}

N=1000                 # not a multiple of 16: the partial last Linux page counts
LP=$(( (N + 15) / 16 ))  # 64 KiB Linux pages spanned by N 4 KiB pages

# 4K pages, young PTEs: one hash fault per page
expect_exit 0 env -u LACE_TRACE "$FB" --pages $N --page-size 4k
expect_eq "$(val hash_faults)" "$N" "4k young hash faults"
expect_eq "$(val accessed_faults)" 0 "4k young accessed-bit faults"
expect_eq "$(val tp_hash_fault)" 0 "tracepoint hits while disabled"
expect_eq "$(val touches)" "$N" "touches"
expect_eq "$(val model_errors)" 0 "model errors"

# 4K pages, old PTEs: the first access of each Linux page faults twice
expect_exit 0 env -u LACE_TRACE "$FB" --pages $N --page-size 4k --old
expect_eq "$(val hash_faults)" "$((N + LP))" "4k old hash faults"
expect_eq "$(val accessed_faults)" "$LP" "4k old accessed-bit faults"

# 64K pages: one hash fault per page young, two old
expect_exit 0 env -u LACE_TRACE "$FB" --pages $N --page-size 64k
expect_eq "$(val hash_faults)" "$N" "64k young hash faults"
expect_exit 0 env -u LACE_TRACE "$FB" --pages $N --page-size 64k --old
expect_eq "$(val hash_faults)" "$((2 * N))" "64k old hash faults"
expect_eq "$(val accessed_faults)" "$N" "64k old accessed-bit faults"

# a second pass over a region the HPT covers takes no more faults
expect_exit 0 env -u LACE_TRACE "$FB" --pages $N --page-size 4k --passes 3
expect_eq "$(val hash_faults)" "$N" "4k young, 3 passes"
expect_eq "$(val hpte_hits)" "$((2 * N))" "4k young, 3 passes: HPT hits"

# the tracepoint, enabled, counts every hash fault
for args in "--page-size 4k" "--page-size 4k --old" "--page-size 64k --old"; do
  # shellcheck disable=SC2086
  expect_exit 0 env LACE_TRACE=hash_fault "$FB" --pages $N $args
  expect_eq "$(val tp_hash_fault)" "$(val hash_faults)" "tracepoint vs model ($args)"
  [ "$(val tp_hash_fault)" -ge $N ] || fail "tracepoint counted $(val tp_hash_fault) < $N"
done

expect_match '^faults/s: [0-9]+' "$OUT"

# --real: a real anonymous mapping, no model.  Pages of the system page
# size unless --page-size says otherwise; loads with --read; no model keys.
sys_k=$(( $(getconf PAGESIZE) / 1024 ))
expect_exit 0 "$FB" --real --pages 200 --passes 2
expect_match "^lace-counts: workload=faultbench mode=real page_size=${sys_k}k access=store pages=200 passes=2\$" "$OUT"
expect_match "^200 pages x 2 passes, one store per page: " "$OUT"
expect_match '^touches/s: [0-9]+$' "$OUT"
expect_nomatch 'hash_faults|faults/s' "$OUT"
# each fresh page is one real fault (a few more: the program's own)
minflt=$(printf '%s\n' "$OUT" | sed -n 's/^minor page faults: //p')
[ -n "$minflt" ] && [ "$minflt" -ge 200 ] || fail "--real: ${minflt:-no} minor faults for 200 pages"
expect_exit 0 "$FB" --real -n 10 --read --page-size 64k
expect_match "^lace-counts: workload=faultbench mode=real page_size=64k access=load pages=10 passes=1\$" "$OUT"
# model-only options are refused with --real: one line, exit 2
for m in --old --htab-kib=512; do
  expect_exit 2 "$FB" --real $m
  expect_one_line "$ERR"
  expect_match "^faultbench: ${m%%=*} is an option of the hash MMU model; --real touches real pages" "$ERR"
  [ -z "$OUT" ] || fail "--real $m wrote to stdout: $OUT"
done
exit 0
