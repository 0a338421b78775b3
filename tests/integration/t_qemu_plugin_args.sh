# The TCG plugin refuses a malformed or unknown argument (issue 25), as
# QEMU's contrib/plugins/cache.c does: QEMU loads it for real (-M none, no
# guest) and the load fails with the plugin's one-line reason, instead of
# switch=junk quietly becoming 0 and turning off the user-TLB flush.
. "$SRC/tests/integration/lib.sh"

command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed"
P=$BUILD/qemu/liblace-tcg.so
[ -f "$P" ] || fail "TCG plugin not built: $P (make builds it when QEMU is installed)"

load() {
  timeout 60 qemu-system-x86_64 -M none -display none -accel tcg -d plugin -D "$T/log" \
    -plugin "$P,out=$T/out,$1" </dev/null >"$T/qemu.out" 2>&1
}

for a in "switch=junk|switch: 'junk' is not a number" \
         "l1i_ways=4294967296|l1i_ways: 4294967296 is out of range" \
         "fetch_block=32k|fetch_block: '32k' is not a whole number" \
         "bogus=1|unknown argument: bogus"; do
  arg=${a%%|*} msg=${a#*|}
  rm -f "$T/log"
  load "$arg" && fail "QEMU loaded the plugin with $arg"
  grep -q "qemu_plugin_install returned error" "$T/qemu.out" ||
    fail "$arg: QEMU did not refuse the plugin: $(cat "$T/qemu.out")"
  grep -qxF "lace-tcg: $msg" "$T/log" || fail "$arg: no 'lace-tcg: $msg' in: $(cat "$T/log")"
done
exit 0
