#!/bin/bash
# bench_layout: CPU time (user + sys) of `lace layout --branches --no-dwarf`
# and `lace layout --branches` (with DWARF) on the Debian cloud vmlinux,
# each against `objdump -d --no-show-raw-insn` on the same file, run
# interleaved (3 rounds, medians) so machine noise hits all of them.
# Goals: no-DWARF <= 0.5x objdump; with DWARF <= 1.0x objdump and peak RSS
# under 1 GiB.  Exits 1 when a goal is missed, 77 when there is no vmlinux.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
LACE=${LACE:-$here/build/lace}
vmlinux=$("$here/scripts/fetch-vmlinux.sh" 2>/dev/null) || vmlinux=
if [ -z "$vmlinux" ] || [ ! -r "$vmlinux" ]; then
  echo "bench_layout: skipped: no vmlinux (scripts/fetch-vmlinux.sh)"
  exit 77
fi
command -v objdump >/dev/null || { echo "bench_layout: skipped: no objdump"; exit 77; }
python3 - "$LACE" "$vmlinux" <<'PY'
import os, resource, subprocess, sys, statistics
lace, vm = sys.argv[1], sys.argv[2]
def run(cmd):
    """CPU seconds and peak RSS (KiB) of cmd, output discarded."""
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.execvp(cmd[0], cmd)
    _, status, ru = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("bench_layout: %s failed" % " ".join(cmd))
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss
cmds = {
    "objdump": ["objdump", "-d", "--no-show-raw-insn", vm],
    "nodwarf": [lace, "layout", "--branches", "--no-dwarf", vm],
    "dwarf": [lace, "layout", "--branches", vm],
}
cpu = {k: [] for k in cmds}
rss = {k: 0 for k in cmds}
for _ in range(3):
    for k, c in cmds.items():
        t, m = run(c)
        cpu[k].append(t)
        rss[k] = max(rss[k], m)
med = {k: statistics.median(v) for k, v in cpu.items()}
r1, r2 = med["nodwarf"] / med["objdump"], med["dwarf"] / med["objdump"]
mib = rss["dwarf"] / 1024
print("bench_layout: objdump -d %.2fs CPU; lace layout --branches --no-dwarf %.2fs = %.2fx (goal <= 0.5x); "
      "with DWARF %.2fs = %.2fx (goal <= 1.0x), peak RSS %.0f MiB (goal < 1024)"
      % (med["objdump"], med["nodwarf"], r1, med["dwarf"], r2, mib))
sys.exit(0 if r1 <= 0.5 and r2 <= 1.0 and mib < 1024 else 1)
PY
