#!/bin/sh
# Fetch real kernel modules of the Debian 12 cloud kernel for lace's
# bloat-o-meter parity test: the same stable update pair as
# scripts/fetch-vmlinux.sh (previous -> pinned ABI), from the bootable
# image packages pinned in scripts/downloads.manifest (Roles
# x86_64-kernel-previous and x86_64-kernel, about 27 MB each; modules there
# keep their symbol tables, which is all bloat-o-meter reads).  Cached
# outside the repository (LACE_CACHE, default ~/.cache/lace); never
# installed: only the named modules are extracted and the .deb is removed.
#
#   fetch-modules.sh [MODULE...]   default: btrfs xfs
#
# Prints one line per module: "OLD.ko NEW.ko".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache="${LACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lace}"
[ $# -gt 0 ] || set -- btrfs xfs
mods="$*"
mkdir -p "$cache/modules"
cd "$cache/modules"

# path of module $2 of role $1, extracted on first use
module() {
  p=$("$here/fetch-deb.sh" --resolve "$1") || return 1
  p=${p%% *}
  abi=${p#linux-image-}
  found=$(find "$abi/lib/modules/$abi/kernel" -name "$2.ko" 2>/dev/null | head -n 1)
  if [ -z "$found" ]; then
    deb=$("$here/fetch-deb.sh" --retry "scripts/fetch-modules.sh $mods" "$1" "$cache/modules") || return 1
    p=$(dpkg-deb -f "$deb" Package) && abi=${p#linux-image-}
    mkdir -p "$abi"
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$abi" --wildcards "./lib/modules/$abi/kernel/*/$2.ko" >&2 ||
      { echo "fetch-modules: $deb has no $2.ko" >&2; return 1; }
    found=$(find "$abi/lib/modules/$abi/kernel" -name "$2.ko" | head -n 1)
  fi
  echo "$cache/modules/$found"
}

for m in "$@"; do
  a=$(module x86_64-kernel-previous "$m") && b=$(module x86_64-kernel "$m") || exit 1
  echo "$a $b"
done
rm -f linux-image-*.deb
