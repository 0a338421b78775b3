#!/bin/bash
# check-doc-names.sh [ROOT]: every function and file the docs and the
# comments name exists (ROOT: the source tree, default this script's).
#
# Checked, in doc/*.md (backticked spans), doc/*.1 (the text), the
# comments of the product's C files (cli layout measure pipeline util
# variants probes hashmmu bench, .c and .h) and of its makefiles (Makefile,
# */module.mk):
#   - a function, `name()` (or name() in a comment or a man page): defined
#     somewhere in the tree -- a C function or function-like macro (a
#     definition, not a prototype), a shell function, a make function
#     (define/=), a Python def -- or declared by the system's headers
#     (/usr/include: libc, libbfd, QEMU's plugin API, ...);
#   - a file path under one of the tree's top folders (`measure/runner.c`,
#     `util/strbuf.h`, `scripts/x.sh`, `measure/qemu/`), with * globs:
#     exists; a bare file name of the tree's kinds (`backend_vg.c`, or
#     backend_vg.c in a comment) exists somewhere in the tree (or is one
#     make generates into $BUILD/gen, default build/gen).  build/ outputs, absolute paths and names
#     with placeholders (<name>, {a,b}, ...) are not checked.
# Names that are not the tree's (the kernel's files the study patches:
# arch/, kernel/..., Valgrind's, man-page references like open(2)) are
# told apart by their first folder, their section number, or listed in
# NOT_OURS below with the reason.
# Prints "FILE:LINE: stale NAME (why)" per stale name and exits 1 when
# there is any; "check-doc-names: N names checked, all present" otherwise.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
exec python3 - "$root" <<'PY'
import os, re, sys, glob, subprocess

root = sys.argv[1]
TOP = {"cli", "layout", "measure", "pipeline", "util", "variants", "probes",
       "hashmmu", "bench", "doc", "scripts", "tests", "kernel",
       "linker_scripts", ".ci"}
PRODUCT = ["cli", "layout", "measure", "pipeline", "util", "variants",
           "probes", "hashmmu", "bench"]
EXTS = ("c", "h", "sh", "mk", "S", "ld", "py", "md", "ini", "1", "conf",
        "txt", "tsv", "lds")
# names a doc may use that are neither the tree's nor in /usr/include:
# the kernel's own functions and files, which the study is about
NOT_OURS = {
    # the Linux kernel's, which hashmmu/ and probes/ model and the study
    # patches (arch/powerpc/mm/book3s64, kernel/jump_label.c, ...)
    "pte_xchg", "mftb", "do_page_fault", "get_vsid", "smp_wmb", "BUG",
    "pte_iterate_hashed_subpages", "htab_dt_scan_page_sizes",
    "do_anonymous_page", "htab_bolt_mapping", "native_hpte_updatepp",
    "interrupt_exit_user_prepare", "jump_label_type", "ALIGN_FUNCTION",
    "arch_wants_old_prefaulted_pte", "linux-source-6.1", "vmlinux.lds.S",
    "do_fault_around", "filemap_map_pages", "should_fault_around", "do_set_pte",
    "check_pte_access", "__hash_page_4K", "__update_mmu_cache", "update_mmu_cache",
    "kernel/jump_label.c", "scripts/bloat-o-meter", "mmu-hash.h", "hash-64k.h",
    # perf's (tools/perf/util/), whose formats lace reads
    "util/stat.c", "util/stat-display.c",
    "evsel.c",
    # other projects' files whose behaviour lace follows: objdump's and
    # libbfd's, Valgrind's (cachegrind), git's and bpftool's (the command
    # table), QEMU's plugin header
    "disassemble_bytes", "format.c", "cg_sim.c", "git.c", "main.c", "qemu-plugin.h",
    "run-command.h", "run-command.c", "strvec.h",
    # Slurm's configuration file, and a plan folder's stage lists (doc/scale.md)
    "slurm.conf", "stage-N.txt",
    # a naming pattern, not a name
    "object__method",
}
# placeholder components of a path ("profiles/NAME.conf")
PLACEHOLDERS = {"NAME", "N", "X", "ARCH", "CMD", "FILE", "DIR", "PROG"}
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined",
            "alignof", "offsetof", "typeof", "__attribute__", "main"}

