#!/usr/bin/env bats
# libsvpc as a user gets it (issue 12): `make install` into a DESTDIR,
# the examples built with `pkg-config --cflags --libs svpc` alone, as C
# and as C++, against the installed tree moved elsewhere (the .pc finds
# its prefix from where it lies); what they write and read checked
# against simtrace-cat; uninstall removes what install put there; and
# libsvpc.so exports the calls of <simtrace.h> and nothing else.

load helpers

setup() {
    common_setup
    if [[ $SANITIZED == 1 ]]; then
        skip "the examples link the plain library: this runs with the plain build"
    fi
    [[ -f $SVPC_BIN/libsvpc.so ]] || fail "no libsvpc.so in $SVPC_BIN (run 'make all')"
    command -v pkg-config >/dev/null || fail "pkg-config missing (make deps)"
}

# install_to DIR: make install of the build under test into DIR, prefix /usr
install_to() {
    make -C "$ROOT" --no-print-directory -s BUILD="$SVPC_BIN" DESTDIR="$1" PREFIX=/usr install >/dev/null
}

@test "make install puts the header, both libraries with soname links, svpc.pc and the programs under DESTDIR/PREFIX; uninstall removes them" {
    install_to "$T/root"
    local u=$T/root/usr v
    v=$(sed -n 's/^#define SIMTRACE_VERSION_STRING "\(.*\)"/\1/p' "$ROOT/include/simtrace.h")
    for f in include/simtrace.h lib/libsvpc.a "lib/libsvpc.so.$v" lib/pkgconfig/svpc.pc bin/simtrace-cat \
        bin/svpc-compress bin/bochs-trace; do
        [[ -f $u/$f ]] || fail "missing after install: $f"
    done
    [[ $(readlink "$u/lib/libsvpc.so.0") == "libsvpc.so.$v" && $(readlink "$u/lib/libsvpc.so") == "libsvpc.so.$v" ]] ||
        fail "soname links: $(ls -l "$u/lib")"
    objdump -p "$u/lib/libsvpc.so.$v" | grep -q 'SONAME *libsvpc\.so\.0$' || fail "soname is not libsvpc.so.0"
    # the header needs nothing but itself
    grep -q '#include "' "$u/include/simtrace.h" && fail "the installed header includes a relative header"
    if [[ -d $ROOT/man ]]; then
        for m in "$ROOT"/man/*.[13]; do
            [[ -f $u/share/man/man${m##*.}/${m##*/} ]] || fail "man page not installed: ${m##*/}"
        done
    fi
    make -C "$ROOT" --no-print-directory -s BUILD="$SVPC_BIN" DESTDIR="$T/root" PREFIX=/usr uninstall >/dev/null
    left=$(find "$T/root" -type f -o -type l)
    [[ -z $left ]] || fail "left after uninstall: $left"
}

