# lace check / lace diff --expect: a declared move (the purpose of a patch)
# passes the gate and is shown as expected; the same move undeclared fails
# it; the declaration works from the config file too, and one that matches
# nothing is reported as stale.
. "$SRC/tests/integration/lib.sh"
ini=$SRC/doc/lace-check.ini

# 1. the diff fixture (x86-64 assembly): do_work leaves .entry.text, which
# the shipped config (noprobe-region = error) fails
if [ "$(uname -m)" = x86_64 ]; then
  (cd "$T" && "$SRC/tests/fixtures/diff/build.sh" base && "$SRC/tests/fixtures/diff/build.sh" move -DMOVE_ENTRY) ||
    fail "building the diff fixtures"
  expect_exit 1 "$LACE" check --base "$T/move" --head "$T/base" --no-measure --config "$ini"
  expect_match '^### lace check: FAIL' "$OUT"
  expect_match 'noprobe-region.*do_work' "$OUT"
  expect_nomatch 'expected' "$OUT"

  # declared on the command line: passes, the finding shown as expected
  expect_exit 0 "$LACE" check --base "$T/move" --head "$T/base" --no-measure --config "$ini" \
    --expect 'entry=^do_work$' --json "$T/e.json"
  expect_match '^### lace check: PASS' "$OUT"
  expect_match '^| info \(expected\) \| noprobe-region \| `do_work` .*expected: `entry=\^do_work\$`' "$OUT"
  expect_match '^\*\*Expected\*\*' "$OUT"
  expect_match 'noprobe-region `do_work` \(was error\)' "$OUT"
  python3 - "$T/e.json" <<'PY' || fail "report JSON with --expect"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["decision"] == "pass" and not r["reasons"], (r["decision"], r["reasons"])
f = [x for x in r["diff"]["findings"] if x["rule"] == "noprobe-region"]
assert len(f) == 1 and f[0]["expected"] == "entry=^do_work$", f
assert f[0]["severity"] == "info" and f[0]["rule_severity"] == "error", f
assert r["diff"]["expect"] == [{"declaration": "entry=^do_work$", "matched": 1}], r["diff"]["expect"]
PY

  # a declaration about another function does not excuse this one
  expect_exit 1 "$LACE" check --base "$T/move" --head "$T/base" --no-measure --config "$ini" \
    --expect 'entry=^do_other$'
  expect_match 'FAIL' "$OUT"
  expect_match 'stale declaration: --expect entry=\^do_other\$ matched no finding' "$OUT"
  # nor does one of another kind (an alignment drop is no region change)
  expect_exit 1 "$LACE" check --base "$T/move" --head "$T/base" --no-measure --config "$ini" \
    --expect 'align=^do_work$'
  expect_match 'FAIL' "$OUT"

  # the same through the config file: the shipped one plus an expect line
  { cat "$ini"; printf '\n[diff]\nexpect = entry=^do_work$\n'; } > "$T/expect.ini"
  expect_exit 0 "$LACE" check --base "$T/move" --head "$T/base" --no-measure --config "$T/expect.ini"
  expect_match '^### lace check: PASS' "$OUT"
  expect_match 'info \(expected\) \| noprobe-region' "$OUT"
  # and through --set
  expect_exit 0 "$LACE" check --base "$T/move" --head "$T/base" --no-measure --config "$ini" \
    --set 'diff.expect=move=do_work'
  expect_match 'PASS' "$OUT"
  expect_match 'expected: `move=do_work`' "$OUT"

  # a stale declaration next to a used one: passes, and says so
  expect_exit 0 "$LACE" check --base "$T/move" --head "$T/base" --no-measure --config "$T/expect.ini" \
    --expect 'entry=^no_such_function$'
  expect_match 'PASS' "$OUT"
  expect_match '`entry=\^no_such_function\$`: matched no finding' "$OUT"
  expect_match '^- note: stale declaration: --expect entry=\^no_such_function\$ matched no finding' "$OUT"

  # lace diff itself: the finding is a note that fails nothing (even
  # --fail-on info), named in text, Markdown and JSON; a stale one warns
  expect_exit 1 "$LACE" diff --rule noprobe-region=error "$T/move" "$T/base"
  expect_exit 0 "$LACE" diff --rule noprobe-region=error --fail-on info --expect 'entry=^do_work$' \
    --expect 'straddle=^hot_path$' "$T/move" "$T/base"
  expect_match '^findings: 0 error, 0 warning, 1 info \(1 of them expected\)' "$OUT"
  expect_match '^  info +noprobe-region +do_work: .*\(expected: entry=\^do_work\$\)' "$OUT"
  expect_match 'note: --expect straddle=\^hot_path\$ matched no finding' "$OUT"
  expect_one_line "$ERR"
  expect_match '^lace: warning: --expect straddle=\^hot_path\$ matched no finding' "$ERR"
  expect_exit 0 "$LACE" diff --md --expect 'entry=^do_work$' "$T/move" "$T/base"
  expect_match '^- \*\*info\*\* `noprobe-region` `do_work`: .*\(expected: `entry=\^do_work\$`\)' "$OUT"