def files_under(dirs, exts):
    out = []
    for d in dirs:
        for dp, dn, fn in os.walk(d):
            dn[:] = [x for x in dn if x not in (".git", "build")]
            for f in fn:
                if f.rsplit(".", 1)[-1] in exts or (not exts and True):
                    out.append(os.path.join(dp, f))
    return sorted(out)

# ---- what the tree defines ------------------------------------------------
defined = set()
c_def = re.compile(r'^(?:[A-Za-z_][\w \t\*]*?[\s\*])?([A-Za-z_]\w*)\s*\([^;]*$')
c_attr = re.compile(r'__attribute__\s*\(\(.*?\)\)\s*')
macro_def = re.compile(r'^\s*#\s*define\s+([A-Za-z_]\w*)\(')
member_def = re.compile(r'\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*\(')
sh_def = re.compile(r'^\s*(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\)\s*\{?')
mk_def = re.compile(r'^(?:define\s+([A-Za-z_][\w-]*)|([A-Za-z_][\w-]*)\s*[:?]?=)')
py_def = re.compile(r'^\s*def\s+([A-Za-z_]\w*)\s*\(')
all_files = [f for f in files_under(["."], ()) if not f.startswith("./build")]
basenames = {os.path.basename(f) for f in all_files}
# files make generates (build/gen/...): a bare name may be one of those
gen = os.path.join(os.environ.get("BUILD") or "build", "gen")
built_names = {os.path.basename(f) for f in files_under([gen], ("c", "h", "S", "ld"))} \
    if os.path.isdir(gen) else set()
for f in all_files:
    ext = f.rsplit(".", 1)[-1] if "." in os.path.basename(f) else ""
    base = os.path.basename(f)
    try:
        text = open(f, encoding="utf-8", errors="replace").read()
    except OSError:
        continue
    lines = text.split("\n")
    if ext in ("c", "h", "S"):
        for l in lines:
            defined.update(member_def.findall(l))
        for i, l in enumerate(lines):
            m = macro_def.match(l)
            if m:
                defined.add(m.group(1)); continue
            if l[:1] in ("", " ", "\t", "#", "/", "*", "}") :
                continue
            # static __attribute__((noinline)) void name(...): the
            # attribute is not the name
            m = c_def.match(c_attr.sub("", l))
            if m and not l.rstrip().endswith(";"):
                defined.add(m.group(1))
    elif ext in ("sh", "bash") or base.startswith("t_") or text.startswith("#!/bin/"):
        for l in lines:
            m = sh_def.match(l)
            if m:
                defined.add(m.group(1))
        for l in lines:   # embedded Python (heredocs)
            m = py_def.match(l)
            if m:
                defined.add(m.group(1))
    if ext == "mk" or base == "Makefile":
        for l in lines:
            m = mk_def.match(l)
            if m:
                defined.add(m.group(1) or m.group(2))
    if ext == "py":
        for l in lines:
            m = py_def.match(l)
            if m:
                defined.add(m.group(1))

