#!/bin/bash
# check-layering.sh: the dependency rules of doc/architecture.md, checked on
# what the compiler and the linker see, not on how the source is spelled.
#
#   layout/    never runs programs   (no fork/exec/system/popen/posix_spawn)
#   measure/   never reads ELF       (no libbfd/libopcodes/libelf/libdw), and
#              neither does any of its rooms (stats, model, vg, qemu)
#   measure/stats/, measure/replay/  run no program: they call neither
#              fork/exec nor any function of a file that does (the runner,
#              the backends); replay maps addresses through a symbol table
#              that cli/ gets from layout/, never reading ELF itself
#   measure/model/  the freestanding models: no libc I/O (stdio, open/read/
#              write), no programs; they are compiled into the Valgrind tool
#              and the TCG plugin, where libc is not theirs to use
#   cli/       neither runs programs nor reads ELF (commands hand that work
#              to a module)
#
# variants/, pipeline/ and measure/ run programs by design (lace build, the
# self-exec of lace check/study, the measured command); util/run.c is the
# process pool they share.
#
# Two checks per rule, so a macro cannot hide a violation:
#  - headers: every .c of the rule's folders is run through `$CC -M` (the
#    full list of headers it includes, through other headers and computed
#    #include lines too) and must not reach a forbidden header;
#  - symbols: the undefined symbols (`nm`) of the module's objects in its
#    archive ($BUILD/lib<module>.a; $BUILD/cli/*.o for cli/) must not name a
#    forbidden function, directly or through the util/ objects they pull in
#    (layout calling util's run pool would fork all the same); layout must
#    not call into the modules that run programs either.
# Each .c of a checked folder must have its object built: a missing one is
# an error (exit 2), never a pass.
#
# usage: scripts/check-layering.sh [--src DIR] [--build DIR]
#   (defaults: the tree this script is in, and DIR/build)
# exit: 0 the rules hold, 1 a rule is broken (one line per violation),
#       2 usage error or nothing to check (objects not built)
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
build=
while [ $# -gt 0 ]; do
  case $1 in
    --src) src=${2:?--src needs a folder}; shift 2 ;;
    --build) build=${2:?--build needs a folder}; shift 2 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "check-layering: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
src=$(cd "$src" 2>/dev/null && pwd) || { echo "check-layering: no source folder" >&2; exit 2; }
build=${build:-$src/build}
[ -d "$build" ] || { echo "check-layering: no build folder $build (build first)" >&2; exit 2; }
build=$(cd "$build" && pwd)
CC=${CC:-gcc}
NM=${NM:-nm}

# rules: folder  archive-or-"objects"  forbidden kinds
#   run: running programs; elf: reading ELF; runmod: calling into modules
#   that run programs; runsrc: calling a function of any object that runs
#   programs itself; io: libc I/O
rules="layout liblayout.a run,runmod
measure libmeasure.a elf
measure/stats libmeasure_stats.a run,elf,runsrc
measure/model libmeasure_model.a run,elf,io
measure/vg libmeasure_vg.a elf
measure/qemu libmeasure_qemu.a elf
measure/replay libmeasure_replay.a run,elf,runsrc
cli objects run,elf"

run_syms='^(fork|vfork|_Fork|clone|clone3|execl|execle|execlp|execv|execve|execvp|execvpe|fexecve|execveat|system|popen|posix_spawn|posix_spawnp)$'
elf_syms='^(_?bfd_.*|bfd|elf_.*|elf32_.*|elf64_.*|gelf_.*|dwarf_.*|dwfl_.*|dwelf_.*|disassembler|disassemble_.*|init_disassemble_info|print_insn_.*)$'
io_syms='^(fopen|fopen64|fdopen|freopen|fclose|fflush|fread|fwrite|fgets|fgetc|getc|fputs|fputc|putc|putchar|puts|printf|fprintf|vprintf|vfprintf|dprintf|vdprintf|perror|open|open64|openat|creat|read|write|pread|pwrite|pread64|pwrite64|close|opendir|readdir|stat|fstat|lstat)$'
run_hdrs='(^|/)(spawn\.h|sys/wait\.h)$'
io_hdrs='(^|/)(stdio\.h|fcntl\.h|dirent\.h)$'
elf_hdrs='(^|/)(bfd|bfdlink|dis-asm|libelf|gelf|dwarf|nlist|libdw|libdwfl|libdwelf)\.h$|(^|/)elfutils/'
# modules whose functions run programs (layout must not call them)
runmods='measure measure/vg measure/qemu variants pipeline'

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lace-layering.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
bad=0
violation() { echo "layering: $*"; bad=1; }
cant() { echo "check-layering: $*" >&2; exit 2; }

