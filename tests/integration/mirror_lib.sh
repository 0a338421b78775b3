# A Debian mirror on localhost for the download tests (t_fetch_mirror,
# t_study_kernel_fetch); source it after lib.sh.  Fixture .debs are built
# here with dpkg-deb, never committed; tests/integration/mirror.py serves
# them with their Packages lists and Release files, and apt reaches it the
# way it reaches Debian: through a sources file, in a configuration of the
# test's own (APT_CONFIG), so lace's fetcher takes the mirror from apt as
# it does on a real system.  No network beyond 127.0.0.1.
#
#   mirror_deb NAME VERSION ARCH [FILE]   build a .deb holding FILE (default
#                                         a small text file); prints its path
#   mirror_put DEB ARCHIVE [unlisted]     put it in the pool of ARCHIVE
#                                         (bookworm, bookworm-security),
#                                         listed unless told; prints the
#                                         pool path
#   mirror_index                          write every Packages and Release
#   mirror_break_list ARCHIVE ARCH        make that list's size disagree
#                                         with its Release ("Mirror sync in
#                                         progress?")
#   mirror_start                          serve it; sets PORT, exports
#                                         APT_CONFIG
#   mirror_rule REGEX hang|truncate|404   what the server does to a path
#   mirror_requests                       how many requests it has had
#   mirror_pin ROLE DEB ARCHIVE POOL [SUCCESSOR] [SHA256]
#                                         a stanza of $T/manifest (exported
#                                         as LACE_MANIFEST)
MIRROR=$T/mirror
mkdir -p "$MIRROR" "$T/debs"
: > "$T/mirror.listed"
: > "$T/mirror.rules"
: > "$T/mirror.log"

command -v dpkg-deb >/dev/null || fail "dpkg-deb missing (Debian package dpkg)"

mirror_root() { case $1 in *-security) echo debian-security ;; *) echo debian ;; esac; }

mirror_deb() {
  local name=$1 version=$2 arch=$3 file=${4:-} d
  d=$T/debs/$name-$version-$arch
  rm -rf "$d" && mkdir -p "$d/DEBIAN" "$d/usr/share/$name"
  if [ -n "$file" ]; then mkdir -p "$d/bin" && cp "$file" "$d/bin/"; fi
  printf 'a fixture of lace'\''s download tests: %s %s %s\n' "$name" "$version" "$arch" > "$d/usr/share/$name/README"
  printf 'Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: lace <lace@localhost>\nDescription: lace download test fixture\n' \
    "$name" "$version" "$arch" > "$d/DEBIAN/control"
  dpkg-deb --root-owner-group -Zgzip --build "$d" "$d.deb" >/dev/null || fail "dpkg-deb --build $name"
  echo "$d.deb"
}

