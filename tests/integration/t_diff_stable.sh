# lace diff on a real Debian 6.1 stable update (the cloud vmlinux of the
# newest ABI and of the newest ABI of the stable release before it, fetched
# and cached by scripts/fetch-vmlinux.sh): a maintainer keeps the findings
# only if a routine update does not bury them in straddle churn.
. "$SRC/tests/integration/lib.sh"
N=$("$SRC/scripts/fetch-vmlinux.sh" 2>"$T/fetch.err") || skip "no vmlinux: $(tail -n 1 "$T/fetch.err")"
O=$("$SRC/scripts/fetch-vmlinux.sh" --previous 2>"$T/fetch.err") ||
  skip "no previous vmlinux: $(tail -n 1 "$T/fetch.err")"
echo "pair: $(basename "$O") -> $(basename "$N")"

"$LACE" diff --json --no-branches "$O" "$N" > d.json || fail "lace diff exited $?"
"$LACE" diff --json --no-branches --page-size 4K "$O" "$N" > d4k.json || fail "lace diff --page-size 4K exited $?"
python3 - d.json d4k.json <<'PY' || fail "stable update findings"
import json, sys
d, d4 = (json.load(open(p)) for p in sys.argv[1:3])
def loud(x):
    return [f for f in x["findings"] if f["severity"] in ("warning", "error")]
h, h4 = d["hot"], d4["hot"]
# x86-64 kernel text is mapped with 2 MiB pages: the page rules use them
assert h["new_rule_page"] == 2 << 20 and h4["new_rule_page"] == 4096, (h["new_rule_page"], h4["new_rule_page"])
print("hot 4K pages %d -> %d, lines %d -> %d, 2M pages %d -> %d" % (h["old"]["pages"], h["new"]["pages"],
      h["old"]["lines"], h["new"]["lines"], h["old"]["hugepages"], h["new"]["hugepages"]))
# at most 10 findings at warning or above, unless the hot footprint really grew
grew = h["new"]["lines"] > h["old"]["lines"] * 1.10 or h["new"]["pages"] > h["old"]["pages"] * 1.10
for x, name in ((d, "2M"), (d4, "4K")):
    l = loud(x)
    print("%s: %d warning/error findings: %s" % (name, len(l), ", ".join(f["rule"] + ":" + f["subject"] for f in l)))
    assert grew or len(l) <= 10, l
    churn = [f for f in x["findings"] if f["rule"] == "hot-layout-churn"]
    print("%s: %s" % (name, churn[0]["reason"] if churn else "no churn"))
# at 4 KiB the straddles come and go by the hundred: one summary line
s4 = h4["straddles"]
assert s4["gained"] > 50 and s4["lost"] > 50, s4
assert [f["subject"] for f in d4["findings"] if f["rule"] == "hot-layout-churn"] == ["hot set"], d4["findings"]
listed = sum(f["rule"] == "hot-page-straddle" for f in d4["findings"])
assert listed == s4["listed"] <= max(0, h4["new"]["pages"] - h4["old"]["pages"]), (listed, s4)
# the default hot set: the entry path (irqentry nested in entry too), no init text
hot = {f["name"] for f in h["functions"]}
for name in ("asm_exc_page_fault", "entry_SYSCALL_64", "__do_softirq"):
    assert name in hot, name
for name in ("start_kernel", "mm_init"):
    assert name not in hot, name
PY
exit 0
