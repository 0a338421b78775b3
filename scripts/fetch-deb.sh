#!/bin/sh
# fetch-deb.sh: the one fetcher of lace's downloads.  Every .deb lace needs
# is pinned in downloads.manifest (package, version, architecture, archive,
# pool path, size, SHA256); this script fetches one so that no package
# index can stop it, and verifies it before anyone unpacks it.
#
#   fetch-deb.sh [--retry HINT] NAME DIR
#         fetch NAME (a Role of the manifest, or a Package it lists once)
#         into DIR as the pool file's name; print its path.  A verified
#         copy already in DIR is used as it is (nothing fetched).
#   fetch-deb.sh --resolve NAME
#         print "PACKAGE VERSION ARCH pinned|newer": what NAME stands for
#         now (the pin, or with LACE_ALLOW_NEWER=1 the successor fetched
#         before)
#   fetch-deb.sh --pinned NAME       print "PACKAGE VERSION ARCH" of the pin
#   fetch-deb.sh --list              print every Role
#   fetch-deb.sh --unpinned ARCH PACKAGE DIR
#         a package the manifest does not pin (a kernel a user names):
#         from apt's list only, verified against that list
#
# How: apt's lists first (apt-get download PACKAGE=VERSION: the system's
# lists for this machine's architecture and "all", lists of its own under
# LACE_CACHE/apt/ARCH for another, updated when missing); when the list
# fails or lacks it, the pool path from the mirror the system's apt sources
# name for the archive (apt-get indextargets: deb822 .sources and .list
# alike, never a fixed host), through apt's own downloader
# (/usr/lib/apt/apt-helper download-file), with LACE_FETCH_TRIES tries
# (default 3) of LACE_FETCH_TIMEOUT seconds each (default 60).  Size and
# SHA256 are checked against the pin; a file that does not match is
# deleted, never used.
#
# When the mirror no longer has the pinned version (neither in the list
# nor at its pool path), the one-line error says so and names the
# manifest's Successor rule and what it would take now; LACE_ALLOW_NEWER=1
# takes it (from apt's list, verified against it), records it in
# LACE_CACHE/downloads/ROLE.used and says on stderr that it is not the pin.
#
# Errors: one line on stderr, "fetch-deb: PACKAGE VERSION (ARCH): what
# failed (the list or URL and apt's reason); retry: HINT", exit 1 (2 for a
# usage or manifest error).  apt's own output goes to
# LACE_CACHE/downloads/ROLE.log.  Environment: LACE_MANIFEST (another
# manifest, for tests), LACE_CACHE, APT_CONFIG (apt's, as for apt-get).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
manifest=${LACE_MANIFEST:-$here/downloads.manifest}
cache="${LACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lace}"
timeout=${LACE_FETCH_TIMEOUT:-60}
tries=${LACE_FETCH_TRIES:-3}
helper=/usr/lib/apt/apt-helper
retry="run the same command again (what is fetched and verified is kept)"
tab=$(printf '\t')

usage() {
  sed -n '2,/^set -eu/{/^#/s/^# \{0,1\}//p}' "$0" >&2
  exit 2
}
fatal() { echo "fetch-deb: $*" >&2; exit 2; }

mode=fetch
while [ $# -gt 0 ]; do
  case $1 in
    --retry) [ $# -ge 2 ] || usage; retry=$2; shift 2 ;;
    --resolve) mode=resolve; shift ;;
    --pinned) mode=pinned; shift ;;
    --list) mode=list; shift ;;
    --unpinned) mode=unpinned; shift ;;
    -h|--help) usage ;;
    -*) usage ;;
    *) break ;;
  esac
