#!/bin/bash
# The function-length report (issue 25): every product function (C
# sources and headers outside tests/ and the build trees, build/ and
# build-*/, as .gitignore has them) over LIMIT lines (150),
# one line each, longest first.  Exits 1 when one of them is not in the
# allow-list, or when an allow-list entry is no longer over the limit (the
# list stays short and true); 2 when the report cannot be made.
#
#   scripts/check-function-length.sh [ROOT]    (default: this script's tree)
#
# A function's extent is measured by universal-ctags (Debian's
# universal-ctags; its `end` field is the line of the closing brace), not
# by counting braces here: comments, strings, character constants and
# preprocessor branches holding braces are ctags' job.  The allow-list
# (scripts/function-length-allow.txt) holds "PATH FUNCTION  # why" lines:
# decoders, which are one long switch over a format, may stay long.
set -u

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
limit=${LACE_FUNCTION_LIMIT:-150}
allow=$root/scripts/function-length-allow.txt

command -v ctags >/dev/null 2>&1 ||
  { echo "check-function-length: ctags not found (apt-get install universal-ctags)" >&2; exit 2; }
ctags --version 2>/dev/null | grep -q "Universal Ctags" ||
  { echo "check-function-length: ctags is not universal-ctags (apt-get install universal-ctags)" >&2; exit 2; }
cd "$root" || exit 2

# "LINES PATH:LINE NAME" for every function over the limit
report=$(find . \( -path ./build -o -path './build-*' -o -path ./tests -o -path './.*' -o -path '*/gen' \) -prune -o \
              \( -name '*.c' -o -name '*.h' \) -type f -print |
  sed 's|^\./||' | sort |
  ctags -L - -x --langmap=C:.c.h --languages=C --kinds-C=f --_xformat='%{end} %n %F %N' 2>/dev/null |
  awk -v limit="$limit" '$1 ~ /^[0-9]+$/ { n = $1 - $2 + 1; if (n > limit) print n, $3 ":" $2, $4 }' |
  sort -k1,1nr -k2,2)
[ "${PIPESTATUS[0]}" = 0 ] || { echo "check-function-length: cannot list the sources of $root" >&2; exit 2; }

declare -A allowed=() seen=()
if [ -f "$allow" ]; then
  while read -r path fn _; do
    case "$path" in ''|'#'*) continue ;; esac
    allowed["$path $fn"]=1
  done <"$allow"
fi

bad=0 nover=0 nallowed=0
while read -r n where fn; do
  [ -n "${n:-}" ] || continue
  nover=$((nover + 1))
  key="${where%:*} $fn"
  if [ -n "${allowed[$key]:-}" ]; then
    seen["$key"]=1
    nallowed=$((nallowed + 1))
    echo "$where: $fn: $n lines (allowed: scripts/function-length-allow.txt)"
  else
    bad=$((bad + 1))
    echo "$where: $fn: $n lines, over $limit: split it by what it does"
  fi
done <<<"$report"
for key in "${!allowed[@]}"; do
  [ -n "${seen[$key]:-}" ] && continue
  bad=$((bad + 1))
  echo "scripts/function-length-allow.txt: ${key/ /: } is not over $limit lines (any more): remove the entry"
done
echo "$nover functions over $limit lines, $nallowed allowed, $bad to fix"
[ "$bad" = 0 ]
