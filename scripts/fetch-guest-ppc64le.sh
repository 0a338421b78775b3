#!/bin/sh
# Fetch the ppc64le guest for the qemu backend: Debian's powerpc64le kernel
# (vmlinux, config) and busybox-static, both architecture ppc64el, into
# LACE_CACHE (default ~/.cache/lace/guest/ppc64le).  Prints the cache folder.
#
#   scripts/fetch-guest-ppc64le.sh [KERNEL-PACKAGE]
#
# The host is amd64 and has no ppc64el package lists, so apt-get runs with
# its own architecture, lists and archive folders inside the cache: nothing
# on the system changes and nothing is installed (`dpkg-deb -x` only).
#
# Unlike the amd64 image, Debian's ppc64le image ships an unstripped ELF
# vmlinux (.symtab, ~106,000 symbols: hash_page_mm, __hash_page_64K,
# _switch), so System.map is made with `nm -n` from the image itself and
# the 800 MB -dbg package is not needed.  The System.map file in the
# package is a one-line placeholder.
set -eu
pkg="${1:-linux-image-6.1.0-57-powerpc64le}"
cache="${LACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lace}/guest/ppc64le"
mkdir -p "$cache/apt/lists/partial" "$cache/apt/archives/partial"
cd "$cache"
# one fetch at a time (tests running in parallel share the cache)
if command -v flock >/dev/null; then
  exec 9>"$cache/.lock"
  flock 9
fi
abi=${pkg#linux-image-}

apt_ppc() {
  apt-get -q -o APT::Architecture=ppc64el -o APT::Architectures=ppc64el \
    -o Dir::State::Lists="$cache/apt/lists" -o Dir::Cache="$cache/apt" \
    -o Debug::NoLocking=1 "$@"
}

# download PACKAGE: the .deb in the cache folder, lists fetched once
download() {
  ls "$1"_*.deb >/dev/null 2>&1 && return 0
  ls apt/lists/*Packages* >/dev/null 2>&1 || apt_ppc update >&2
  apt_ppc download "$1" >&2
}

if [ ! -f "vmlinux-$abi" ]; then
  download "$pkg"
  deb=$(ls "$pkg"_*.deb | head -n 1)
  rm -rf x && mkdir x
  dpkg-deb -x "$deb" x
  cp "x/boot/config-$abi" .
  cp "x/boot/vmlinux-$abi" "vmlinux-$abi.tmp" && mv "vmlinux-$abi.tmp" "vmlinux-$abi"
  rm -rf x "$deb"
fi
if [ ! -s "System.map-$abi" ] || [ "$(wc -l < "System.map-$abi")" -lt 1000 ]; then
  nm -n "vmlinux-$abi" > "System.map-$abi.tmp"
  if [ "$(wc -l < "System.map-$abi.tmp")" -lt 1000 ]; then
    echo "fetch-guest-ppc64le: vmlinux-$abi has no symbol table" >&2
    exit 1
  fi
  mv "System.map-$abi.tmp" "System.map-$abi"
fi
if [ ! -f busybox ]; then
  download busybox-static
  deb=$(ls busybox-static_*.deb | head -n 1)
  rm -rf x && mkdir x
  dpkg-deb -x "$deb" x
  cp x/bin/busybox busybox.tmp && mv busybox.tmp busybox
  rm -rf x "$deb"
fi
echo "$abi" > kernel.abi
echo "$cache"
