# randaccess with 4K pages under eviction pressure completes every access:
# a stale slot record naming another page's entry (same AVPN, the other
# hash group) must not count as a successful update (hpte_updatepp).
. "$SRC/tests/integration/lib.sh"
ra=$BUILD/bench/randaccess
[ -x "$ra" ] || fail "no $ra"
expect_exit 0 "$ra" --accesses 100000 --htab-kib 256 --page-size 4k
line=$(printf '%s\n' "$OUT" | grep '^lace-counts:')
expect_match ' model_errors=0 ' "$line"
# the pressure is real: entries were evicted and secondary groups used
ev=$(printf '%s\n' "$line" | sed -n 's/.* evictions=\([0-9]*\).*/\1/p')
sec=$(printf '%s\n' "$line" | sed -n 's/.* secondary=\([0-9]*\).*/\1/p')
[ "${ev:-0}" -gt 1000 ] || fail "expected evictions, got '$ev'"
[ "${sec:-0}" -gt 1000 ] || fail "expected secondary-group use, got '$sec'"
exit 0