mirror_put() {
  local deb=$1 archive=$2 name version arch pool
  name=$(dpkg-deb -f "$deb" Package) version=$(dpkg-deb -f "$deb" Version) arch=$(dpkg-deb -f "$deb" Architecture)
  pool=pool/main
  [ "$archive" = bookworm-security ] && pool=pool/updates/main
  pool=$pool/$(printf %.1s "$name")/$name/${name}_${version#*:}_$arch.deb
  mkdir -p "$MIRROR/$(mirror_root "$archive")/$(dirname "$pool")"
  cp "$deb" "$MIRROR/$(mirror_root "$archive")/$pool"
  [ "${3:-}" = unlisted ] || echo "$archive $arch $deb $pool" >> "$T/mirror.listed"
  echo "$pool"
}

mirror_index() {
  local a d arch deb pool f
  for a in bookworm bookworm-security; do
    d=$MIRROR/$(mirror_root "$a")/dists/$a
    for arch in amd64 ppc64el; do
      mkdir -p "$d/main/binary-$arch"
      # never empty: apt keeps no empty list, and a missing list is
      # another case
      printf 'Package: lace-mirror-filler\nVersion: 1\nArchitecture: %s\nFilename: pool/none.deb\nSize: 1\nSHA256: %064d\nDescription: keeps the list non-empty\n\n' \
        "$arch" 0 > "$d/main/binary-$arch/Packages"
    done
  done
  while read -r a arch deb pool; do
    d=$MIRROR/$(mirror_root "$a")/dists/$a
    for t in amd64 ppc64el; do
      [ "$arch" = all ] || [ "$arch" = "$t" ] || continue
      { dpkg-deb -f "$deb"; echo "Filename: $pool"; echo "Size: $(wc -c < "$deb")"
        echo "SHA256: $(sha256sum "$deb" | cut -d' ' -f1)"; echo; } >> "$d/main/binary-$t/Packages"
    done
  done < "$T/mirror.listed"
  for a in bookworm bookworm-security; do
    d=$MIRROR/$(mirror_root "$a")/dists/$a
    { echo "Origin: lace-test"; echo "Label: lace-test"; echo "Suite: $a"; echo "Codename: $a"
      echo "Date: $(LC_ALL=C date -u '+%a, %d %b %Y %H:%M:%S UTC')"
      echo "Architectures: amd64 ppc64el"; echo "Components: main"; echo "SHA256:"
      for f in main/binary-amd64/Packages main/binary-ppc64el/Packages; do
        echo " $(sha256sum "$d/$f" | cut -d' ' -f1) $(wc -c < "$d/$f") $f"
      done; } > "$d/Release"
  done
}

mirror_break_list() {
  echo "Description: a line the Release file does not know of" >> "$MIRROR/$(mirror_root "$1")/dists/$1/main/binary-$2/Packages"
}

mirror_start() {
  local i
  python3 "$SRC/tests/integration/mirror.py" "$MIRROR" "$T/mirror.port" "$T/mirror.log" "$T/mirror.rules" &
  MIRROR_PID=$!
  trap 'kill $MIRROR_PID 2>/dev/null' EXIT
  for i in $(seq 100); do [ -s "$T/mirror.port" ] && break; sleep 0.1; done
  [ -s "$T/mirror.port" ] || fail "the local mirror did not start (tests/integration/mirror.py)"
  PORT=$(cat "$T/mirror.port")
  local A=$T/apt
  mkdir -p "$A/conf.d" "$A/sources.list.d" "$A/preferences.d" "$A/state/lists/partial" "$A/cache/archives/partial" "$A/log"
  : > "$A/sources.list"; : > "$A/state/status"
  # both spellings of a source, as a system may have them
  printf 'Types: deb\nURIs: http://127.0.0.1:%s/debian\nSuites: bookworm\nComponents: main\nTrusted: yes\n' \
    "$PORT" > "$A/sources.list.d/debian.sources"
  printf 'deb [trusted=yes] http://127.0.0.1:%s/debian-security bookworm-security main\n' \
    "$PORT" > "$A/sources.list.d/security.list"
  cat > "$A/apt.conf" <<EOF
Dir::Etc::Main "/dev/null";
Dir::Etc::Parts "$A/conf.d";
Dir::Etc::SourceList "$A/sources.list";
Dir::Etc::SourceParts "$A/sources.list.d";
Dir::Etc::Preferences "$A/preferences";
Dir::Etc::PreferencesParts "$A/preferences.d";
Dir::State "$A/state";
Dir::State::Lists "$A/state/lists";
Dir::State::status "$A/state/status";
Dir::Cache "$A/cache";
Dir::Log "$A/log";
Acquire::http::Proxy "DIRECT";
Acquire::Languages "none";
EOF
  export APT_CONFIG=$A/apt.conf
}

mirror_rule() { echo "$1 $2" >> "$T/mirror.rules"; }
mirror_requests() { wc -l < "$T/mirror.log"; }

export LACE_MANIFEST=$T/manifest
: > "$LACE_MANIFEST"
mirror_pin() {
  local deb=$2
  { echo "Role: $1"
    echo "Package: $(dpkg-deb -f "$deb" Package)"
    echo "Version: $(dpkg-deb -f "$deb" Version)"
    echo "Architecture: $(dpkg-deb -f "$deb" Architecture)"
    echo "Archive: $3"
    echo "Filename: $4"
    echo "Size: $(wc -c < "$deb")"
    echo "SHA256: ${6:-$(sha256sum "$deb" | cut -d' ' -f1)}"
    echo "Successor: ${5:-newest $(dpkg-deb -f "$deb" Package)}"
    echo; } >> "$LACE_MANIFEST"
}
