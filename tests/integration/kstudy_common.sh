# Shared by the tests of lace study --kernel's jobs (t_study_kernel_jobs,
# _parallel, _slurm): the kernels `make check-kernel` built, or a skip
# naming what is missing; then the guests.  Sets K (the kernels folder) and
# NSHUF (how many randomized relinks of x86_64 baseline it holds).
K=${LACE_KERNELS:-$BUILD/kernels}
for k in x86_64-baseline x86_64-entry-in-text x86_64-entry-align-8 x86_64-entry-align-4k \
         ppc64le-baseline ppc64le-no-tracepoint ppc64le-cold-slowpaths ppc64le-old-ptes \
         ppc64le-4k-baseline; do
  [ -d "$K/$k" ] || skip "no $k in $K: 'make check-kernel' builds the kernels (about 25 min the first time on 2 cores)"
done
NSHUF=0
while [ -d "$K/x86_64-baseline-shuffle-$((NSHUF + 1))" ]; do NSHUF=$((NSHUF + 1)); done
command -v qemu-system-ppc64 >/dev/null || skip "qemu-system-ppc64 not installed"
[ -x "$BUILD/ppc64le/bench/faultbench" ] || skip "no ppc64le faultbench (make builds it with the cross compiler)"
qemu_guest
qemu_guest --arch ppc64le

# kstudy_local DIR [ARGS]: the study run here with lace's pool, into DIR
kstudy_local() {
  local dir=$1; shift
  "$LACE" study --kernel --quick --no-build --kernels "$K" --shuffle "$NSHUF" --out "$dir" "$@" \
    > "$dir.summary" 2> "$dir.log" || [ $? -eq 1 ] || fail "lace study --kernel $*: $(tail -5 "$dir.log")"
}

# kstudy_same A B: the same measurements (everything but times and paths)
kstudy_same() {
  python3 "$SRC/tests/integration/same_numbers.py" "$1" "$2" >&2 || fail "$1 and $2 differ"
}

# recipe NAME: the shell block of doc/scale.md marked <!-- recipe: NAME -->,
# so the tests run the documented recipe and not a copy of it
recipe() {
  awk -v want="<!-- recipe: $1 -->" '$0 == want { on = 1; next }
    on && /^```sh/ { code = 1; next } code && /^```/ { exit } code { print }' "$SRC/doc/scale.md"
}
