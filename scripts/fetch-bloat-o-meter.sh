#!/bin/sh
# Fetch the kernel's scripts/bloat-o-meter for lace's parity test
# (t_diff_bloat), when no extracted linux-source tree has it: the script
# comes from Debian's linux-source-6.1 package (139 MB, pinned in
# scripts/downloads.manifest, Role linux-source, fetched and verified by
# scripts/fetch-deb.sh), of which only this one file is extracted into
# lace's cache (LACE_CACHE, default ~/.cache/lace) and the .deb is removed.
# Never installs anything.
#
# Prints the path of bloat-o-meter.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache="${LACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lace}"
for c in "$cache"/src/linux-source-*/scripts/bloat-o-meter \
         /usr/src/linux-source-*/scripts/bloat-o-meter "$cache/tools/bloat-o-meter"; do
  [ -f "$c" ] && { echo "$c"; exit 0; }
done
mkdir -p "$cache/tools"
tmp=$(mktemp -d "$cache/tools/fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
deb=$("$here/fetch-deb.sh" --retry scripts/fetch-bloat-o-meter.sh linux-source "$tmp") || exit 1
cd "$tmp"
tarball=$(dpkg-deb -c "$deb" | awk '{ print $NF }' | grep -m1 '/linux-source-.*\.tar\.xz$') ||
  { echo "fetch-bloat-o-meter: no source tarball in $deb" >&2; exit 1; }
dpkg-deb --fsys-tarfile "$deb" | tar -xO "$tarball" |
  tar -xJ --wildcards '*/scripts/bloat-o-meter' ||
  { echo "fetch-bloat-o-meter: cannot extract scripts/bloat-o-meter from $deb" >&2; exit 1; }
found=$(find . -path '*/scripts/bloat-o-meter' | head -n 1)
[ -n "$found" ] || { echo "fetch-bloat-o-meter: $deb has no scripts/bloat-o-meter" >&2; exit 1; }
mv "$found" "$cache/tools/bloat-o-meter.tmp"
mv "$cache/tools/bloat-o-meter.tmp" "$cache/tools/bloat-o-meter"
echo "$cache/tools/bloat-o-meter"
