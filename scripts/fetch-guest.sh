#!/bin/sh
# Fetch what the qemu backend boots: Debian's x86-64 cloud kernel (vmlinuz +
# System.map from the image package) and busybox-static (the guest's shell
# and tools).  Cached outside the repository (LACE_CACHE, default
# ~/.cache/lace/guest/x86_64); nothing is installed: `apt-get download` then
# `dpkg-deb -x`.  Prints the cache folder on stdout.
#
#   scripts/fetch-guest.sh [KERNEL-PACKAGE]
#   scripts/fetch-guest.sh --arch ppc64le [KERNEL-PACKAGE]
#
# --arch ppc64le hands over to fetch-guest-ppc64le.sh (Debian's powerpc64le
# kernel and ppc64el busybox, cache folder guest/ppc64le).
#
# Debian's System.map in the image package is a one-line placeholder ("the
# real System.map is in the -dbg package"), so the map is made with `nm -n`
# from the debug vmlinux that scripts/fetch-vmlinux.sh fetches (same ABI).
#
# KERNEL-PACKAGE defaults to linux-image-6.1.0-57-cloud-amd64, the kernel
# the design notes were verified with.
set -eu
if [ "${1:-}" = --arch ]; then
  case "${2:-}" in
    x86_64|amd64) shift 2 ;;
    ppc64le|ppc64el) shift 2; exec "$(dirname "$0")/fetch-guest-ppc64le.sh" "$@" ;;
    *) echo "fetch-guest: unknown --arch '${2:-}' (x86_64, ppc64le)" >&2; exit 2 ;;
  esac
fi
pkg="${1:-linux-image-6.1.0-57-cloud-amd64}"
cache="${LACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lace}/guest/x86_64"
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$cache"
cd "$cache"
# one fetch at a time (tests running in parallel share the cache): the
# others wait, then find the files there
if command -v flock >/dev/null; then
  exec 9>"$cache/.lock"
  flock 9
fi
abi=${pkg#linux-image-}
if [ ! -f "vmlinuz-$abi" ] || [ ! -f "System.map-$abi" ]; then
  ls "$pkg"_*.deb >/dev/null 2>&1 || apt-get download "$pkg" >&2
  deb=$(ls "$pkg"_*.deb | head -n 1)
  rm -rf x && mkdir x
  dpkg-deb -x "$deb" x
  cp "x/boot/vmlinuz-$abi" "x/boot/config-$abi" .
  rm -rf x "$deb"
fi
if [ ! -s "System.map-$abi" ] || [ "$(wc -l < "System.map-$abi")" -lt 1000 ]; then
  vmlinux=$("$here/fetch-vmlinux.sh")
  case "$vmlinux" in
    *"$abi") ;;
    *) echo "fetch-guest: $vmlinux is not the debug image of $abi" >&2; exit 1 ;;
  esac
  nm -n "$vmlinux" > "System.map-$abi.tmp" && mv "System.map-$abi.tmp" "System.map-$abi"
fi
if [ ! -f busybox ]; then
  ls busybox-static_*.deb >/dev/null 2>&1 || apt-get download busybox-static >&2
  deb=$(ls busybox-static_*.deb | head -n 1)
  rm -rf x && mkdir x
  dpkg-deb -x "$deb" x
  cp x/bin/busybox busybox.tmp && mv busybox.tmp busybox
  rm -rf x "$deb"
fi
echo "$abi" > kernel.abi
echo "$cache"