fi

# 2. the built-in study: baseline -> entry-out moves the entry functions
# into the entry text on purpose.  A strict gate that wants every change
# to what kprobes may probe declared (noprobe-enter = error) fails it
# undeclared and passes it declared.
"$LACE" build --variant baseline,entry-out -p hackbench --out "$T/v" >/dev/null 2>"$T/build.err" ||
  fail "lace build: $(tail -n 3 "$T/build.err")"
# (whether the hot set spans one more 4 KiB page in entry-out depends on
# the code's size, not on what this test is about: those rules only warn)
strict=(--variants "$T/v" --no-measure --config "$ini" --set diff.rule.noprobe-enter=error
        --set diff.rule.hot-footprint-growth=warning --set diff.rule.hot-page-straddle=warning)
expect_exit 1 "$LACE" check --base baseline --head entry-out "${strict[@]}"
expect_match 'FAIL' "$OUT"
expect_match 'error\\\] noprobe-enter: lace_syscall' "$OUT"
entry_fns='entry=^lace_(syscall|exception_entry|interrupt_return)$'
expect_exit 0 "$LACE" check --base baseline --head entry-out "${strict[@]}" --expect "$entry_fns" --json "$T/s.json"
expect_match '^### lace check: PASS' "$OUT"
python3 - "$T/s.json" <<'PY' || fail "study report with --expect"
import json, sys
r = json.load(open(sys.argv[1]))
f = [x for x in r["diff"]["findings"] if x["rule"] == "noprobe-enter"]
assert sorted(x["subject"] for x in f) == ["lace_exception_entry", "lace_interrupt_return", "lace_syscall"], f
assert all(x.get("expected", "").startswith("entry=") and x["severity"] == "info" for x in f), f
assert r["diff"]["expect"][0]["matched"] == 3, r["diff"]["expect"]
PY

# 3. bad declarations: one line, exit 2, from the CLI and from the config
for bad in 'entry' 'bogus=x' 'entry=' 'entry=('; do
  expect_exit 2 "$LACE" check --base baseline --head entry-out --variants "$T/v" --no-measure --expect "$bad"
  expect_one_line "$ERR"
  expect_match "lace: check: --expect '$(printf '%s' "$bad" | sed 's/[][(.*^$]/\\&/g')'" "$ERR"
  expect_exit 2 "$LACE" diff --expect "$bad" "$T/v/baseline/hackbench" "$T/v/entry-out/hackbench"
  expect_one_line "$ERR"
done
printf '[diff]\nexpect = entry=^ok$\nexpect = sideways=x\n' > "$T/bad.ini"
expect_exit 2 "$LACE" check --base baseline --head entry-out --variants "$T/v" --no-measure --config "$T/bad.ini"
expect_one_line "$ERR"
expect_match 'line 3: diff.expect: .*unknown kind' "$ERR"
exit 0