_sys_cache = {}
def in_system_headers(name):
    if name not in _sys_cache:
        r = subprocess.run(["grep", "-rqw", "--include=*.h", name, "/usr/include"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        _sys_cache[name] = r.returncode == 0
    return _sys_cache[name]

# ---- what the docs and comments name -------------------------------------
stale = []
checked = 0
fn_re = re.compile(r'^([A-Za-z_]\w*)\(\)$')
fn_in_text = re.compile(r'(?<![\w.>\-/])([A-Za-z_]\w*)\(\)')
path_re = re.compile(r'^\.?[\w.+-]+(?:/[\w.*+-]+)+/?$')
path_in_text = re.compile(r'(?<![\w./-])((?:' + "|".join(sorted(re.escape(t) for t in TOP)) +
                          r')/[\w*][\w.*+-]*(?:/[\w*][\w.*+-]*)*/?)(?![<{\w])')
bare_in_text = re.compile(r'(?<![\w./<>{}*-])([A-Za-z_][\w-]*\.(?:c|h|mk|sh))(?![\w/<{-])')
bare_re = re.compile(r'^[\w+-]+(?:\.[\w+-]+)*\.(?:' + "|".join(EXTS) + r')$')

def check_fn(where, name):
    global checked
    if name in KEYWORDS or name in NOT_OURS or re.match(r'^_[a-z]', name):
        return   # (a leading "_x" is a fragment: `strbuf_add_csv()`/`_csv_sep()`)
    checked += 1
    if name in defined or in_system_headers(name):
        return
    stale.append(f"{where}: stale {name}() (defined nowhere in the tree)")

def check_path(where, p):
    global checked
    p = p.rstrip(".,:;")
    if any(c in p for c in "<>{}$%") or p.startswith("/") or p.startswith("build/"):
        return
    if p.endswith((".o", ".a", ".so")) or any(re.split(r'[.]', c)[0] in PLACEHOLDERS
                                              for c in p.split("/")):
        return   # build outputs, placeholders
    if p in NOT_OURS:
        return
    first = p.lstrip("./").split("/")[0]
    if first not in TOP:
        return
    checked += 1
    q = p.lstrip("./") if p.startswith("./") else p
    if "*" in q:
        if glob.glob(q):
            return
    elif os.path.exists(q) or os.path.exists(q + ".c") or os.path.exists(q + ".h"):
        return   # (util/run: the module util/run.c)
    stale.append(f"{where}: stale {p} (no such file)")

def check_bare(where, name):
    global checked
    if name in NOT_OURS:
        return
    checked += 1
    if name in basenames or name in built_names or name.split(".")[0] in PLACEHOLDERS:
        return
    stale.append(f"{where}: stale {name} (no such file in the tree)")

def check_span(where, s):
    s = s.strip()
    m = fn_re.match(s)
    if m:
        check_fn(where, m.group(1)); return
    if path_re.match(s):
        check_path(where, s); return
    if bare_re.match(s) and not re.match(r'^\d', s):
        check_bare(where, s)

# doc/*.md: backticked spans, outside fenced code blocks too (a fence holds
# commands, not names)
for f in sorted(glob.glob("doc/*.md")):
    fence = False
    for i, l in enumerate(open(f, encoding="utf-8").read().split("\n"), 1):
        if l.lstrip().startswith("```"):
            fence = not fence; continue
        if fence:
            continue
        for s in re.findall(r'`([^`]+)`', l):
            check_span(f"{f}:{i}", s)

# doc/*.1: the text, with groff's escapes taken out
esc = re.compile(r'\\f[BIRP]|\\f\(..|\\\(..|\\[&%]')
for f in sorted(glob.glob("doc/*.1")):
    for i, l in enumerate(open(f, encoding="utf-8").read().split("\n"), 1):
        if l.startswith('.\\"'):
            continue
        t = esc.sub("", l.replace("\\-", "-")).replace("\\e", "\\")
        for name in fn_in_text.findall(t):
            check_fn(f"{f}:{i}", name)
        for p in path_in_text.findall(t):
            check_path(f"{f}:{i}", p)

# the product's C comments: backticked spans, name() and tree paths
comment = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
for f in files_under(PRODUCT, ("c", "h")):
    f = f[2:] if f.startswith("./") else f
    text = open(f, encoding="utf-8", errors="replace").read()
    for m in comment.finditer(text):
        line0 = text.count("\n", 0, m.start()) + 1
        for j, l in enumerate(m.group(0).split("\n")):
            where = f"{f}:{line0 + j}"
            spans = re.findall(r'`([^`]+)`', l)
            for s in spans:
                check_span(where, s)
            rest = re.sub(r'`[^`]*`', "", l)
            for name in fn_in_text.findall(rest):
                check_fn(where, name)
            for p in path_in_text.findall(rest):
                check_path(where, p)
            for b in bare_in_text.findall(rest):
                check_bare(where, b)

# the product's makefile fragments (and the Makefile): their # comments
for f in ["Makefile"] + [x[2:] if x.startswith("./") else x for x in files_under(PRODUCT, ("mk",))]:
    for i, l in enumerate(open(f, encoding="utf-8").read().split("\n"), 1):
        c = l.find("#")
        if c < 0 or "\\#" in l:
            continue
        t = l[c + 1:]
        for s in re.findall(r'`([^`]+)`', t):
            check_span(f"{f}:{i}", s)
        rest = re.sub(r'`[^`]*`', "", t)
        for name in fn_in_text.findall(rest):
            check_fn(f"{f}:{i}", name)
        for p in path_in_text.findall(rest):
            check_path(f"{f}:{i}", p)
        for b in bare_in_text.findall(rest):
            check_bare(f"{f}:{i}", b)

for s in stale:
    print(s)
if stale:
    print(f"check-doc-names: {len(stale)} stale of {checked} names checked")
    sys.exit(1)
print(f"check-doc-names: {checked} names checked, all present")
PY
