# Virtual layouts are real ones (issue 33, item 2), on a program of 12
# objects and its GNU ld link map, every layout checked against the
# linker itself:
#  - relinks: the program linked again with a pad before a symbol of its
#    linker script; `lace replay --pads N` lays the base out with that pad:
#    every symbol of .text at the relink's address (nm -n against the
#    virtual System.map), and the replayed counts equal the replay through
#    the real relink, every event;
#  - reordered builds: three draws of the function family, each made for
#    real by a linker script that lists the input sections in the draw's
#    order (--write-maps' NAME.order): the same checks;
#  - an edit (--edit; the hottest units from --hot moved and aligned) and
#    the same move made for real by a linker script: the same checks;
#  - --cpu-profile: the recording replayed on another core's front end
#    equals a live run on that profile;
#  - the draws differ from each other (the family moves code), repeat with
#    the same seed, and a map of another build is refused in one line.
# The recording is made under the simulator with a 2 KiB L1i, so that
# where the 21 KiB of code lands matters.
# timeout: 300
. "$SRC/tests/integration/lib.sh"
need_vg
command -v python3 >/dev/null || skip "python3 needed to write the linker scripts"
cd "$T" || exit 1

python3 "$SRC/tests/fixtures/vlayout/gen.py" src 12 8 300 || fail "cannot write the program"
for f in src/*.c; do
  cc -O2 -fno-pie -c -o "$(basename "${f%.c}").o" "$f" || fail "cannot compile $f"
done
OBJS="main.o $(ls o*.o | tr '\n' ' ')"
# the default script with a symbol before the .text statement: the pad
# point (where a relink's pad goes)
cc -no-pie -Wl,--verbose 2>/dev/null | sed -n '/^=====/,/^=====/p' | sed '1d;$d' > default.ld
python3 - <<'PY' || fail "cannot write base.ld"
s = open("default.ld").read()
stmt = "*(.text .stub .text.* .gnu.linkonce.t.*)"
assert stmt in s, "no .text statement in ld's default script"
open("base.ld", "w").write(s.replace(stmt, "__lace_pad_here = .;\n    " + stmt, 1))
PY
link() {  # OUT SCRIPT
  cc -no-pie -o "$1" -Wl,-T,"$2" -Wl,-Map="$1.map" $OBJS || fail "cannot link $1"
}
link prog base.ld
./prog || fail "the program does not run"

EV=instructions,L1-icache-load-misses,iTLB-load-misses,fetch-blocks
expect_exit 0 "$LACE" stat --backend sim --l1i 2048,2,64 --no-results -e "$EV" --record prog.rec -- ./prog
PP=before:__lace_pad_here:16:255
# counts of one row of replay's CSV, as "event value" lines
row() { awk -F, -v l="$2" '$1 == l { print $2, $3 }' "$1"; }
# the .text symbols of an ELF (nm -n) or of a System.map, as "name addr"
text_syms() { awk '$2 ~ /^[tT]$/ { print $3, $1 }' "$1" | sort; }

# relinks: a pad before __lace_pad_here
mkdir maps
for pad in 16 208 4000; do
  python3 - "$pad" <<'PY' || fail "cannot write relink.ld"
import sys
s = open("base.ld").read()
open("relink-%s.ld" % sys.argv[1], "w").write(
    s.replace("__lace_pad_here = .;", ". = . + %s;\n    __lace_pad_here = .;" % sys.argv[1], 1))
PY
  link "relink-$pad" "relink-$pad.ld"
  expect_exit 0 "$LACE" replay -e "$EV" --csv --pad-points "$PP" --pads "$pad" --layout "./relink-$pad" \
    --write-maps maps prog.rec
  printf '%s\n' "$OUT" > "relink-$pad.csv"
  real=$(row "relink-$pad.csv" "./relink-$pad")
  virt=$(row "relink-$pad.csv" "pads-$pad")
  [ -n "$real" ] || fail "no counts of ./relink-$pad: $OUT"
  expect_eq "$virt" "$real" "pad $pad: the virtual layout's counts against the real relink's"
  nm -n "relink-$pad" > "relink-$pad.nm"
  expect_eq "$(text_syms "maps/pads-$pad.System.map")" "$(text_syms "relink-$pad.nm")" \
    "pad $pad: the virtual System.map against the relink's nm -n"
done
# a relink's manifest as the pad vector (--pads-from): the same layout as
# --pads; one with fewer padding points than --pad-points, or not JSON,
# is refused in one line
printf '{"padding": {"points": [{"after": "X", "bytes": 208}]}}\n' > m208.json
expect_exit 0 "$LACE" replay -e "$EV" --csv --pad-points "$PP" --pads-from m208.json prog.rec
expect_eq "$(printf '%s\n' "$OUT" | awk -F, '$1 == "pads-208" { print $2, $3 }')" "$(row relink-208.csv pads-208)" \
  "--pads-from against --pads"
printf '{"padding": {"points": []}}\n' > m0.json
expect_exit 2 "$LACE" replay --pad-points "$PP" --pads-from m0.json prog.rec
expect_one_line "$ERR"
expect_match "0 padding points, not the 1 of --pad-points" "$ERR"
echo 'not json' > bad.json
expect_exit 2 "$LACE" replay --pad-points "$PP" --pads-from bad.json prog.rec
expect_one_line "$ERR"
# a pad that moves code: the counts of the 16-byte pad differ from the base's
[ "$(row relink-16.csv pads-16)" != "$(row relink-16.csv recorded)" ] ||
  fail "a 16-byte pad changed no count (2 KiB L1i): the test cannot see"

# three draws of the function family, made for real from their order
expect_exit 0 "$LACE" replay -e "$EV" --csv --virtual 3 --seed 5 --write-maps maps prog.rec
printf '%s\n' "$OUT" > virtual.csv
for k in 1 2 3; do
  python3 - "$k" <<'PY' || fail "cannot write reorder.ld"
import collections, sys
k = sys.argv[1]
groups = collections.OrderedDict()
for line in open("maps/virtual-%s.order" % k):
    if line.startswith("#"):
        continue
    g, obj, sec, addr = line.rstrip("\n").split("\t")
    groups.setdefault(g, []).append((obj, sec))
# the group of the .text statement: the one holding o00.o's .text
stmt = "*(.text .stub .text.* .gnu.linkonce.t.*)"
order = next(v for v in groups.values() if ("o00.o", ".text") in v)
listed = "\n    ".join('"%s"(%s)' % (o, s) for o, s in order)
s = open("base.ld").read()
open("reorder-%s.ld" % k, "w").write(s.replace(stmt, listed + "\n    " + stmt, 1))
PY
  link "reorder-$k" "reorder-$k.ld"
  expect_exit 0 "$LACE" replay -e "$EV" --csv --layout "./reorder-$k" prog.rec
  real=$(printf '%s\n' "$OUT" | awk -F, -v l="./reorder-$k" '$1 == l { print $2, $3 }')
  [ -n "$real" ] || fail "no counts of ./reorder-$k: $OUT"
  expect_eq "$(row virtual.csv "virtual-$k")" "$real" "draw $k: the virtual layout's counts against the real build's"
  nm -n "reorder-$k" > "reorder-$k.nm"
  expect_eq "$(text_syms "maps/virtual-$k.System.map")" "$(text_syms "reorder-$k.nm")" \
    "draw $k: the virtual System.map against the real build's nm -n"
done
# the draws move code: three draws, three L1i counts, none the base's
l1=$(awk -F, '$1 ~ /^virtual-/ && $2 == "L1-icache-load-misses" { print $3 }' virtual.csv | sort -u | wc -l)
[ "$l1" -eq 3 ] || fail "three draws gave $l1 different L1i counts: $(cat virtual.csv)"
# a seed gives its draws again
expect_exit 0 "$LACE" replay -e "$EV" --csv --virtual 3 --seed 5 prog.rec
expect_eq "$OUT" "$(cat virtual.csv)" "the same seed, other draws"

# an edit, made for real: the two hottest units of the recording moved
# before the .text statement, each hot function 64 bytes past a 256-byte
# boundary (what `lace build kernel --layout` writes into vmlinux.lds)
expect_exit 0 "$LACE" replay --hot 2 --json prog.rec
printf '%s\n' "$OUT" > hot.json
python3 - <<'PY' || fail "cannot write the edit from --hot: $(cat hot.json)"
import json
hot = json.load(open("hot.json"))["hot"]
assert len(hot) == 2, hot
units = []
for h in hot:
    assert h["piece"] and h["instructions"] > 0, h
    if h["piece"] not in [u for u, _ in units]:
        units.append((h["piece"], h["offset"]))
with open("moved.edit", "w") as f:
    f.write("edit 256\n")
    for u, off in units:
        f.write("%s %d\n" % (u, off - 64 if off >= 64 else off + 192))
stmt = "*(.text .stub .text.* .gnu.linkonce.t.*)"
listed = ""
for u, off in units:
    obj, sec = u.split(":")
    off = off - 64 if off >= 64 else off + 192
    listed += '. = ALIGN(256);\n    . = . + %d;\n    "%s"(%s)\n    ' % ((256 - off % 256) % 256, obj, sec)
s = open("base.ld").read()
open("moved.ld", "w").write(s.replace(stmt, listed + stmt, 1))
PY
link moved moved.ld
expect_exit 0 "$LACE" replay -e "$EV" --csv --edit moved.edit --layout ./moved --write-maps maps prog.rec
printf '%s\n' "$OUT" > moved.csv
[ -n "$(row moved.csv ./moved)" ] || fail "no counts of ./moved: $OUT"
expect_eq "$(row moved.csv moved)" "$(row moved.csv ./moved)" "the edit's counts against the real build's"
nm -n moved > moved.nm
expect_eq "$(text_syms maps/moved.System.map)" "$(text_syms moved.nm)" \
  "the edit's System.map against the real build's nm -n"
[ "$(row moved.csv moved)" != "$(row moved.csv recorded)" ] || fail "the edit changed no count"
# an edit naming no piece of the build: one line, exit 2
printf 'edit 256\nnosuch.o:.text 0\n' > bad.edit
expect_exit 2 "$LACE" replay --edit bad.edit prog.rec
expect_one_line "$ERR"
expect_match "not a piece of this build" "$ERR"

# another core, the same stream: the 2 KiB recording replayed on the
# i7-920's front end gives what a live run on that profile counts
"$LACE" stat --backend sim --cpu-profile nehalem --no-results -x, -e "$EV" -- ./prog > nh.csv 2>nh.err ||
  fail "live run on nehalem: $(cat nh.err)"
grep -q ',L1-icache-load-misses,' nh.csv || fail "no L1i count on nehalem: $(cat nh.csv)"
expect_exit 0 "$LACE" replay -e "$EV" --csv --cpu-profile nehalem prog.rec
expect_eq "$(printf '%s\n' "$OUT" | awk -F, '$1 == "recorded" && $2 !~ /:/ { print $2, $3 }' | sort)" \
  "$(awk -F, 'NF > 2 && $1 ~ /^[0-9]+$/ { print $3, $1 }' nh.csv | sort)" \
  "replay --cpu-profile nehalem against a live run on nehalem"
expect_exit 2 "$LACE" replay --cpu-profile nosuch prog.rec
expect_one_line "$ERR"

cp prog.map prog.map.good
cp relink-4000.map prog.map
expect_exit 2 "$LACE" replay --virtual 1 prog.rec
expect_one_line "$ERR"
expect_match "does not lay this build out again|not this build's map" "$ERR"
cp prog.map.good prog.map
exit 0