done
case $mode in
  fetch) [ $# -eq 2 ] || usage ;;
  resolve|pinned) [ $# -eq 1 ] || usage ;;
  list) [ $# -eq 0 ] || usage ;;
  unpinned) [ $# -eq 3 ] || usage ;;
esac
[ -r "$manifest" ] || fatal "$manifest: cannot read the manifest"

# ---- the manifest ------------------------------------------------------

# entry NAME: the stanza whose Role is NAME, else the one whose Package is
# NAME, into e_role e_pkg e_ver e_arch e_archive e_file e_size e_sha e_succ
entry() {
  line=$(awk -v want="$1" '
    BEGIN { RS = ""; FS = "\n"; n = split("Role Package Version Architecture Archive Filename Size SHA256 Successor", keys, " ") }
    {
      split("", f); any = 0
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^#/ || $i !~ /^[A-Za-z0-9]+:/) continue
        k = $i; sub(/:.*/, "", k); v = $i; sub(/^[^:]*:[ \t]*/, "", v); sub(/[ \t]+$/, "", v)
        f[k] = v; any = 1
      }
      if (!any) next
      if (f["Role"] != want && f["Package"] != want) next
      s = ""
      for (i = 1; i <= n; i++) {
        if (f[keys[i]] == "") { printf "stanza %s has no %s\n", (f["Role"] != "" ? f["Role"] : f["Package"]), keys[i]; bad = 1; exit }
        s = s (i > 1 ? "\t" : "") f[keys[i]]
      }
      if (f["Role"] == want) role = s; else { pkgs++; pkg = s }
    }
    END {
      if (bad) exit 3
      if (role != "") print role
      else if (pkgs == 1) print pkg
      else if (pkgs > 1) { print "several stanzas have Package " want ": name the Role"; exit 3 }
      else { print "no stanza has Role or Package " want; exit 3 }
    }' "$manifest") || fatal "$manifest: $line"
  IFS=$tab read -r e_role e_pkg e_ver e_arch e_archive e_file e_size e_sha e_succ <<EOF
$line
EOF
}

if [ "$mode" = list ]; then
  sed -n 's/^Role:[ \t]*//p' "$manifest"
  exit 0
fi

# ---- apt ---------------------------------------------------------------

host=$(dpkg --print-architecture)

# setup ARCH: apt runs with the system's lists, or (another architecture)
# lists and a package cache of its own in LACE_CACHE/apt/ARCH
setup() {
  l_arch=$1
  [ "$l_arch" = all ] && l_arch=$host
  private=
  [ "$l_arch" = "$host" ] || private="$cache/apt/$l_arch"
  if [ -n "$private" ]; then
    mkdir -p "$private/lists/partial" "$private/archives/partial"
  fi
}

# apt_run PROGRAM ARGS...: apt-get or apt-cache on those lists, with the
# timeout; apt's own retries off (the pool step retries itself)
apt_run() {
  p=$1; shift
  if [ -n "$private" ]; then
    "$p" -q -o APT::Architecture="$l_arch" -o APT::Architectures="$l_arch" \
      -o Dir::State::Lists="$private/lists" -o Dir::Cache="$private" -o Debug::NoLocking=1 \
      -o Acquire::http::Timeout="$timeout" -o Acquire::https::Timeout="$timeout" \
      -o Acquire::Retries=0 "$@"
  else
    "$p" -q -o Acquire::http::Timeout="$timeout" -o Acquire::https::Timeout="$timeout" \
      -o Acquire::Retries=0 "$@"
  fi
}

# the last line apt gave as its reason: its last "E:"/"Err" detail, else
# its last line
reason() {
  r=$(printf '%s\n' "$1" | sed -n 's/^E: //p' | grep -v '^Download Failed$\|^Some index files failed' | tail -n 1)
  [ -n "$r" ] || r=$(printf '%s\n' "$1" | grep -v '^W: \|^N: ' | sed '/^[ \t]*$/d' | tail -n 1)
  # apt's "Failed to fetch URL  REASON [IP: ...]": the reason; the caller
  # names the URL
  r=$(printf '%s' "$r" | sed 's/^Failed to fetch [^ ]*  *//; s/ *\[IP: [^]]*\]$//')
  printf '%s' "${r:-no reason given}"
}

# list_find ARCHIVE: l_uri (the mirror the sources name for the archive),
# l_list (its Packages list for l_arch, "" when none is configured) and
# l_have (1 when that list is on disk)
list_find() {
  l_uri= l_list= l_have=
  targets=$(apt_run apt-get indextargets --no-release-info \
    --format "\$(RELEASE)$tab\$(ARCHITECTURE)$tab\$(REPO_URI)$tab\$(FILENAME)" 'Identifier: Packages' 2>/dev/null) || true
  while IFS=$tab read -r rel arch uri file; do
    [ "$rel" = "$1" ] || continue
    [ -n "$l_uri" ] || l_uri=$uri
    if [ "$arch" = "$l_arch" ] && [ -z "$l_list" ]; then
      l_list=$file
      for f in "$file" "$file".*; do [ -f "$f" ] && l_have=1; done
    fi
  done <<EOF
$targets
EOF
  return 0
}

# update_private: apt-get update of the lists of our own (never the
# system's), once; u_out keeps what it said
updated=
update_private() {
  [ -n "$private" ] && [ -z "$updated" ] || return 0
  updated=1
  u_out=$(apt_run apt-get update 2>&1) || true
  printf '%s\n' "$u_out" >>"$log"
}

# list_reason ARCHIVE: why the list of the archive is not there, from
# apt-get update's errors about it
list_reason() {
  r=$(printf '%s\n' "${u_out:-}" | grep "^E: .*/dists/$1/.*binary-$l_arch" | tail -n 1)
  if [ -n "$r" ]; then reason "$r"; else printf 'not downloaded (apt-get update?)'; fi
}

# ---- one download --------------------------------------------------------

# verify FILE SIZE SHA256: 0, or v_err says how it differs
verify() {
  sz=$(wc -c <"$1" | tr -d ' ')
  if [ "$sz" != "$2" ]; then v_err="$sz bytes, not the $2 expected"; return 1; fi
  sum=$(sha256sum "$1"); sum=${sum%% *}
  if [ "$sum" != "$3" ]; then v_err="SHA256 $sum, not the expected $3"; return 1; fi
  return 0
}

# by_list PACKAGE VERSION: apt-get download into $tmp/list; l_err why not
by_list() {
  rm -rf "$tmp/list"; mkdir "$tmp/list"
  if out=$(cd "$tmp/list" && apt_run apt-get download "$1=$2" 2>&1); then
    printf '%s\n' "$out" >>"$log"
    got=$(find "$tmp/list" -name '*.deb' | head -n 1)
    [ -n "$got" ] && return 0
    l_err="apt-get download left no .deb"
    return 1
  fi
  printf '%s\n' "$out" >>"$log"
  l_err=$(reason "$out")
  return 1
}

# by_pool URL SIZE: apt-helper download-file into $tmp/pool.deb, up to
# $tries tries; p_err the last reason, p_gone when the mirror answered 404
by_pool() {
  n=1 p_gone=
  while :; do
    rm -f "$tmp/pool.deb" "$tmp/pool.deb.FAILED"
    t0=$(date +%s)
    if out=$("$helper" -o Acquire::http::Timeout="$timeout" -o Acquire::https::Timeout="$timeout" \
               -o Acquire::Retries=0 download-file "$1" "$tmp/pool.deb" 2>&1) && [ -f "$tmp/pool.deb" ]; then
      printf '%s\n' "$out" >>"$log"
      return 0
    fi
    printf 'try %d of %d:\n%s\n' "$n" "$tries" "$out" >>"$log"
    p_err=$(reason "$out")
    # apt says "Connection failed" when the mirror does not answer, and
    # "Undetermined Error" when a transfer stops short: say which
    if [ -f "$tmp/pool.deb" ]; then
      got=$(wc -c <"$tmp/pool.deb" | tr -d ' ')
      [ "$got" -ge "$2" ] || p_err="$p_err: the transfer stopped after $got of $2 bytes"
    elif [ $(( $(date +%s) - t0 )) -ge "$timeout" ]; then
      p_err="$p_err: no answer within $timeout s (LACE_FETCH_TIMEOUT)"
    fi
    rm -f "$tmp/pool.deb" "$tmp/pool.deb.FAILED"
    case $p_err in *404*) p_gone=1; return 1 ;; esac
    [ "$n" -lt "$tries" ] || { [ "$tries" -le 1 ] || p_err="$p_err (after $tries tries)"; return 1; }
    sleep "$n"
    n=$((n + 1))
  done
}

