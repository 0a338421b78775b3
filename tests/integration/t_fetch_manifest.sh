# scripts/downloads.manifest, the one list of what lace downloads, is
# well formed: every stanza has every field, read by the fetcher itself
# (fetch-deb.sh --pinned); roles are unique; sizes are numbers and SHA256s
# 64 hex digits; the pool path is Debian's for the package, version and
# architecture (security updates under pool/updates/); the successor rule
# is one the fetcher knows and matches the pinned package; every role the
# fetch scripts ask for is there; and no pinned version is named anywhere
# else in lace's code or scripts.  Offline: the mirror itself is checked by
# the fetcher on every download (size and SHA256).
. "$SRC/tests/integration/lib.sh"
M=$SRC/scripts/downloads.manifest
F=$SRC/scripts/fetch-deb.sh
unset LACE_MANIFEST LACE_ALLOW_NEWER
export LACE_CACHE=$T/cache

expect_exit 0 "$F" --list
roles=$OUT
[ "$(printf '%s\n' "$roles" | wc -l)" -ge 8 ] || fail "fewer than 8 roles: $roles"
dup=$(printf '%s\n' "$roles" | sort | uniq -d)
[ -z "$dup" ] || fail "roles named twice: $dup"

# one stanza as "field<TAB>value" lines
stanza() {
  awk -v want="$1" 'BEGIN { RS = ""; FS = "\n" }
    { for (i = 1; i <= NF; i++) if ($i == "Role: " want) { for (j = 1; j <= NF; j++) if ($j !~ /^#/) print $j; exit } }' "$M" |
    sed 's/^\([A-Za-z0-9]*\): */\1\t/'
}
re() { printf '%s' "$1" | sed 's/[.+]/\\&/g'; }
field() { printf '%s\n' "$1" | awk -F'\t' -v k="$2" '$1 == k { print $2 }'; }

for r in $roles; do
  expect_exit 0 "$F" --pinned "$r"
  s=$(stanza "$r")
  pkg=$(field "$s" Package) ver=$(field "$s" Version) arch=$(field "$s" Architecture)
  archive=$(field "$s" Archive) file=$(field "$s" Filename) size=$(field "$s" Size)
  sha=$(field "$s" SHA256) succ=$(field "$s" Successor)
  expect_eq "$OUT" "$pkg $ver $arch" "$r: fetch-deb.sh --pinned"
  unknown=$(printf '%s\n' "$s" | cut -f1 | grep -vxE 'Role|Package|Version|Architecture|Archive|Filename|Size|SHA256|Successor')
  [ -z "$unknown" ] || fail "$r: unknown fields: $unknown"
  case $size in ''|*[!0-9]*) fail "$r: Size '$size' is not a number" ;; esac
  printf '%s\n' "$sha" | grep -qxE '[0-9a-f]{64}' || fail "$r: SHA256 '$sha' is not 64 hex digits"
  case $arch in all|amd64|ppc64el) ;; *) fail "$r: Architecture '$arch'" ;; esac
  case $archive in
    bookworm|bookworm-updates) pool=pool/main ;;
    bookworm-security) pool=pool/updates/main ;;
    *) fail "$r: Archive '$archive' is no Debian 12 suite" ;;
  esac
  # pool/COMPONENT/INITIAL/SOURCE/PACKAGE_VERSION-WITHOUT-EPOCH_ARCH.deb
  printf '%s\n' "$file" | grep -qxE "$pool/(lib)?[a-z0-9]/[a-z0-9.+-]+/$(re "$pkg")_$(re "${ver#*:}")_$arch\.deb" ||
    fail "$r: Filename '$file' is not $pool/.../${pkg}_${ver#*:}_$arch.deb"
  case $succ in
    "newest "*|"previous-upstream "*) ;;
    *) fail "$r: Successor '$succ' is neither 'newest GLOB' nor 'previous-upstream GLOB'" ;;
  esac
  # shellcheck disable=SC2254
  case $pkg in ${succ#* }) ;; *) fail "$r: the successor's pattern '${succ#* }' does not match $pkg" ;; esac
done

# the roles the scripts ask for: fetch-guest.sh ARCH-PART, fetch-vmlinux,
# fetch-modules, fetch-bloat-o-meter and lace build kernel (by package)
for r in x86_64-kernel x86_64-busybox ppc64le-kernel ppc64le-busybox x86_64-kernel-dbg \
         x86_64-kernel-previous-dbg x86_64-kernel-previous linux-source; do
  printf '%s\n' "$roles" | grep -qx "$r" || fail "no stanza has Role $r"
done
pkg=$(sed -n 's/^package *= *//p' "$SRC/kernel/kernel.conf")
expect_exit 0 "$F" --pinned "$pkg"

# no version of the manifest's is named elsewhere in code (comments
# aside): neither a Version nor a package name that changes with the pin
# (one its Successor pattern has a * in: linux-image-6.1.0-57-...; not
# linux-source-6.1, whose name stays)
cd "$SRC" || exit 1
names=$(awk 'BEGIN { RS = ""; FS = "\n" }
  { p = v = sc = ""
    for (i = 1; i <= NF; i++) {
      if ($i ~ /^Package: /) p = substr($i, 10)
      if ($i ~ /^Version: /) v = substr($i, 10)
      if ($i ~ /^Successor: .*\*/) sc = 1
    }
    if (v != "") print v
    if (sc && p != "") print p }' "$M" | sort -u)
[ "$(printf '%s\n' "$names" | grep -c .)" -ge 8 ] || fail "too few versions and names to look for: $names"
for n in $names; do
  hits=$( { grep -rnF --include='*.c' --include='*.h' -e "$n" cli pipeline variants measure layout util |
              grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)' | grep -F "\"" ;
            grep -nF -e "$n" scripts/*.sh Makefile ./*/module.mk kernel/kernel.conf |
              grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' ; } || true)
  [ -z "$hits" ] || fail "$n is named outside scripts/downloads.manifest: $hits"
done
exit 0
