#!/bin/sh
# Fetch real kernel modules of the Debian 12 cloud kernel for lace's
# bloat-o-meter parity test: the same stable update pair as
# scripts/fetch-vmlinux.sh (previous -> newest ABI), from the bootable
# image packages (about 27 MB each; modules there keep their symbol
# tables, which is all bloat-o-meter reads).  Cached outside the repository
# (LACE_CACHE, default ~/.cache/lace); never installed: only the named
# modules are extracted and the .deb is removed.
#
#   fetch-modules.sh [MODULE...]   default: btrfs xfs
#
# Prints one line per module: "OLD.ko NEW.ko".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache="${LACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lace}"
[ $# -gt 0 ] || set -- btrfs xfs
old=$("$here/fetch-vmlinux.sh" --abi --previous) || exit 1
new=$("$here/fetch-vmlinux.sh" --abi) || exit 1
mkdir -p "$cache/modules"
cd "$cache/modules"

# path of module $2 of ABI $1, extracted on first use
module() {
  dir=$1/lib/modules/$1/kernel
  found=$(find "$dir" -name "$2.ko" 2>/dev/null | head -n 1)
  if [ -z "$found" ]; then
    pkg=linux-image-$1
    ls "$pkg"_*.deb >/dev/null 2>&1 || apt-get download "$pkg" >&2 ||
      { echo "fetch-modules: cannot download $pkg" >&2; return 1; }
    deb=$(ls "$pkg"_*.deb | head -n 1)
    mkdir -p "$1"
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$1" --wildcards "./lib/modules/$1/kernel/*/$2.ko" >&2 ||
      { echo "fetch-modules: $deb has no $2.ko" >&2; return 1; }
    found=$(find "$dir" -name "$2.ko" | head -n 1)
  fi
  echo "$cache/modules/$found"
}

for m in "$@"; do
  a=$(module "$old" "$m") && b=$(module "$new" "$m") || exit 1
  echo "$a $b"
done
rm -f linux-image-*.deb
