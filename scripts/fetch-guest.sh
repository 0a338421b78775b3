#!/bin/sh
# Fetch what the qemu backend boots into lace's cache (LACE_CACHE, default
# ~/.cache/lace; folder guest/x86_64 or guest/ppc64le): Debian's kernel
# and busybox-static (the guest's shell and tools).  Nothing is installed:
# scripts/fetch-deb.sh fetches the .debs pinned in downloads.manifest,
# verified, then `dpkg-deb -x`.  Prints the cache folder on stdout.
#
#   scripts/fetch-guest.sh [--arch x86_64|ppc64le] [--part kernel|busybox]...
#                          [KERNEL-PACKAGE]
#
# The parts are independent: each is fetched whether the other could be or
# not, a part already in the cache is not fetched again, and each failure
# is one line on stderr, also kept in the cache folder as PART.fetch-error
# (the qemu backend quotes it when the part is missing); the last line
# names every part that failed with its cause ("fetch-guest: ppc64le
# kernel: fetch-deb: ..."), and the exit status is 1.
#
# x86_64: the cloud kernel's vmlinuz and config (Role x86_64-kernel).
# Debian's System.map in the image package is a one-line placeholder ("the
# real System.map is in the -dbg package"), so the map is made with `nm
# -n` from the debug vmlinux that scripts/fetch-vmlinux.sh fetches (the
# same ABI).  ppc64le: the powerpc64le image (Role ppc64le-kernel), whose
# vmlinux is unstripped (.symtab, ~106,000 symbols: hash_page_mm,
# __hash_page_64K, _switch), so the map is `nm -n` of the image itself and
# the 800 MB -dbg package is not needed.  This machine has no ppc64el
# package lists: fetch-deb.sh keeps lists of its own for it, and nothing
# on the system changes.
#
# KERNEL-PACKAGE: another Debian kernel than the pinned one, fetched from
# apt's list (not pinned: verified against the list only).
set -u
here=$(cd "$(dirname "$0")" && pwd)
arch=x86_64 parts= pkg=
usage() { echo "usage: fetch-guest.sh [--arch x86_64|ppc64le] [--part kernel|busybox]... [KERNEL-PACKAGE]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --arch)
      case ${2:-} in
        x86_64|amd64) arch=x86_64 ;;
        ppc64le|ppc64el) arch=ppc64le ;;
        *) echo "fetch-guest: unknown --arch '${2:-}' (x86_64, ppc64le)" >&2; exit 2 ;;
      esac
      shift 2 ;;
    --part)
      case ${2:-} in
        kernel|busybox) parts="$parts $2" ;;
        *) echo "fetch-guest: unknown --part '${2:-}' (kernel, busybox)" >&2; exit 2 ;;
      esac
      shift 2 ;;
    -*) usage ;;
    *) [ -z "$pkg" ] || usage; pkg=$1; shift ;;
  esac
done
[ -n "$parts" ] || parts="kernel busybox"
debarch=amd64
[ "$arch" = ppc64le ] && debarch=ppc64el
cache="${LACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lace}/guest/$arch"
mkdir -p "$cache" || exit 1
cd "$cache" || exit 1
# one fetch at a time (tests running in parallel share the cache): the
# others wait, then find the files there
if command -v flock >/dev/null; then
  exec 9>"$cache/.lock"
  flock 9
fi
fetch_deb() { "$here/fetch-deb.sh" "$@"; }
hint() { printf 'scripts/fetch-guest.sh --arch %s --part %s%s' "$arch" "$1" "${pkg:+ $pkg}"; }

# the .deb of role $1 (or the named kernel), verified, in the cache folder
deb_of() {
  if [ "$1" = kernel ] && [ -n "$pkg" ]; then
    fetch_deb --retry "$(hint kernel)" --unpinned "$debarch" "$pkg" "$cache"
  else
    fetch_deb --retry "$(hint "$1")" "$arch-$1" "$cache"
  fi
}

