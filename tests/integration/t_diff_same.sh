# lace diff A A: no change, exit 0 -- on a fixture and on the real kernel.
. "$SRC/tests/integration/lib.sh"
command -v gcc >/dev/null || skip "gcc not available"
[ "$(uname -m)" = x86_64 ] || skip "x86-64 assembly fixture"
"$SRC/tests/fixtures/diff/build.sh" base || fail "building the fixture"
expect_exit 0 "$LACE" diff base base
expect_match '^functions: [0-9]+ matched, 0 added, 0 removed; 0 changed' "$OUT"
expect_match '^add/remove: 0/0 grow/shrink: 0/0 up/down: 0/0 \(0\)$' "$OUT"
expect_match '^findings: 0 error, 0 warning, 0 info' "$OUT"
expect_exit 0 "$LACE" diff --csv --all base base
expect_eq "$(printf '%s\n' "$OUT" | wc -l)" 1 "CSV of A vs A is the header alone"

vmlinux=$("$SRC/scripts/fetch-vmlinux.sh" 2>/dev/null) || vmlinux=
[ -n "$vmlinux" ] && [ -r "$vmlinux" ] || skip "no vmlinux (scripts/fetch-vmlinux.sh failed)"
expect_exit 0 "$LACE" diff --json "$vmlinux" "$vmlinux"
echo "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["summary"]
assert s["matched"] > 10000, s
assert s["changed"] == 0 and s["shifted"] == 0 and s["added"] == 0 and s["removed"] == 0, s
assert d["findings"] == [], d["findings"]
assert d["functions"] == [] and d["jump_sites"] == []
b = d["bloat"]
assert (b["add"], b["remove"], b["grow"], b["shrink"], b["net"]) == (0, 0, 0, 0, 0), b
assert d["hot"]["old"] == d["hot"]["new"] and d["hot"]["old"]["functions"] > 0, d["hot"]
' || fail "vmlinux vs itself is not an empty diff"
exit 0
