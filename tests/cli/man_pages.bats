#!/usr/bin/env bats
# The man pages (man/*.1, man/*.3): rendered by groff with every warning on
# (and by man -l), at the usual and at narrow widths, without a warning;
# the sections a reader looks for are there; every option a program lists
# in --help is in its page, so a page cannot silently fall behind its
# program; every svpc page named in SEE ALSO exists; make install-man puts
# them where man finds them, and uninstall-man takes them away.

load helpers

MAN="$ROOT/man"

# page -> the command whose --help it documents
declare -gA HELP_OF=(
    [svpc-compress]="$SVPC_BIN/svpc-compress"
    [svpc-decompress]="$SVPC_BIN/svpc-decompress"
    [simtrace-pack]="$SVPC_BIN/simtrace-pack"
    [simtrace-cat]="$SVPC_BIN/simtrace-cat"
    [bochs-trace]="$ROOT/scripts/bochs-trace"
    [svpc-parallel]="$ROOT/scripts/svpc-parallel"
    [simtrace-plot]="$ROOT/python/simtrace-plot"
)
PAGES=(svpc-compress.1 svpc-decompress.1 simtrace-pack.1 simtrace-cat.1 bochs-trace.1 svpc-parallel.1 simtrace-plot.1
    libsvpc.3)

setup() {
    common_setup || return 1
    command -v groff >/dev/null 2>&1 || fail "groff is not installed (make deps: groff-base)"
}

@test "every page renders without a warning (groff -ww, man -l), at 78, 60 and 45 columns" {
    local p w ll
    for p in "${PAGES[@]}"; do
        [[ -f $MAN/$p ]] || fail "man/$p is missing"
        for ll in 78 60 45; do
            w=$(groff -ww -man -Tutf8 -rLL=${ll}n -z "$MAN/$p" 2>&1) || fail "groff failed on man/$p"
            [[ -z $w ]] || fail "man/$p at $ll columns: $w"
        done
        groff -ww -man -Tutf8 "$MAN/$p" >out.txt 2>/dev/null
        [[ $(wc -l <out.txt) -gt 20 ]] || fail "man/$p renders to $(wc -l <out.txt) lines"
        if command -v man >/dev/null 2>&1; then
            w=$(MANWIDTH=80 man --warnings -l "$MAN/$p" 2>&1 >/dev/null) || fail "man -l failed on man/$p"
            [[ -z $w ]] || fail "man -l man/$p: $w"
        fi
    done
    # the check sees warnings: a page with an unknown macro gives one
    printf '.TH X 1\n.SH NAME\nx \\- y\n.XY z\n' >bad.1
    w=$(groff -ww -man -Tutf8 -z bad.1 2>&1)
    [[ $w == *warning* ]] || fail "groff -ww gave no warning for an unknown macro"
}

@test "every page has NAME, SYNOPSIS, DESCRIPTION, EXAMPLES, SEE ALSO, and its exit status or return values" {
    local p s
    for p in "${PAGES[@]}"; do
        for s in NAME SYNOPSIS DESCRIPTION EXAMPLES "SEE ALSO"; do
            grep -q "^\.SH \"\?$s\"\?\$" "$MAN/$p" || fail "man/$p has no section $s"
        done
        case $p in
        *.1) grep -q '^\.SH "\?EXIT STATUS"\?$' "$MAN/$p" || fail "man/$p has no EXIT STATUS" ;;
        *.3) grep -q '^\.SH "\?RETURN VALUE"\?$' "$MAN/$p" || fail "man/$p has no RETURN VALUE" ;;
        esac
        # the name in .TH is the file's
        grep -q "^\.TH $(tr a-z A-Z <<<"${p%.*}") ${p##*.} " "$MAN/$p" || fail "man/$p: .TH does not name it"
    done
}

# options NAME: the options (-x, --long) that `CMD --help` lists: every
# option-like word of the lines that begin with an option
help_options() {
    "${HELP_OF[$1]}" --help | grep -E '^[[:space:]]+-' |
        grep -oE '(^|[^[:alnum:]-])--?[[:alnum:]][[:alnum:]-]*' | sed 's/^[^-]*//' | sort -u
}

