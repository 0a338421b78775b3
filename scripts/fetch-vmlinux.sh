#!/bin/sh
# Fetch the Debian 12 cloud kernel's debug vmlinux (with DWARF) and System.map-equivalent
# data for lace's real-kernel tests and benchmarks. Cached outside the repository
# (LACE_CACHE, default ~/.cache/lace); prints the vmlinux path on stdout.
# Only the files needed are extracted from the 1.7 GB package, never installed.
#
#   fetch-vmlinux.sh              the newest ABI the mirror offers
#   fetch-vmlinux.sh --previous   the ABI before it (a real stable update pair
#                                 for lace diff: previous -> newest)
#   fetch-vmlinux.sh --abi [--previous]
#                                 print that ABI (e.g. 6.1.0-57-cloud-amd64)
#                                 without fetching anything, for the scripts
#                                 that fetch other files of the same pair
set -eu
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cache="${LACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lace}"
which=newest
abi_only=
for a in "$@"; do
  case "$a" in
    --previous) which=previous ;;
    --abi) abi_only=1 ;;
    *) echo "usage: fetch-vmlinux.sh [--abi] [--previous]" >&2; exit 2 ;;
  esac
done
mkdir -p "$cache"
cd "$cache"
# one fetch at a time (tests running in parallel share the cache); the
# --abi queries below call this script again, so only the outer one locks
if [ -z "$abi_only" ] && [ -z "${LACE_FETCH_VMLINUX_LOCKED:-}" ] && command -v flock >/dev/null; then
  exec 9>"$cache/.fetch-vmlinux.lock"
  flock 9
  export LACE_FETCH_VMLINUX_LOCKED=1
fi
record=vmlinux.path
[ "$which" = previous ] && record=vmlinux-previous.path
if [ -f "$record" ] && [ -f "$(cat "$record")" ]; then
  if [ -n "$abi_only" ]; then
    v=$(basename "$(cat "$record")"); echo "${v#vmlinux-}"
  else
    cat "$record"
  fi
  exit 0
fi
all=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-cloud-amd64-dbg$' |
      awk '{print $1}' | sort -V)
if [ "$which" = newest ]; then
  # the newest ABI the mirror offers, through the meta package's dependency
  pkg=$(apt-cache depends linux-image-cloud-amd64-dbg 2>/dev/null |
        sed -n 's/^ *Depends: \(linux-image-6\.1\.0-[0-9]*-cloud-amd64-dbg\).*/\1/p' | head -n 1)
  [ -n "$pkg" ] || pkg=$(printf '%s\n' "$all" | tail -n 1)
else
  # the newest ABI built from an older upstream release than the newest one
  # (6.1.0-57 and -56 are Debian revisions of the same 6.1.192 with identical
  # code), so the pair is a real stable update
  nabi=$("$self" --abi) || exit 1
  upstream() { apt-cache show "$1" 2>/dev/null | sed -n 's/^Version: \([^-]*\)-.*/\1/p' | head -n 1; }
  nup=$(upstream "linux-image-$nabi-dbg")
  pkg=
  for p in $(printf '%s\n' "$all" | sort -rV); do
    up=$(upstream "$p")
    if [ -n "$up" ] && [ "$up" != "$nup" ]; then pkg=$p; break; fi
  done
fi
[ -n "$pkg" ] || { echo "fetch-vmlinux: no linux-image-*-cloud-amd64-dbg package found (apt-get update?)" >&2; exit 1; }
abi=${pkg#linux-image-}; abi=${abi%-dbg}
[ -z "$abi_only" ] || { echo "$abi"; exit 0; }
ls "$pkg"_*.deb >/dev/null 2>&1 || apt-get download "$pkg" >&2
deb=$(ls "$pkg"_*.deb | head -n 1)
dpkg-deb --fsys-tarfile "$deb" | tar -x --wildcards "./usr/lib/debug/boot/vmlinux-$abi" >&2
v="$cache/usr/lib/debug/boot/vmlinux-$abi"
[ -f "$v" ] || { echo "fetch-vmlinux: $deb has no vmlinux-$abi" >&2; exit 1; }
# the .deb is large and everything needed is extracted now
rm -f "$deb"
echo "$v" > "$record"
echo "$v"