part_busybox() {
  # what the pin (or an allowed successor) stands for now: the busybox
  # extracted from it is kept, named by its package in busybox.from
  want=$(fetch_deb --resolve "$arch-busybox") || return 1
  want=$(echo "$want" | cut -d' ' -f1,2)
  [ -f busybox ] && [ "$(cat busybox.from 2>/dev/null)" = "$want" ] && return 0
  # one from another package than the pin stands for is not used
  rm -f busybox busybox.from
  deb=$(deb_of busybox) || return 1
  rm -rf x && mkdir x && dpkg-deb -x "$deb" x && [ -f x/bin/busybox ] ||
    { echo "fetch-guest: $deb: no bin/busybox in it" >&2; rm -rf x; return 1; }
  cp x/bin/busybox busybox.tmp && mv busybox.tmp busybox || return 1
  dpkg-deb -f "$deb" Package Version | sed 's/^[^:]*: //' | paste -sd' ' > busybox.from
  rm -rf x "$deb"
}

# abi_of: the kernel's ABI (6.1.0-57-cloud-amd64) the pin, an allowed
# successor or KERNEL-PACKAGE stands for
abi_of() {
  p=$pkg
  [ -n "$p" ] || { p=$(fetch_deb --resolve "$arch-kernel") || return 1; p=${p%% *}; }
  echo "${p#linux-image-}"
}

# the image's files into the cache: $1 the files wanted (of ABI $abi)
extract_kernel() {
  deb=$(deb_of kernel) || return 1
  # the package fetched (a successor, when allowed) names the ABI
  p=$(dpkg-deb -f "$deb" Package) && abi=${p#linux-image-}
  rm -rf x && mkdir x && dpkg-deb -x "$deb" x || { rm -rf x; return 1; }
  for f in $1; do
    f=$(echo "$f" | sed "s/ABI/$abi/")
    [ -f "x/boot/$f" ] || { echo "fetch-guest: $deb has no boot/$f" >&2; rm -rf x; return 1; }
    cp "x/boot/$f" "$f.tmp" && mv "$f.tmp" "$f" || { rm -rf x; return 1; }
  done
  rm -rf x "$deb"
}

part_kernel() {
  abi=$(abi_of) || return 1
  if [ "$arch" = x86_64 ]; then
    if [ ! -f "vmlinuz-$abi" ] || [ ! -f "config-$abi" ]; then
      extract_kernel "vmlinuz-ABI config-ABI" || return 1
    fi
    if [ ! -s "System.map-$abi" ] || [ "$(wc -l < "System.map-$abi")" -lt 1000 ]; then
      vmlinux=$("$here/fetch-vmlinux.sh") || return 1
      case "$vmlinux" in
        *"-$abi") ;;
        *) echo "fetch-guest: $vmlinux is not the debug image of $abi (scripts/fetch-vmlinux.sh fetches the pinned one)" >&2; return 1 ;;
      esac
      nm -n "$vmlinux" > "System.map-$abi.tmp" && mv "System.map-$abi.tmp" "System.map-$abi" || return 1
    fi
  else
    if [ ! -f "vmlinux-$abi" ]; then
      extract_kernel "config-ABI vmlinux-ABI" || return 1
    fi
    if [ ! -s "System.map-$abi" ] || [ "$(wc -l < "System.map-$abi")" -lt 1000 ]; then
      nm -n "vmlinux-$abi" > "System.map-$abi.tmp" || return 1
      if [ "$(wc -l < "System.map-$abi.tmp")" -lt 1000 ]; then
        echo "fetch-guest: vmlinux-$abi has no symbol table" >&2
        rm -f "System.map-$abi.tmp"
        return 1
      fi
      mv "System.map-$abi.tmp" "System.map-$abi" || return 1
    fi
  fi
  echo "$abi" > kernel.abi
}

failed= why=
for p in $parts; do
  if ( "part_$p" ) 2>".$p.err"; then
    cat ".$p.err" >&2
    rm -f "$p.fetch-error"
  else
    cat ".$p.err" >&2
    line=$(grep -v '^[ \t]*$' ".$p.err" | tail -n 1)
    [ -n "$line" ] || line="fetch-guest: the $arch $p could not be fetched (no reason given)"
    printf '%s\n' "$line" > "$p.fetch-error"
    failed=1
    why="${why:+$why; }$arch $p: $line"
  fi
  rm -f ".$p.err"
done
if [ -n "$failed" ]; then
  echo "fetch-guest: $why" >&2
  exit 1
fi
echo "$cache"
