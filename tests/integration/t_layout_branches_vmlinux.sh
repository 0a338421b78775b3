# Branches of the real kernel (Debian 12 cloud vmlinux, scripts/fetch-vmlinux.sh)
# against objdump: every branch row (address, target, kind) lace reports must
# be exactly objdump's, so the direct-branch counts are equal.  Calls and
# jumps to __x86_return_thunk / __x86_indirect_thunk_* count as ret /
# indirect on both sides.  objdump's rows take a minute to produce, so they
# are cached in LACE_CACHE keyed by the vmlinux's size, mtime and objdump's
# version.
. "$SRC/tests/integration/lib.sh"
V=$("$SRC/scripts/fetch-vmlinux.sh" 2>"$T/fetch.err") || skip "no vmlinux: $(tail -n 1 "$T/fetch.err")"
[ -f "$V" ] || skip "no vmlinux at '$V'"
command -v objdump >/dev/null || skip "no objdump"
command -v python3 >/dev/null || skip "no python3"
cache="${LACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lace}"
# a read-only cache still works, only slower
{ mkdir -p "$cache" && [ -w "$cache" ]; } 2>/dev/null || cache=$T
key=$(stat -c '%s-%Y' "$V")-$(objdump --version | head -n 1 | tr -cd '0-9.')
ref="$cache/objdump-branches-$key.rows.gz"
if [ ! -s "$ref" ]; then
  objdump -d --no-show-raw-insn "$V" | python3 "$SRC/tests/fixtures/branches/objdump_branches.py" |
    LC_ALL=C sort | gzip -1 > "$ref.tmp" && mv "$ref.tmp" "$ref" || fail "objdump reference failed"
fi
gzip -dc "$ref" > objdump.rows

"$LACE" layout --branches --csv --no-dwarf "$V" > lace.csv || fail "lace layout --branches failed"
tail -n +2 lace.csv | cut -d, -f1-3 | LC_ALL=C sort > lace.rows
direct() { grep -E '^[^,]+,0x[0-9a-f]+,(jump|cond|call)$' "$1" | wc -l; }
dl=$(direct lace.rows) do=$(direct objdump.rows)
echo "direct branches: lace $dl, objdump $do; all rows: lace $(wc -l < lace.rows), objdump $(wc -l < objdump.rows)"
[ "$do" -gt 500000 ] || fail "objdump reference has only $do direct branches"
if ! cmp -s objdump.rows lace.rows; then
  diff objdump.rows lace.rows | head -n 20
  fail "lace and objdump disagree on the kernel's branches"
fi
# the thunks were applied: most returns are `jmp __x86_return_thunk`
rets=$(grep -c ',ret$' lace.rows)
[ "$rets" -gt 40000 ] || fail "only $rets returns"
# entry code branches out of the entry region (to C handlers)
awk -F, '$6 == "entry" && $5 != "entry" && $5 != ""' lace.csv | grep -q . ||
  fail "no branch from the entry region to another region"
exit 0
