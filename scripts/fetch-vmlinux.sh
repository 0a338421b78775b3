#!/bin/sh
# Fetch the Debian 12 cloud kernel's debug vmlinux (with DWARF) for lace's
# real-kernel tests and benchmarks, into lace's cache (LACE_CACHE, default
# ~/.cache/lace; usr/lib/debug/boot/vmlinux-ABI); prints its path.  Only
# the vmlinux is extracted from the package (~280 MB to download), never
# installed.  The packages are the ones pinned in scripts/downloads.manifest
# (scripts/fetch-deb.sh fetches and verifies them).
#
#   fetch-vmlinux.sh              the pinned ABI (Role x86_64-kernel-dbg)
#   fetch-vmlinux.sh --previous   the ABI before it, from an older upstream
#                                 release (x86_64-kernel-previous-dbg): a
#                                 real stable update pair for lace diff
#   fetch-vmlinux.sh --abi [--previous]
#                                 print that ABI (e.g. 6.1.0-57-cloud-amd64)
#                                 without fetching anything, for the scripts
#                                 that fetch other files of the same pair
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache="${LACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lace}"
role=x86_64-kernel-dbg
abi_only=
for a in "$@"; do
  case "$a" in
    --previous) role=x86_64-kernel-previous-dbg ;;
    --abi) abi_only=1 ;;
    *) echo "usage: fetch-vmlinux.sh [--abi] [--previous]" >&2; exit 2 ;;
  esac
done
# what the pin (or, with LACE_ALLOW_NEWER=1, the successor fetched
# before) stands for
abi_of() { a=${1#linux-image-}; echo "${a%-dbg}"; }
resolved=$("$here/fetch-deb.sh" --resolve "$role") || exit 1
abi=$(abi_of "${resolved%% *}")
[ -z "$abi_only" ] || { echo "$abi"; exit 0; }
v="$cache/usr/lib/debug/boot/vmlinux-$abi"
[ -f "$v" ] && { echo "$v"; exit 0; }
mkdir -p "$cache/usr/lib/debug/boot"
retry="scripts/fetch-vmlinux.sh"
[ "$role" = x86_64-kernel-dbg ] || retry="$retry --previous"
deb=$("$here/fetch-deb.sh" --retry "$retry" "$role" "$cache") || exit 1
abi=$(abi_of "$(dpkg-deb -f "$deb" Package)")
v="$cache/usr/lib/debug/boot/vmlinux-$abi"
# into a folder of its own first, so a cut-short extraction is never
# taken for the vmlinux
tmp=$(mktemp -d "$cache/usr/lib/debug/boot/.x.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "./usr/lib/debug/boot/vmlinux-$abi" >&2 ||
  { echo "fetch-vmlinux: $deb has no vmlinux-$abi" >&2; exit 1; }
mv "$tmp/usr/lib/debug/boot/vmlinux-$abi" "$v"
# the .deb is large and everything needed is extracted now
rm -f "$deb"
echo "$v"
