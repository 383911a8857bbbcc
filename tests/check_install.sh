#!/bin/sh
# The install, as a program that links the library sees it (make check-install, part of
# make test): with nothing but pkg-config pointed at the staged prefix PREFIX,
#   1. every installed header compiles alone (and twice), as <symplan/...>, and none
#      includes or names cJSON;
#   2. no internal header was installed, and symplan.pc requires nothing a program must
#      have itself (libcjson only privately, for the static library);
#   3. every examples/*.c builds with `cc prog.c $(pkg-config --cflags --libs symplan)`
#      against the shared library (found through an rpath: no ldconfig), and runs to exit 0;
#      so does the program of README.md's C section;
#   4. one example links against the static library with `pkg-config --static --libs`;
#   5. the shared library exports what the installed headers declare, and no internal symbol;
#   6. the manual page is installed.
# Usage: tests/check_install.sh PREFIX OUTDIR (run from the top folder; CC, CFLAGS honoured).
set -eu
prefix=$1
out=$2
cc=${CC:-cc}
# CFLAGS carries the build's -O and sanitizer flags, which a library built with them needs
flags="-std=c11 -Wall -Wextra -Werror -pedantic ${CFLAGS:-}"
PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH
mkdir -p "$out"
fail() { echo "check_install: $*" >&2; exit 1; }

cflags=$(pkg-config --cflags symplan) || fail "pkg-config does not find symplan.pc in $prefix"
libs=$(pkg-config --libs symplan)
libdir=$(pkg-config --variable=libdir symplan)
[ "$libdir" = "$prefix/lib" ] || fail "symplan.pc names libdir $libdir, not $prefix/lib"
version=$(pkg-config --modversion symplan)
soname=libsymplan.so.${version%%.*}
for f in libsymplan.a libsymplan.so "$soname" "libsymplan.so.$version"; do
    [ -e "$libdir/$f" ] || fail "$libdir/$f is missing"
done
# the manual page that `symplan help` points to
[ -s "$prefix/share/man/man1/symplan.1" ] || fail "the manual page $prefix/share/man/man1/symplan.1 is missing"
grep -q '^\.TH SYMPLAN 1' "$prefix/share/man/man1/symplan.1" || fail "the installed manual page has no .TH SYMPLAN 1 line"
readelf -d "$libdir/libsymplan.so.$version" | grep -q "SONAME.*\[$soname\]" || fail "the shared library's soname is not $soname"

# 1. each header alone, included twice (its guard), with no source tree on the path
headers=$(cd "$prefix/include" && find symplan -name '*.h' | sort)
n=0
for h in $headers; do
    printf '#include <%s>\n#include <%s>\nint main(void) { return 0; }\n' "$h" "$h" >"$out/header.c"
    # shellcheck disable=SC2086
    $cc $flags $cflags -fsyntax-only "$out/header.c" || fail "<$h> does not compile alone"
    n=$((n + 1))
done
[ -f "$prefix/include/symplan/symplan.h" ] || fail "the umbrella <symplan/symplan.h> is missing"
! grep -rli cjson "$prefix/include/symplan" || fail "an installed header names cJSON (listed above)"

# 2. internal headers stay in the source tree
for h in lie/sp_linalg.h lie/sp_registry.h lie/sp_lie.h planner/cli/sp_commands.h planner/result_view.h \
    planner/sp_family.h planner/sp_solve.h planner/sp_result.h planner/api/sp_api_internal.h integrators/sp_hohp.h \
    problems/sp_problem.h problems/sp_result_file.h problems/json_input.h problems/problem_readers.h \
    problems/problem_family.h planner/draw/svg.h; do
    [ ! -e "$prefix/include/symplan/$h" ] || fail "internal header $h was installed"
done
! pkg-config --print-requires symplan | grep -q . || fail "symplan.pc requires $(pkg-config --print-requires symplan)"
! echo "$libs" | grep -q cjson || fail "pkg-config --libs symplan names cJSON: $libs"
pkg-config --print-requires-private symplan | grep -q libcjson || fail "symplan.pc does not require libcjson privately"

# 3. the examples, against the shared library
start=$(date +%s)
for src in examples/*.c; do
    name=$(basename "$src" .c)
    # shellcheck disable=SC2086
    $cc $flags "$src" $cflags $libs -Wl,-rpath,"$libdir" -o "$out/$name" || fail "$src does not build"
    case $name in
    plan_from_file) set -- data/sphere_interpolation.json "$out/$name.result.json" ;;
    *) set -- ;;
    esac
    "$out/$name" "$@" || fail "$src exited $?"
    [ "$name" != plan_from_file ] || [ -s "$out/$name.result.json" ] || fail "$src wrote no result"
done
ldd "$out/plan_in_c" | grep -q "$soname => $libdir/" || fail "plan_in_c does not load $libdir/$soname"
# the program of README.md's C section, as a reader would copy it
awk '/^### C$/ { c = 1 } c && /^```c$/ { p = 1; next } p && /^```$/ { exit } p' README.md >"$out/readme.c"
[ -s "$out/readme.c" ] || fail "README.md's C section has no C program"
# shellcheck disable=SC2086
$cc $flags "$out/readme.c" $cflags $libs -Wl,-rpath,"$libdir" -o "$out/readme" || fail "README.md's C program does not build"
(cd "$out" && ./readme >/dev/null) || fail "README.md's C program exited $?"

# 4. one example against the static library: -l:libsymplan.a picks the archive beside the .so
static_libs=$(pkg-config --static --libs symplan | sed 's/-lsymplan\b/-l:libsymplan.a/')
# shellcheck disable=SC2086
$cc $flags examples/step_hohp.c $cflags $static_libs -o "$out/step_hohp_static" || fail "no static link"
! ldd "$out/step_hohp_static" | grep -q libsymplan || fail "step_hohp_static still loads libsymplan.so"
"$out/step_hohp_static" >/dev/null || fail "step_hohp_static exited $?"
# 5. exports: every exported symbol is named in an installed header; internal helpers are not exported
exported=$(nm -D --defined-only "$libdir/libsymplan.so.$version" | awk 'NF == 3 { print $3 }')
for sym in $exported; do
    grep -rqw "$sym" "$prefix/include/symplan" || fail "the shared library exports $sym, which no installed header declares"
done
for sym in sp_linsolve sp_vec_dot sp_family_simulate sp_run_drive sp_solve_json sp_problem_read_file sp_problem_free \
    sp_hohp_step sp_api_result_new; do
    ! echo "$exported" | grep -qx "$sym" || fail "internal $sym is exported"
done
echo "check_install: $n headers compile alone; $(ls examples/*.c | wc -l) examples built and ran; $(echo "$exported" | wc -l) symbols exported ($(($(date +%s) - start)) s)"