# take FILE SIZE SHA256: verified, moved to $final; else deleted and 1
take() {
  if verify "$1" "$2" "$3"; then
    mv -f "$1" "$final"
    return 0
  fi
  rm -f "$1"
  return 1
}

# info PACKAGE[=VERSION]: s_ver s_file s_size s_sha of that version (the
# candidate without one) in apt's lists
info() {
  show=$(apt_run apt-cache show --no-all-versions "$1" 2>/dev/null) || return 1
  s_ver=$(printf '%s\n' "$show" | sed -n 's/^Version: //p' | head -n 1)
  s_file=$(printf '%s\n' "$show" | sed -n 's/^Filename: //p' | head -n 1)
  s_size=$(printf '%s\n' "$show" | sed -n 's/^Size: //p' | head -n 1)
  s_sha=$(printf '%s\n' "$show" | sed -n 's/^SHA256: //p' | head -n 1)
  [ -n "$s_ver" ] && [ -n "$s_file" ] && [ -n "$s_size" ] && [ -n "$s_sha" ]
}

# successor: the package the manifest's Successor rule picks from apt's
# lists now, into s_pkg and info's s_*; 1 when none
successor() {
  rule=${e_succ%% *} glob=${e_succ#* }
  re="^$(printf '%s' "$glob" | sed 's/[].+^$[]/\\&/g; s/\*/.*/g; s/?/./g')\$"
  best= bestv= all=
  for p in $(apt_run apt-cache search --names-only "$re" 2>/dev/null | awk '{ print $1 }'); do
    v=$(apt_run apt-cache show --no-all-versions "$p" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
    [ -n "$v" ] || continue
    all="$all$p $v
"
    if [ -z "$bestv" ] || dpkg --compare-versions "$v" gt "$bestv"; then best=$p bestv=$v; fi
  done
  [ -n "$best" ] || return 1
  if [ "$rule" = previous-upstream ]; then
    up=${bestv#*:}; up=${up%-*}
    pick= pickv=
    while read -r p v; do
      [ -n "$p" ] || continue
      u=${v#*:}; u=${u%-*}
      [ "$u" != "$up" ] && dpkg --compare-versions "$u" lt "$up" || continue
      if [ -z "$pickv" ] || dpkg --compare-versions "$v" gt "$pickv"; then pick=$p pickv=$v; fi
    done <<EOF
$all
EOF
    best=$pick bestv=$pickv
    [ -n "$best" ] || return 1
  fi
  # the pin itself is no successor
  [ "$best" != "$e_pkg" ] || [ "$bestv" != "$e_ver" ] || return 1
  s_pkg=$best
  info "$best=$bestv"
}

# newer_note: the line that says a version other than the pin is in use
newer_note() {
  echo "fetch-deb: using $1 $2 ($e_arch), not the pinned $e_pkg $e_ver (LACE_ALLOW_NEWER=1): not the committed version" >&2
}

record() {  # PACKAGE VERSION SHA256 pinned|newer
  mkdir -p "$cache/downloads"
  printf '%s %s %s %s %s\n' "$1" "$2" "$e_arch" "$3" "$4" >"$cache/downloads/$e_role.used.tmp"
  mv -f "$cache/downloads/$e_role.used.tmp" "$cache/downloads/$e_role.used"
}

# ---- modes -----------------------------------------------------------------

if [ "$mode" = unpinned ]; then
  e_arch=$1 e_pkg=$2 e_role=unpinned
  dest=$3
  setup "$e_arch"
  mkdir -p "$dest" "$cache/downloads"
  log="$cache/downloads/unpinned.log"
  : >"$log"
  tmp=$(mktemp -d "$dest/.fetch.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  ls "$private/lists/"*Packages* >/dev/null 2>&1 || update_private
  info "$e_pkg" || { echo "fetch-deb: $e_pkg ($e_arch): not in apt's lists; retry: $retry" >&2; exit 1; }
  final="$dest/${s_file##*/}"
  if [ -f "$final" ] && verify "$final" "$s_size" "$s_sha"; then echo "$final"; exit 0; fi
  rm -f "$final"
  if ! by_list "$e_pkg" "$s_ver"; then
    echo "fetch-deb: $e_pkg $s_ver ($e_arch): apt-get download: $l_err; retry: $retry" >&2
    exit 1
  fi
  take "$got" "$s_size" "$s_sha" ||
    { echo "fetch-deb: $e_pkg $s_ver ($e_arch): the download has $v_err by apt's list (deleted); retry: $retry" >&2; exit 1; }
  echo "$final"
  exit 0
fi

entry "$1"

# what ROLE stands for now: the successor fetched before (only when
# allowed), else the pin
used_pkg=$e_pkg used_ver=$e_ver used_state=pinned
if [ "${LACE_ALLOW_NEWER:-0}" = 1 ] && [ -f "$cache/downloads/$e_role.used" ]; then
  read -r p v _ _ st <"$cache/downloads/$e_role.used" || true
  if [ "${st:-}" = newer ]; then used_pkg=$p used_ver=$v used_state=newer; fi
fi

case $mode in
  pinned) echo "$e_pkg $e_ver $e_arch"; exit 0 ;;
  resolve)
    [ "$used_state" = pinned ] || newer_note "$used_pkg" "$used_ver"
    echo "$used_pkg $used_ver $e_arch $used_state"
    exit 0 ;;
esac

dest=$2
mkdir -p "$dest" "$cache/downloads"
# one fetch of a role at a time (tests and study jobs share the cache):
# the others wait, then find the verified file
if command -v flock >/dev/null; then
  exec 9>"$cache/downloads/.$e_role.lock"
  flock 9
fi
log="$cache/downloads/$e_role.log"
: >"$log"
setup "$e_arch"
what="$e_pkg $e_ver ($e_arch)"

# a successor fetched before, asked for again
if [ "$used_state" = newer ]; then
  final=
  for f in "$dest/${used_pkg}_"*.deb; do [ -f "$f" ] && final=$f; done
  read -r _ _ _ sha _ <"$cache/downloads/$e_role.used"
  if [ -n "$final" ] && [ "$(sha256sum "$final" | cut -d' ' -f1)" = "$sha" ]; then
    newer_note "$used_pkg" "$used_ver"
    echo "$final"
    exit 0
  fi
fi

final="$dest/${e_file##*/}"
if [ -f "$final" ]; then
  if verify "$final" "$e_size" "$e_sha"; then
    record "$e_pkg" "$e_ver" "$e_sha" pinned
    echo "$final"
    exit 0
  fi
  echo "fetch-deb: $final: $v_err: deleted, fetching it again" >&2
  rm -f "$final"
fi
tmp=$(mktemp -d "$dest/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# 1. apt's list (our own lists: fetched when that archive's is missing)
list_find "$e_archive"
if [ -n "$private" ] && [ -z "$l_have" ]; then
  update_private
  list_find "$e_archive"
fi
[ -n "$l_uri" ] || {
  echo "fetch-deb: $what: no apt source names the archive $e_archive (see /etc/apt/sources.list.d/); retry: $retry" >&2
  exit 1
}
lname="apt's $e_archive $l_arch list"
if [ -z "$l_have" ]; then
  l_err="$lname: $(list_reason "$e_archive")"
elif by_list "$e_pkg" "$e_ver"; then
  if take "$got" "$e_size" "$e_sha"; then
    record "$e_pkg" "$e_ver" "$e_sha" pinned
    echo "$final"
    exit 0
  fi
  l_err="$lname: the download has $v_err (deleted)"
else
  l_err="$lname: $l_err"
fi

# 2. the pool path, from the mirror the sources name for the archive
url="${l_uri%/}/$e_file"
if by_pool "$url" "$e_size"; then
  if take "$tmp/pool.deb" "$e_size" "$e_sha"; then
    echo "fetch-deb: $what: not from apt's list ($l_err); fetched by its pool path $url, size and SHA256 verified" >&2
    record "$e_pkg" "$e_ver" "$e_sha" pinned
    echo "$final"
    exit 0
  fi
  echo "fetch-deb: $what: $url has $v_err (deleted); $l_err; retry: $retry" >&2
  exit 1
fi

# 3. gone from the mirror: the manifest's successor, when asked for
if [ -n "$p_gone" ]; then
  update_private
  if ! successor; then
    echo "fetch-deb: $what is no longer on the mirror ($l_err; $url: $p_err), and apt's lists have no successor by the manifest's rule ($e_succ); update scripts/downloads.manifest" >&2
    exit 1
  fi
  if [ "${LACE_ALLOW_NEWER:-0}" != 1 ]; then
    echo "fetch-deb: $what is no longer on the mirror ($l_err; $url: $p_err); the manifest's successor ($e_succ) is $s_pkg $s_ver now: LACE_ALLOW_NEWER=1 (make ... LACE_ALLOW_NEWER=1) uses it, and says so" >&2
    exit 1
  fi
  final="$dest/${s_file##*/}"
  if ! by_list "$s_pkg" "$s_ver"; then
    echo "fetch-deb: $what is no longer on the mirror; its successor $s_pkg $s_ver: apt-get download: $l_err; retry: $retry" >&2
    exit 1
  fi
  take "$got" "$s_size" "$s_sha" || {
    echo "fetch-deb: $what is no longer on the mirror; its successor $s_pkg $s_ver has $v_err by apt's list (deleted); retry: $retry" >&2
    exit 1
  }
  record "$s_pkg" "$s_ver" "$s_sha" newer
  newer_note "$s_pkg" "$s_ver"
  echo "$final"
  exit 0
fi
echo "fetch-deb: $what: $l_err; $url: $p_err; retry: $retry" >&2
exit 1