@test "the examples build with pkg-config alone, as C and C++ (and statically), against a moved install; write_trace writes what simtrace-cat reads back; read_range prints what simtrace-cat -F text does, from a file and from a pipe" {
    install_to "$T/stage"
    # the installed tree, moved: the prefix must follow the .pc file
    mv "$T/stage/usr" "$T/moved"
    export PKG_CONFIG_PATH=$T/moved/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR= PKG_CONFIG_LIBDIR=$T/moved/lib/pkgconfig
    [[ $(pkg-config --modversion svpc) == $(sed -n 's/^#define SIMTRACE_VERSION_STRING "\(.*\)"/\1/p' "$ROOT/include/simtrace.h") ]]
    flags=$(pkg-config --cflags --libs svpc)
    [[ $flags == *"-I$T/moved/"*"include"* && $flags == *"-L$T/moved/"*"lib"* ]] || fail "pkg-config: $flags"
    for lang in c c++; do
        if [[ $lang == c ]]; then cc=(cc -std=c11); else cc=(c++ -x c++ -std=c++11); fi
        for ex in write_trace read_range; do
            # shellcheck disable=SC2086
            "${cc[@]}" -Wall -Wextra -Werror -o "$ex.$lang" "$ROOT/examples/$ex.c" $flags
        done
    done
    export LD_LIBRARY_PATH=$T/moved/lib
    # the programs run against the installed library, not the build's
    ldd ./write_trace.c | grep -q "$T/moved/lib/libsvpc.so.0" || fail "$(ldd ./write_trace.c)"
    for lang in c c++; do
        run ./write_trace.$lang "w.$lang.sim" 60000 --dump
        expect_status 0
        expect_output_has "cpu0.read 60000 entries, cpu0.write 15000 entries"
        "$SIMTRACE_CAT" -s cpu0.read "w.$lang.sim" | cmp - "w.$lang.sim.read"
        "$SIMTRACE_CAT" -s cpu0.write "w.$lang.sim" | cmp - "w.$lang.sim.write"
        "$SIMTRACE_CAT" --verify "w.$lang.sim"
    done
    cmp w.c.sim w.c++.sim
    # and against libsvpc.a, with the libraries of `pkg-config --static`
    # shellcheck disable=SC2046
    cc -std=c11 -o write_trace.static "$ROOT/examples/write_trace.c" $(pkg-config --cflags svpc) \
        -Wl,-Bstatic -lsvpc -Wl,-Bdynamic $(pkg-config --static --libs svpc | sed 's/-lsvpc\>//')
    ldd ./write_trace.static | grep -q libsvpc && fail "write_trace.static links libsvpc.so"
    env -u LD_LIBRARY_PATH ./write_trace.static w.static.sim 60000 >/dev/null
    cmp w.c.sim w.static.sim
    for lang in c c++; do
        for win in 0:1000 1000:50000 77777:77778 140000: 0:; do
            ./read_range.$lang w.c.sim cpu0.write "$win" > "r.$lang"
            "$SIMTRACE_CAT" -s cpu0.write --cycles "$win" -F text w.c.sim | tail -n +2 > r.cat
            cmp "r.$lang" r.cat || fail "read_range.$lang cpu0.write $win differs from simtrace-cat"
        done
        # wide accesses show their 16 bytes
        grep -q '^[0-9]* [0-9]* 0x[0-9a-f]* 0x[0-9a-f]* 16 0x[0-9a-f]\{32\}$' "r.$lang" || fail "no wide value in r.$lang"
        ./read_range.$lang - cpu0.read 5000:9000 < w.c.sim > p.$lang
        "$SIMTRACE_CAT" -s cpu0.read --cycles 5000:9000 -F text < w.c.sim | tail -n +2 | cmp - "p.$lang"
        [[ -s p.$lang ]]
    done
    run ./read_range.c w.c.sim cpu9.read 0:10
    expect_status 1
    expect_output_has "read_range: cpu9.read: no stream of that name: no stream named 'cpu9.read'"
}

@test "libsvpc.so exports the calls of <simtrace.h> and nothing else" {
    run "$ROOT/tests/api/check-exports.sh" "$SVPC_BIN/libsvpc.so" "$ROOT/include/simtrace.h"
    expect_status 0
    # the check can fail: a library with an internal symbol exported
    printf 'int st_leak(void);\nint st_leak(void) { return 1; }\n' > leak.c
    cc -shared -fPIC -o libleak.so leak.c -Wl,--whole-archive "$SVPC_BIN/libsvpc.a" -Wl,--no-whole-archive
    run "$ROOT/tests/api/check-exports.sh" libleak.so "$ROOT/include/simtrace.h"
    expect_status 1
    expect_output_has "exported only: st_leak"
}

@test "the programs use no internal symbol or header beyond tests/api/programs-internal.txt, which only shrinks" {
    list=$ROOT/tests/api/programs-internal.txt
    run "$ROOT/tests/api/check-programs.sh" "$SVPC_BIN" "$ROOT" "$list"
    expect_status 0
    expect_output_has "all listed in programs-internal.txt"
    # a use that the list does not hold fails, naming it (the list is
    # empty now: a program source that includes an internal header)
    mkdir -p tree/cli
    cp "$ROOT"/cli/*.[ch] tree/cli/
    echo '#include "../frames/container.h"' > tree/cli/leak.c
    run "$ROOT/tests/api/check-programs.sh" "$SVPC_BIN" tree "$list"
    expect_status 1
    expect_output_has "beyond $list (use the public API):"
    expect_output_has "  include cli/leak.c ../frames/container.h"
    # and so does a line that no program needs any more
    { cat "$list"; echo "simtrace-cat st_no_such_call"; } > more.txt
    run "$ROOT/tests/api/check-programs.sh" "$SVPC_BIN" "$ROOT" more.txt
    expect_status 1
    expect_output_has "no longer used, remove from more.txt:"
    expect_output_has "  simtrace-cat st_no_such_call"
}
