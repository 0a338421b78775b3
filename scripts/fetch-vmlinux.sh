#!/bin/sh
# Fetch the Debian 12 cloud kernel's debug vmlinux (with DWARF) and System.map-equivalent
# data for lace's real-kernel tests and benchmarks. Cached outside the repository
# (LACE_CACHE, default ~/.cache/lace); prints the vmlinux path on stdout.
# Only the files needed are extracted from the 1.7 GB package, never installed.
set -eu
cache="${LACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lace}"
mkdir -p "$cache"
cd "$cache"
if [ -f vmlinux.path ] && [ -f "$(cat vmlinux.path)" ]; then
  cat vmlinux.path
  exit 0
fi
# the newest ABI the mirror offers, through the meta package's dependency
pkg=$(apt-cache depends linux-image-cloud-amd64-dbg 2>/dev/null |
      sed -n 's/^ *Depends: \(linux-image-6\.1\.0-[0-9]*-cloud-amd64-dbg\).*/\1/p' | head -n 1)
if [ -z "$pkg" ]; then
  pkg=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-cloud-amd64-dbg$' |
        awk '{print $1}' | sort -V | tail -n 1)
fi
[ -n "$pkg" ] || { echo "fetch-vmlinux: no linux-image-*-cloud-amd64-dbg package found (apt-get update?)" >&2; exit 1; }
ls "$pkg"_*.deb >/dev/null 2>&1 || apt-get download "$pkg" >&2
deb=$(ls "$pkg"_*.deb | head -n 1)
abi=${pkg#linux-image-}; abi=${abi%-dbg}
dpkg-deb --fsys-tarfile "$deb" | tar -x --wildcards "./usr/lib/debug/boot/vmlinux-$abi" >&2
v="$cache/usr/lib/debug/boot/vmlinux-$abi"
[ -f "$v" ] || { echo "fetch-vmlinux: $deb has no vmlinux-$abi" >&2; exit 1; }
# the .deb is large and everything needed is extracted now
rm -f "$deb"
echo "$v" > vmlinux.path
echo "$v"
