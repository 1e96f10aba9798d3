#!/usr/bin/env bash
# install-deps.sh - install the Debian (bookworm) packages svpc needs to
# build, test, fuzz and benchmark, and the optional ones of the Bochs
# tracing script (scripts/bochs-trace) and its test.
#
# Usage:
#   scripts/install-deps.sh           install whatever is missing (silent if nothing is)
#   scripts/install-deps.sh --check   list missing packages on stderr, exit 1 if any;
#                                     installs nothing
#
# Runs `apt-get update` once, and only when something has to be installed.
# Needs root for installing; uses sudo when not root and sudo is available.
set -euo pipefail

PKGS=(
    build-essential     # cc, make
    pkg-config
    liblzma-dev         # LZMA second stage
    libbz2-dev
    zlib1g-dev
    libzstd-dev         # .zst inputs of simtrace-pack; the fast encoder (7)
    libminizip-dev      # drmemtrace zip archives (formats/import_drmemtrace.c)
    bats                # shell tests
    xz-utils            # xz baseline / testdata
    zstd                # reference corpus
    bzip2
    gzip
    clang
    libclang-rt-14-dev  # sanitizers, libFuzzer
    valgrind            # memcheck, lackey traces
    time                # GNU /usr/bin/time (peak memory)
    python3-numpy       # python/simtrace, the Python reader
    python3-matplotlib  # simtrace-plot, make figures
    python3-pytest      # its tests (make py-test)
    python3-setuptools  # pip install ./python (offline, --no-build-isolation)
    python3-pip
    parallel            # GNU parallel: scripts/svpc-parallel, tests/cli/parallel.bats
    groff-base          # renders the man pages in tests/cli/man_pages.bats
)

# Optional: installed when missing, but the build and the other tests do
# without them (tests/cli/bochs_trace.bats skips when Bochs is absent).
OPTIONAL_PKGS=(
    bochs               # scripts/bochs-trace, tests/cli/bochs_trace.bats
    bochs-term          # its headless (terminal) display
    bochsbios           # BIOS-bochs-latest
    vgabios
    grub-pc-bin         # bochs-trace --workload grub|linux: BIOS GRUB,
    grub-common         # grub-mkimage,
    xorriso             # and the CD image
    linux-image-amd64   # bochs-trace --workload linux: Debian's kernel,
    busybox-static      # the initramfs's only program,
    cpio                # and its archiver
)

usage() {
    echo "usage: $0 [--check]" >&2
    exit 2
}

check_only=0
case $# in
    0) ;;
    1) [[ $1 == --check ]] || usage; check_only=1 ;;
    *) usage ;;
esac

# Prints the packages among "$@" whose dpkg status is not "install ok installed".
# One dpkg-query call for all of them (unknown packages print nothing there).
missing_of() {
    local -A ok=()
    local name st p
    while IFS=' ' read -r name st; do
        [[ $st == "install ok installed" ]] && ok[${name%%:*}]=1
    done < <(dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null || true)
    for p in "$@"; do
        [[ -n ${ok[$p]:-} ]] || echo "$p"
    done
}

mapfile -t missing < <(missing_of "${PKGS[@]}")
mapfile -t missing_opt < <(missing_of "${OPTIONAL_PKGS[@]}")

((${#missing[@]} + ${#missing_opt[@]} == 0)) && exit 0

if ((check_only)); then
    ((${#missing_opt[@]} == 0)) || echo "install-deps.sh: missing optional packages: ${missing_opt[*]}" >&2
    ((${#missing[@]} == 0)) && exit 0
    echo "install-deps.sh: missing packages: ${missing[*]}" >&2
    exit 1
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        echo "install-deps.sh: need root to install: ${missing[*]}" >&2
        exit 1
    fi
fi

"${SUDO[@]}" apt-get update
if ((${#missing[@]})); then
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends "${missing[@]}"
fi
# Optional packages one apt-get run of their own, so one that is not
# available cannot stop the required ones.
if ((${#missing_opt[@]})); then
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends "${missing_opt[@]}" ||
        echo "install-deps.sh: could not install the optional packages: ${missing_opt[*]}" >&2
fi

# Verify.
if ((${#missing[@]})); then
    mapfile -t still < <(missing_of "${missing[@]}")
    if ((${#still[@]})); then
        echo "install-deps.sh: failed to install: ${still[*]}" >&2
        exit 1
    fi
fi
