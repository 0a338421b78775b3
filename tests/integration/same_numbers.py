#!/usr/bin/env python3
"""same_numbers.py A.json B.json: the two studies' results hold the same
measurements.  Everything is compared but what a run's wall clock or its
host decides (times, the command records, where the files were); prints
each path that differs and exits 1 if any does."""
import json
import sys

# wall-clock times and the raw command records (argv names the run's own
# folders; each record's parsed numbers are compared where the study keeps
# them); "jobs" is how many ran at once, not what they measured
IGNORE = {"seconds", "started", "_elapsed", "elapsed", "phases", "commands", "jobs",
          "lace_version", "stderr", "argv"}


def walk(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k in IGNORE:
                continue
            if k not in a or k not in b:
                out.append("%s/%s: only in %s" % (path, k, "A" if k in a else "B"))
            else:
                walk(a[k], b[k], "%s/%s" % (path, k), out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append("%s: %d vs %d entries" % (path, len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, "%s/%d" % (path, i), out)
    elif a != b and not (a != a and b != b):  # NaN equals NaN here
        out.append("%s: %r vs %r" % (path, a, b))


def main():
    a, b = (json.load(open(p)) for p in sys.argv[1:3])
    out = []
    walk(a, b, "", out)
    for line in out[:40]:
        print(line)
    if out:
        print("%d differences between %s and %s" % (len(out), sys.argv[1], sys.argv[2]))
        sys.exit(1)


if __name__ == "__main__":
    main()
