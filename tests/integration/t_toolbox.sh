#!/bin/bash
# One helper per mechanism (issue 25, item 2): the copies that util/ replaced
# stay gone.  Each rule below is a name or a pattern that only the one
# definition in util/ may hold; a hit anywhere else is a copy coming back.
# The same scan then runs on a scratch copy of the tree with one planted
# copy per rule, and must find each, so it cannot pass by matching nothing.
. "$SRC/tests/integration/lib.sh"

cd "$SRC" || fail "no source tree at $SRC"

# rule: NAME ~ ERE ~ the files that may hold it (an ERE on the path; ^$: none)
# Product code; the freestanding parts (the guest, the plugin, the Valgrind
# tool, the workloads) link no util/ and are held only to the header-only
# definitions they share: the Skylake numbers, the build-id parser, the PRNG.
rules=(
  'array size ~ sizeof\(([A-Za-z_][A-Za-z0-9_.>-]*)\) / sizeof\((\1\[0\]|\*\1)\) ~ ^util/array\.h$'
  'zero guard ~ x(c|m)alloc\(\(?([A-Za-z_][A-Za-z0-9_.>-]*) \? \2 : 1 ~ ^$'
  'popen ~ popen\( ~ ^$'
  'a second exec ~ (posix_spawnp?|execvpe?|execve)\( ~ ^(util/run_command\.c|measure/runner\.c)$'
  'fork ~ fork\(\) ~ ^(util/run_command\.c|measure/runner\.c)$'
  'own binary ~ (readlink|realpath)\("/proc/self/exe" ~ ^util/paths\.c$'
  'PATH lookup ~ getenv\("PATH"\) ~ ^util/paths\.c$'
  'cache folder ~ getenv\("XDG_CACHE_HOME"\) ~ ^util/paths\.c$'
  'temp folder ~ mkdtemp\( ~ ^util/fs\.c$'
  'is a file ~ return !?stat\([^;]*S_IS(REG|DIR) ~ ^util/fs\.c$'
  'shell quoting ~ '"'"'\\\\'"'"''"'"' ~ ^(util/strbuf\.c|tests/unit/test_util\.c)$'
  'private helper ~ static [a-z ]*\b(in_path|is_file|is_dir|file_exists|qemu_is_file|sim_exe_dir|dir_remove|shell_quote|cache_dir|spawn_capture_[a-z]*)\( ~ ^$'
  'JSON real or null ~ isfinite\([^)]*\) \? json_real ~ ^util/json\.h$'
  'JSON number or NaN ~ json_is_number\([^)]*\) \? json_number_value\([^)]*\) : NAN ~ ^util/json\.h$'
  'mean format ~ static void mean_format\( ~ ^$'
  'Skylake numbers ~ (\.l1i_size = 32768|"32768,8,64"|"1536,12") ~ ^$'
  'build-id parser ~ (NT_GNU_BUILD_ID|type == 3 &&) ~ ^util/elf_note\.h$'
  'PRNG ~ (0xbf58476d1ce4e5b9|<< 13;|splitmix64\(|xorshift) ~ ^util/prng\.h$'
  'failure explained ~ strrchr\([a-z]+[.>-]+err\.buf ~ ^util/strbuf\.c$'
  'removed name ~ \b(sim_exe_dir|qemu_is_file)\b ~ ^$'
  'ELF magic by hand ~ ("\\177ELF"|memcmp\([^)]*"HdrS") ~ ^layout/(image|file_probe)\.c$'
)

# scan ROOT: every hit of every rule, as "rule: file:line: text"
scan() {
  local root=$1 r name re allow
  for r in "${rules[@]}"; do
    name=${r%% ~ *}; r=${r#* ~ }
    re=${r% ~ *}; allow=${r##* ~ }
    (cd "$root" && grep -rnE --include='*.c' --include='*.h' -- "$re" \
        cli layout measure pipeline variants hashmmu bench util tests/unit 2>/dev/null) |
      { if [[ $name =~ ^(Skylake\ numbers|build-id\ parser|PRNG)$ ]]; then cat
        else grep -vE '^(measure/qemu/guest/|measure/qemu/plugin/|measure/vg/tool/|bench/)'; fi; } |
      while IFS= read -r hit; do
        [[ ${hit%%:*} =~ $allow ]] && continue
        # the unit tests may make scratch folders, fork, pick geometries and
        # draw their own test data
        [[ $hit == tests/unit/* && $name =~ ^(temp\ folder|fork|a\ second\ exec|Skylake\ numbers|PRNG)$ ]] && continue
        echo "$name: $hit"
      done
  done
}

hits=$(scan "$SRC")
[ -z "$hits" ] || fail "copies of util/ helpers:"$'\n'"$hits"

# planted: one copy per rule in a scratch tree, each must be found
mkdir -p "$T/tree" && cp -r cli layout measure pipeline variants hashmmu bench util "$T/tree/" &&
  mkdir -p "$T/tree/tests/unit" || fail "cannot copy the tree"
cat >"$T/tree/pipeline/planted.c" <<'C'
static int v[3];
static unsigned n(void) { return sizeof(v) / sizeof(v[0]); }
static void *z(size_t k) { return xcalloc(k ? k : 1, 4); }
static void p(void) { FILE *f = popen("cc --version", "r"); }
static void s(void) { posix_spawnp(0, "x", 0, 0, 0, 0); }
static void f(void) { pid_t pid = fork(); }
static void e(void) { readlink("/proc/self/exe", b, 10); }
static void g(void) { const char *path = getenv("PATH"); }
static void c(void) { const char *x = getenv("XDG_CACHE_HOME"); }
static void t(void) { mkdtemp(d); }
static bool is_reg(const char *p) { struct stat st; return !stat(p, &st) && S_ISREG(st.st_mode); }
static void q(void) { strbuf_addstr(sb, "'\\''"); }
static bool in_path(const char *prog) { return 0; }
static const char *w(void) { return sim_exe_dir(); }
static void mean_format(char *b, size_t l, double v, const char *u) { }
static struct sim_config sky = { .l1i_size = 32768, .l1i_ways = 8 };
static bool b(struct note *n) { return n->type == NT_GNU_BUILD_ID; }
static uint64_t x(uint64_t z) { return (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL; }
static const char *l(struct selfexec_result r) { return strrchr(r.err.buf, '\\n'); }
static json_t *r(double v) { return isfinite(v) ? json_real(v) : json_null(); }
static double m(json_t *v) { return json_is_number(v) ? json_number_value(v) : NAN; }
static bool k(const char *h) { return !memcmp(h, "\177ELF", 4) || !memcmp(h, "HdrS", 4); }
C
planted=$(scan "$T/tree")
for r in "${rules[@]}"; do
  name=${r%% ~ *}
  printf '%s\n' "$planted" | grep -q "^$name: pipeline/planted.c:" ||
    fail "the planted copy for '$name' was not found; the scan found:"$'\n'"$planted"
done
exit 0