@test "every option in each program's --help is in its man page" {
    local name o missing=() n=0
    for name in "${!HELP_OF[@]}"; do
        [[ -x ${HELP_OF[$name]} ]] || fail "${HELP_OF[$name]} not built (make all)"
        while read -r o; do
            n=$((n + 1))
            # roff writes each - of an option as \-
            grep -qF -- "${o//-/\\-}" "$MAN/$name.1" || missing+=("$name: $o")
        done < <(help_options "$name")
    done
    ((${#missing[@]} == 0)) || fail "options missing from their man pages: ${missing[*]}"
    # the check reads options at all (about 140 over the six programs)
    ((n > 100)) || fail "only $n options read from --help"
    help_options svpc-compress | grep -qx -- --frame-size || fail "--frame-size not read from svpc-compress --help"
}

@test "every page's title line, libsvpc(3)'s example and the Python package name the release of include/simtrace.h" {
    local v p
    v=$(sed -n 's/^#define SIMTRACE_VERSION_STRING "\(.*\)"$/\1/p' "$ROOT/include/simtrace.h")
    [[ -n $v ]] || fail "no SIMTRACE_VERSION_STRING in include/simtrace.h"
    for p in "${PAGES[@]}"; do
        grep -q "^\.TH .* \"svpc $v\" " "$MAN/$p" || fail "man/$p: $(grep '^\.TH' "$MAN/$p"), not svpc $v"
    done
    grep -qx "\.RB \\\\(dq $v \\\\(dq\." "$MAN/libsvpc.3" ||
        fail "man/libsvpc.3: simtrace_version_string()'s example is not \"$v\""
    grep -qx "version = \"$v\"" "$ROOT/python/pyproject.toml" ||
        fail "python/pyproject.toml: $(grep '^version' "$ROOT/python/pyproject.toml"), not $v"
}

@test "every function of the public header is in libsvpc(3)" {
    local h="$ROOT/include/simtrace.h" f missing=()
    [[ -f $h ]] || skip "include/simtrace.h is not in this tree"
    # declarations: "type name(" at the start of a line, after any
    # return-type words and stars, names st_... or simtrace_...
    while read -r f; do
        grep -qE "(^|[^[:alnum:]_])${f}([^[:alnum:]_]|$)" "$MAN/libsvpc.3" || missing+=("$f")
    done < <(grep -oE '^[A-Za-z_][A-Za-z0-9_ *]*[ *](st|simtrace|svpc)_[a-z0-9_]+\(' "$h" |
        grep -oE '(st|simtrace|svpc)_[a-z0-9_]+\($' | tr -d '(' | sort -u)
    ((${#missing[@]} == 0)) || fail "in include/simtrace.h, not in man/libsvpc.3: ${missing[*]}"
}

@test "every svpc page named in SEE ALSO exists" {
    local p ref missing=()
    for p in "${PAGES[@]}"; do
        while read -r ref; do
            [[ -f $MAN/$ref ]] || missing+=("man/$p: $ref")
        done < <(grep -oE '^\.BR (svpc-[a-z]+|simtrace-[a-z]+|bochs-trace|libsvpc) \([0-9]\)' "$MAN/$p" |
            sed -E 's/^\.BR ([^ ]+) \(([0-9])\)/\1.\2/')
    done
    ((${#missing[@]} == 0)) || fail "pages named but missing: ${missing[*]}"
}

@test "make install-man installs every page where man finds it; uninstall-man removes them" {
    local root="$T/root" p
    make -s -C "$ROOT" install-man DESTDIR="$root" PREFIX=/usr >make.out 2>&1 || fail "$(cat make.out)"
    for p in "${PAGES[@]}"; do
        [[ -f $root/usr/share/man/man${p##*.}/$p ]] || fail "$p not installed"
        if command -v man >/dev/null 2>&1; then
            [[ $(MANPATH="$root/usr/share/man" man -w "${p##*.}" "${p%.*}") == "$root/usr/share/man/man${p##*.}/$p" ]] ||
                fail "man -w does not find the installed $p"
        fi
    done
    make -s -C "$ROOT" uninstall-man DESTDIR="$root" PREFIX=/usr >make.out 2>&1 || fail "$(cat make.out)"
    [[ -z $(find "$root" -type f) ]] || fail "left after uninstall-man: $(find "$root" -type f)"
}
