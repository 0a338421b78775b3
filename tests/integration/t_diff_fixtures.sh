# lace diff on fixture pairs that differ in one known way each: the CSV rows
# (name,change) and the findings (rule subject) must be exactly the expected.
. "$SRC/tests/integration/lib.sh"
command -v gcc >/dev/null && command -v ld >/dev/null || skip "gcc/ld not available"
[ "$(uname -m)" = x86_64 ] || skip "x86-64 assembly fixture"
B=$SRC/tests/fixtures/diff/build.sh
$B base || fail "building base"
$B move -DMOVE_ENTRY && $B mark -DINTO_MARKER && $B mis -DMISALIGN && $B page -DCROSS_PAGE && $B cold -DSLOW_COLD &&
  $B suf -DSUFFIX || fail "building variants"
HELPERS_SWAPPED=1 HELPER_A_SIZE=36 $B stat || fail "building static variant"

# rows NAME,CHANGE of the CSV, sorted, as one line
rows() { "$LACE" diff --csv "$@" | tail -n +2 | cut -d, -f1,2 | sort | tr '\n' ' '; }
# findings as "rule:subject" lines, sorted, from the JSON
findings() {
  "$LACE" diff --json "$@" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(sorted("%s:%s:%s" % (f["severity"], f["rule"], f["subject"]) for f in d["findings"])))'
}
echo "do_work 3" > hot_do_work
echo hot_path > hot_hot_path

# the header is the stable table
expect_exit 0 "$LACE" diff --csv base move
expect_match '^name,change,old_region,new_region,old_address,new_address,old_align,new_align' "$(printf '%s\n' "$OUT" | head -1)"

# a function moved to another section
expect_eq "$(rows base move)" "do_work,region " "moved rows"
# into the entry text: what such a patch is for, a note; out of it: an error
expect_eq "$(findings base move)" "info:noprobe-enter:do_work" "moved findings"
expect_eq "$(findings move base)" "error:noprobe-region:do_work" "moved back findings"
expect_exit 0 "$LACE" diff base move
expect_exit 0 "$LACE" diff --fail-on warning base move
expect_exit 1 "$LACE" diff --fail-on warning move base
expect_exit 0 "$LACE" diff --fail-on warning --rule noprobe-region=off move base

# moved inside one output section: same address, now between the
# __entry_text_start/_end markers (which themselves never show up)
expect_eq "$(rows base mark)" "do_work,region " "marker-region rows"
expect_eq "$(findings base mark)" "info:noprobe-enter:do_work" "marker-region findings"
expect_match '^do_work,region,\.text,entry,0x([0-9a-f]+),0x\1,' "$("$LACE" diff --csv base mark)"
expect_nomatch '__entry_text' "$("$LACE" diff --csv --all base mark)"

# re-aligned (hot_path 4 bytes into its slot)
expect_eq "$(rows base mis)" "hot_path,realigned " "realigned rows"
expect_eq "$(findings base mis)" "" "realigned, not hot: no finding"
expect_eq "$(findings --hot hot_hot_path base mis)" "warning:hot-align-drop:hot_path" "realigned hot"
expect_eq "$(findings --hot hot_hot_path --min-align 4 base mis)" "" "--min-align 4"

# padded across a page
expect_eq "$(rows base page)" "do_work,straddle " "straddle rows"
expect_eq "$(findings --hot hot_do_work base page)" \
  "error:hot-footprint-growth:hot set info:hot-layout-churn:hot set warning:hot-page-straddle:do_work" "straddle hot"
expect_exit 1 "$LACE" diff --hot hot_do_work base page
expect_exit 0 "$LACE" diff --hot hot_do_work --max-hot-growth 100% base page
fp=$("$LACE" diff --json --hot hot_do_work base page | python3 -c '
import json, sys; h = json.load(sys.stdin)["hot"]
print(h["old"]["pages"], h["new"]["pages"], h["new"]["lines"], h["new"]["ideal_pages"], h["functions"])')
expect_eq "$fp" "1 2 2 1 [{'name': 'do_work', 'weight': 3.0}]" "hot footprint old/new pages, new lines, ideal pages, hot list"

# jump-label slow path moved cold, and back
expect_eq "$(rows base cold)" "traced,resized traced.cold,added " "cold rows"
expect_eq "$(findings base cold)" "" "slow path moved cold: no finding"
j=$("$LACE" diff --json base cold | python3 -c '
import json, sys; j = json.load(sys.stdin)["jump_sites"]
print(len(j), j[0]["function"], j[0]["key"], ",".join(j[0]["changes"]), j[0]["old_hot"], j[0]["new_hot"])')
expect_eq "$j" "1 traced my_key region,distance True False" "jump site delta"
expect_eq "$(findings cold base)" "warning:jump-slowpath-hot:traced:my_key" "slow path back next to hot code"

# a static duplicate: two statics named helper swap places, a.S's one grows
expect_eq "$(rows base stat)" "helper,resized " "static duplicate rows"
a=$("$LACE" diff --csv base stat | awk -F, 'NR == 2 { print $9 "->" $10 }')
expect_eq "$a" "32->36" "the resized helper is a.S's"

# a suffix change is not removed + added
expect_eq "$(rows base suf)" "" "suffix rows"
expect_exit 0 "$LACE" diff --json base suf
expect_match '"added": 0' "$OUT"
expect_match '"removed": 0' "$OUT"
# ... though bloat-o-meter (which strips only .N) sees add/remove 1/1
expect_match '"line": "add/remove: 1/1 grow/shrink: 0/0 up/down: 64/-64 \(0\)"' "$OUT"
# --all lists the mere shifts
expect_match '^_start,shifted,' "$("$LACE" diff --csv --all base cold)"

# Markdown and SVG come out (also when a finding fails the diff)
expect_exit 1 "$LACE" diff --md --svg map.svg move base  # noprobe-region: an error
expect_match '^### lace diff' "$OUT"
expect_match 'noprobe-region' "$OUT"
grep -q '<svg' map.svg || fail "no svg written"
python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' map.svg || fail "svg is not well-formed XML"
exit 0