# --- objects: every member of every module archive, and cli/*.o ----------
objs=()
for a in "$build"/lib*.a; do [ -e "$a" ] && objs+=("$a"); done
[ ${#objs[@]} -gt 0 ] || cant "no module archives in $build (build first)"
for c in "$src"/cli/*.c; do
  [ -e "$c" ] || continue
  o=$build/cli/$(basename "$c" .c).o
  [ -e "$o" ] || cant "$o is not built"
  objs+=("$o")
done
# one line per symbol: node TAB module TAB source TAB sym TAB U|D
syms=$("$NM" -A -g -P "${objs[@]}" 2>/dev/null | awk -v build="$build/" '
  {
    node = $1; sub(/:$/, "", node)
    path = node; member = ""
    if (match(node, /\[[^]]*\]$/)) { member = substr(node, RSTART + 1, RLENGTH - 2); path = substr(node, 1, RSTART - 1) }
    rel = substr(path, 1, length(build)) == build ? substr(path, length(build) + 1) : path
    if (member != "") {
      mod = rel; sub(/^lib/, "", mod); sub(/\.a$/, "", mod); gsub(/_/, "/", mod)
      srcf = mod "/" member; sub(/\.o$/, ".c", srcf)
    } else {
      srcf = rel; sub(/\.o$/, ".c", srcf); mod = srcf; sub(/\/[^\/]*$/, "", mod)
    }
    kind = ($3 == "U" || $3 == "w" || $3 == "v") ? "U" : "D"
    printf "%s\t%s\t%s\t%s\t%s\n", node, mod, srcf, $2, kind
  }')
[ -n "$syms" ] || cant "nm found no symbols in $build"

while read -r dir archive kinds; do
  [ -d "$src/$dir" ] || continue
  srcs=$(cd "$src" && ls "$dir"/*.c 2>/dev/null)
  [ -n "$srcs" ] || continue
  if [ "$archive" != objects ]; then
    [ -e "$build/$archive" ] || cant "$build/$archive is not built"
    members=$(ar t "$build/$archive") || cant "cannot read $build/$archive"
    for s in $srcs; do
      printf '%s\n' "$members" | grep -qx "$(basename "$s" .c).o" ||
        cant "$s has no object in $build/$archive (rebuild)"
    done
  fi

  # headers, through the preprocessor
  hdr_re=
  case ,$kinds, in *,run,*) hdr_re=$run_hdrs ;; esac
  case ,$kinds, in *,elf,*) hdr_re=${hdr_re:+$hdr_re|}$elf_hdrs ;; esac
  case ,$kinds, in *,io,*) hdr_re=${hdr_re:+$hdr_re|}$io_hdrs ;; esac
  deps=$(cd "$src" && "$CC" -M -MG -std=gnu11 -D_GNU_SOURCE -I. -I"$build/gen" \
           $(pkg-config --cflags libdw libelf gsl jansson inih 2>/dev/null) $srcs 2>"$tmp/cc.err") ||
    cant "$CC -M failed on $dir: $(head -n 3 "$tmp/cc.err")"
  # "x.o: x.c a.h \" -> one "x.c header" pair a line
  printf '%s\n' "$deps" | tr -d '\\' | awk '
    /:/ { split($0, p, ":"); s = p[2]; n = split(s, w, " "); cur = w[1]; for (i = 2; i <= n; i++) print cur, w[i]; next }
    { n = split($0, w, " "); for (i = 1; i <= n; i++) print cur, w[i] }' |
    awk -v re="$hdr_re" '$2 ~ re' | sort -u >"$tmp/hdrs"
  while read -r file hdr; do
    h=${hdr#/usr/include/}
    case $h in *-linux-gnu/*) h=${h#*-linux-gnu/} ;; esac
    if printf '%s\n' "$hdr" | grep -Eq "$run_hdrs"; then why="$dir/ never runs programs"
    elif printf '%s\n' "$hdr" | grep -Eq "$io_hdrs"; then why="$dir/ does no libc I/O"
    else why="$dir/ never reads ELF"; fi
    violation "$file includes <$h> ($why)"
  done <"$tmp/hdrs"

  # symbols, through util/
  out=$(printf '%s\n' "$syms" | awk -F'\t' -v start="$dir" -v kinds=",$kinds," \
         -v run_re="$run_syms" -v elf_re="$elf_syms" -v io_re="$io_syms" -v runmods=" $runmods " '
    { node[NR] = $1; nmod[$1] = $2; nsrc[$1] = $3
      if ($5 == "U") { und[$1] = und[$1] " " $4 } else if (!($4 in def)) def[$4] = $1 }
    END {
      # the objects that start programs themselves (for runsrc)
      for (n in nmod) { k = split(und[n], u, " "); for (i = 1; i <= k; i++) if (u[i] ~ run_re) runs[n] = 1 }
      # breadth first from the module objects; util objects join the walk
      q = 0; for (n in nmod) if (nmod[n] == start) { queue[q++] = n; seen[n] = 1; via[n] = ""; root[n] = nsrc[n] }
      for (h = 0; h < q; h++) {
        n = queue[h]; k = split(und[n], u, " ")
        for (i = 1; i <= k; i++) {
          s = u[i]; what = ""
          if (index(kinds, ",run,") && s ~ run_re) what = "never runs programs"
          else if (index(kinds, ",elf,") && s ~ elf_re) what = "never reads ELF"
          else if (index(kinds, ",io,") && s ~ io_re) what = "does no libc I/O"
          if (what != "") { printf "%s calls %s%s (%s/ %s)\n", root[n], s, via[n], start, what; continue }
          if (!(s in def)) continue
          d = def[s]
          if (index(kinds, ",runmod,") && index(runmods, " " nmod[d] " "))
            printf "%s calls %s of %s/%s, which runs programs (%s/ never runs programs)\n", root[n], s, nmod[d], via[n], start
          else if (index(kinds, ",runsrc,") && (d in runs))
            printf "%s calls %s of %s%s, which runs programs (%s/ runs no program)\n", root[n], s, nsrc[d], via[n], start
          else if (nmod[d] == "util" && !(d in seen)) {
            seen[d] = 1; queue[q++] = d; root[d] = root[n]
            via[d] = (via[n] == "" ? " via " : via[n] ", ") s " (" nsrc[d] ")"
          }
        }
      }
    }' | sort -u)
  if [ -n "$out" ]; then
    while IFS= read -r line; do violation "$line"; done <<<"$out"
  fi
done <<<"$rules"

exit $bad
