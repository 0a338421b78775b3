#!/bin/sh
# Install the Debian packages lace needs, when any is missing.
# Called by the Makefile before building. As root it runs apt-get; as any
# other user it prints the exact command to run and fails, so nothing ever
# depends on what happens to be installed on a given machine.
set -eu

# build: libraries and tools the build links or runs (qemu-system-x86: the
# TCG plugin is built against it and --backend qemu boots guests with it)
PKGS_BUILD="gcc make pkg-config binutils binutils-dev binutils-multiarch-dev
libdw-dev libelf-dev zlib1g-dev libgsl-dev libjansson-dev libinih-dev libzstd-dev
libpfm4-dev systemtap-sdt-dev valgrind qemu-system-x86"
# test: what the test suite runs or compares against (the ppc64le cross
# compiler also builds the guest workloads build/ppc64le/bench/*: static,
# so it needs the cross libc, which the compiler only recommends;
# qemu-system-ppc boots the ppc64le guest of t_qemu_ab, t_qemu_ppc and
# t_qemu_ppc_faultbench, and with gdb-multiarch t_qemu_pathlen_gdb, which
# single-steps it through QEMU's gdbstub; groff-base renders the man pages t_man_examples
# checks; chromium and a font for it, which it only recommends:
# t_report_browser opens the study reports in headless Chromium and
# measures their text; universal-ctags measures functions for
# scripts/check-function-length.sh).  A test skips only for a missing
# package named here or a fetched kernel: the CI gate
# (scripts/check-skips.sh) fails on any other skip.  GNU parallel (with
# rsync for its transfers), slurm-wlm and munge run the kernel study's plan
# as doc/scale.md's recipes say (t_study_kernel_parallel,
# t_study_kernel_slurm).
PKGS_TEST="libcmocka-dev gcc-powerpc64le-linux-gnu binutils-powerpc64le-linux-gnu
libc6-dev-ppc64el-cross rt-tests linux-perf python3 clang jq qemu-system-ppc
groff-base util-linux chromium fonts-liberation universal-ctags gdb-multiarch
parallel rsync slurm-wlm munge"

# kernel: what `lace build --kernel` and `make check-kernel` need to build
# Debian's linux-source (and, for the qemu backend, boot it)
PKGS_KERNEL="flex bison bc libssl-dev libelf-dev patch xz-utils qemu-system-x86
qemu-system-ppc"

want="$PKGS_BUILD"
case "${1:-build}" in
  test|check|all) want="$PKGS_BUILD $PKGS_TEST" ;;
  kernel) want="$PKGS_BUILD $PKGS_TEST $PKGS_KERNEL" ;;
esac

missing=""
for p in $want; do
  st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  case "$st" in
    *"install ok installed"*) ;;
    *) missing="$missing $p" ;;
  esac
done
[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
  echo "lace: missing Debian packages:$missing" >&2
  echo "lace: run as root: apt-get update && $cmd" >&2
  exit 1
fi
echo "setup: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 || true
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2
