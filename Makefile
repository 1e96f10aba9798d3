# svpc - trace compression suite.  `make help` lists the targets.

PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  = $(DESTDIR)$(PREFIX)/bin
INCDIR  = $(DESTDIR)$(PREFIX)/include
LIBDIR  = $(DESTDIR)$(PREFIX)/lib
PCDIR   = $(LIBDIR)/pkgconfig
MANDIR  = $(DESTDIR)$(PREFIX)/share/man
# The Python package (python/simtrace) goes where Debian's python3 looks
# for packages of /usr/local (or of PREFIX); another directory is added to
# PYTHONPATH by hand.
PYDIR   ?= $(PREFIX)/lib/python3/dist-packages
# Debian's interpreter, which python3-numpy and python3-matplotlib serve
# (not a python3 of pyenv or a venv found first on PATH)
PYTHON  ?= $(firstword $(wildcard /usr/bin/python3) python3)
CC      ?= cc
# the release: include/simtrace.h's SIMTRACE_VERSION_STRING, its one home
VERSION := $(shell sed -n 's/^#define SIMTRACE_VERSION_STRING "\(.*\)"$$/\1/p' include/simtrace.h)
$(if $(VERSION),,$(error include/simtrace.h: no line '#define SIMTRACE_VERSION_STRING "X.Y.Z"' to take the release from))
# libsvpc.so.$(SOVERSION) is the soname: it changes only when a call of
# include/simtrace.h changes incompatibly
SOVERSION = 0

# Warnings live here and only here.  CI builds with WERROR=1.
WARNINGS = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith -Wformat=2 -Wvla
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif
OPT      ?= -O2
CFLAGS   ?=
CPPFLAGS += -D_POSIX_C_SOURCE=200809L
ALL_CFLAGS = -std=c11 $(OPT) -g $(WARNINGS) $(CFLAGS)
LDLIBS   = -llzma -lbz2 -lz -lzstd -lpthread

ifeq ($(V),1)
Q =
else
Q = @
endif

BUILD ?= build
LIB_SRC = common/st_error.c common/st_bytes.c common/st_io.c common/st_decomp.c formats/entry.c vpc/vpc.c \
          formats/line_reader.c formats/import_bochs.c \
          formats/trace_io.c formats/import_common.c formats/import_access.c formats/import_text.c \
          formats/import_vpc.c formats/export_text.c formats/export_merge.c \
          svpc/stage2.c svpc/generic.c svpc/paper.c svpc/cm.c svpc/vpcx.c svpc/cm2.c svpc/svpc_codec.c svpc/svpc_stats.c \
          frames/frame_format.c frames/pool.c frames/frame_job.c frames/frame_writer.c frames/frame_reader.c frames/frame_index.c \
          frames/range.c api/api_common.c api/api_write.c api/api_read.c
LIB_SRC += frames/recover.c
LIB_SRC += api/api_recover.c
LIB_SRC += api/api_stats.c
LIB_SRC += api/api_import.c
LIB_SRC += api/api_concat.c
LIB_SRC += formats/dramsim2.c
LIB_SRC += formats/gem5.c
LIB_SRC += formats/import_cvp.c
LIB_SRC += svpc/cvp.c
LIB_SRC += svpc/fast.c
LIB_SRC += svpc/levels.c
LIB_SRC += formats/import_drmemtrace.c
LIB_SRC += svpc/drmem.c
# minizip: the drmemtrace importer's zip archives (<minizip/unzip.h>)
LDLIBS += $(shell pkg-config --libs minizip)
LIB_SRC += formats/import_champsim.c
LIB_SRC += svpc/champsim.c
LIB_SRC += api/api_export.c
LIB_SRC += api/api_range.c
LIB_SRC += api/api_append.c
CLI_UTIL = cli/cli_util.c
PROGS   = svpc-compress svpc-decompress simtrace-pack simtrace-cat
UNIT    = test_vpc test_rc test_codec test_container test_trace_io test_index test_bochs test_api test_stats test_signals test_recover
UNIT    += test_import test_api_pack
UNIT    += test_cvp
UNIT    += test_drmemtrace
UNIT    += test_champsim

LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB      = $(BUILD)/libsvpc.a
SHLIB_REAL = libsvpc.so.$(VERSION)
SHLIB    = $(BUILD)/$(SHLIB_REAL)
BINS     = $(PROGS:%=$(BUILD)/%)
UNITBINS = $(UNIT:%=$(BUILD)/tests/%)

.SECONDEXPANSION:

.PHONY: all tools help check unit cli-test py-test figures demo bench install uninstall clean deps testdata asan ubsan tsan fuzz fuzz-build fuzz-check

## all: build the programs and the libraries (default)
all: $(BINS) $(SHLIB) $(BUILD)/svpc.pc $(BUILD)/bochs-logbuf.so

## help: list the targets
help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# The library's objects serve the static and the shared library alike:
# position-independent, and nothing exported but the calls of
# include/simtrace.h marked SIMTRACE_API.
$(LIB_OBJ): ALL_CFLAGS += -fPIC -fvisibility=hidden

$(LIB): $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(SHLIB): $(LIB_OBJ)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libsvpc.so.$(SOVERSION) -Wl,--no-undefined \
	  -o $@ $^ $(LDLIBS)
	$(Q)ln -sf $(SHLIB_REAL) $(BUILD)/libsvpc.so.$(SOVERSION) && ln -sf $(SHLIB_REAL) $(BUILD)/libsvpc.so

# pkg-config: the prefix is found from where svpc.pc lies (lib/pkgconfig),
# so an installed tree may be moved (DESTDIR, a relocated prefix)
$(BUILD)/svpc.pc: svpc.pc.in Makefile include/simtrace.h
	@mkdir -p $(dir $@)
	$(Q)sed -e 's/@VERSION@/$(VERSION)/' -e 's|@LIBS_PRIVATE@|$(LDLIBS)|' svpc.pc.in > $@

# bochs-trace preloads this into Bochs (scripts/bochs-logbuf.c).  Built
# without the sanitizers' flags (CFLAGS, LDFLAGS): a sanitizer's runtime
# must come first in a process, and Bochs is not built with one.
$(BUILD)/bochs-logbuf.so: scripts/bochs-logbuf.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -std=c11 -O2 $(WARNINGS) -fPIC -shared -o $@ $< -ldl

# ... and its test program, under the one name the library acts in
$(BUILD)/tests/logbuf/bochs-bin: tests/tools/logbuf_probe.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -std=c11 -O2 $(WARNINGS) -o $@ $<

# each program is cli/<name with - as _>.c plus the shared CLI code; the
# decompressor is shared by svpc-decompress and svpc-compress -d
$(BINS): $(BUILD)/%: $(BUILD)/cli/$$(subst -,_,%).o $(BUILD)/cli/cli_util.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(filter-out $(LIB),$^) $(LIB) $(LDLIBS)
$(BUILD)/svpc-compress $(BUILD)/svpc-decompress: $(BUILD)/cli/cli_decompress.o
$(BUILD)/simtrace-cat: $(BUILD)/cli/cat_merge.o $(BUILD)/cli/cat_stats.o

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
# test_recover compares the salvage of the API with simtrace-cat's
$(BUILD)/tests/test_recover: | $(BUILD)/simtrace-cat

# Test drivers (tests/tools/NAME.c -> $(BUILD)/tests/NAME with - for _):
# bochs-count, the Bochs importer alone, used by tests/cli/bochs_trace.bats
# and for measuring the importer's speed; codec-bench, the entry codec
# alone, for comparing encoders' speed; api-bench, the public API against
# svpc-compress and simtrace-cat (make bench, part api).
TOOLS = bochs-count codec-bench api-bench
$(addprefix $(BUILD)/tests/,$(TOOLS)): $(BUILD)/tests/%: $(BUILD)/tests/tools/$$(subst -,_,$$*).o $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

## tools: build the test drivers (bochs-count, codec-bench, api-bench)
tools: $(addprefix $(BUILD)/tests/,$(TOOLS))

# The bad-file corpus generator (tests/make-bad.c) and the check that the
# committed testdata/bad/ and testdata/good/edge-*.sim are what it writes.
BAD_TRACE = testdata/good/bios_write_300k.d64.xz
$(BUILD)/tests/make-bad: $(BUILD)/tests/make-bad.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

.PHONY: testdata-bad testdata-bad-update
## testdata-bad: regenerate the bad-file corpus in $(BUILD) and check the committed one is identical
testdata-bad: $(BUILD)/tests/make-bad
	$(Q)rm -rf $(BUILD)/testdata-bad && mkdir -p $(BUILD)/testdata-bad/bad $(BUILD)/testdata-bad/good
	$(Q)$(BUILD)/tests/make-bad $(BAD_TRACE) $(BUILD)/testdata-bad/bad $(BUILD)/testdata-bad/good
	$(Q)diff -r $(BUILD)/testdata-bad/bad testdata/bad
	$(Q)for f in $(BUILD)/testdata-bad/good/*; do cmp $$f testdata/good/$${f##*/} || exit 1; done
	@echo "testdata-bad: the committed files are what tests/make-bad writes"

## testdata-bad-update: rewrite testdata/bad/ and testdata/good/edge-*.sim with tests/make-bad
testdata-bad-update: $(BUILD)/tests/make-bad
	$(Q)rm -f testdata/bad/*.sim && $(BUILD)/tests/make-bad $(BAD_TRACE) testdata/bad testdata/good

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

## deps: install missing build and test dependencies (Debian packages)
deps:
	$(Q)scripts/install-deps.sh

## unit: build and run the C unit tests
unit: $(UNITBINS) $(BUILD)/tests/make-bad $(BUILD)/simtrace-pack
	$(Q)for t in $(UNITBINS); do $$t || exit 1; done

## cli-test: run the bats tests of the programs
cli-test: $(BINS) $(BUILD)/tests/make-bad $(BUILD)/bochs-logbuf.so $(BUILD)/tests/logbuf/bochs-bin
	$(Q)SVPC_BIN=$(abspath $(BUILD)) bats tests/cli

## py-test: run the pytest tests of the Python package and simtrace-plot against the build
py-test: $(BINS) $(SHLIB)
	$(Q)SVPC_BIN=$(abspath $(BUILD)) SIMTRACE_LIBRARY=$(abspath $(BUILD))/libsvpc.so.$(SOVERSION) \
	  $(PYTHON) -m pytest -q -p no:cacheprovider python/tests

## figures: draw the README's figure (doc/bios-read.png) from the BIOS trace with simtrace-plot
figures: $(BINS) $(SHLIB)
	$(Q)mkdir -p $(BUILD)/figures doc
	$(Q)xz -dc testdata/good/bios_read_300k.d64.xz > $(BUILD)/figures/bios_read.d64
	$(Q)$(BUILD)/simtrace-pack -f --frame-size=20000 --stream=bios.read $(BUILD)/figures/bios_read.d64 \
	  -o $(BUILD)/figures/bios_read.sim
	$(Q)SVPC_BIN=$(abspath $(BUILD)) SIMTRACE_LIBRARY=$(abspath $(BUILD))/libsvpc.so.$(SOVERSION) \
	  $(PYTHON) python/simtrace-plot --cycles=0:900000 \
	  --title="simtrace-plot: the BIOS boot's reads (testdata/good/bios_read_300k), cycles 0..900k (272,678 entries)" \
	  -o doc/bios-read.png $(BUILD)/figures/bios_read.sim

## check: install missing dependencies, build, run every test (unit, CLI, Python, sanitizers)
check: deps
	$(Q)$(MAKE) --no-print-directory all unit
	$(Q)$(MAKE) --no-print-directory cli-test
	$(Q)$(MAKE) --no-print-directory py-test
	$(Q)$(MAKE) --no-print-directory sanitize-check
	$(Q)$(MAKE) --no-print-directory fuzz-check

# The unit tests and a CLI round trip under ASan+UBSan, the threaded paths under TSan.
SAN_FLAGS_asan = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_FLAGS_tsan = -fsanitize=thread
.PHONY: sanitize-check
sanitize-check:
	$(Q)$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 CFLAGS="$(SAN_FLAGS_asan)" LDFLAGS="$(SAN_FLAGS_asan)" all unit
	$(Q)SVPC_BIN=$(abspath build-asan) SVPC_SANITIZED=1 bats tests/cli
	$(Q)$(MAKE) --no-print-directory BUILD=build-tsan OPT=-O1 CFLAGS="$(SAN_FLAGS_tsan)" LDFLAGS="$(SAN_FLAGS_tsan)" all build-tsan/tests/test_api build-tsan/tests/test_container
	$(Q)SVPC_BIN=$(abspath build-tsan) scripts/threads-check.sh
	$(Q)build-tsan/tests/test_api
	$(Q)TSAN_OPTIONS="halt_on_error=1:exitcode=66" build-tsan/tests/test_container fed

## asan: build with AddressSanitizer + UBSan into build-asan/
asan:
	$(Q)$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 CFLAGS="$(SAN_FLAGS_asan)" LDFLAGS="$(SAN_FLAGS_asan)" all unit

## tsan: build with ThreadSanitizer into build-tsan/
tsan:
	$(Q)$(MAKE) --no-print-directory BUILD=build-tsan OPT=-O1 CFLAGS="$(SAN_FLAGS_tsan)" LDFLAGS="$(SAN_FLAGS_tsan)" all

# libFuzzer harnesses (clang), one per decoding entry point; checksums are
# bypassed in this build (-DST_FUZZING) so the fuzzer reaches the parsers.
# The codecs' templates are not forced inline there (-DST_NO_FORCE_INLINE):
# clang took 6 minutes of CPU for svpc/cm2.c alone under libFuzzer, ASan and
# UBSan with them forced, 3 seconds without, and the fuzzers test what the
# code does, not how fast it runs.
FUZZERS = fuzz_container fuzz_index fuzz_codec fuzz_roundtrip fuzz_import fuzz_ranges fuzz_api
FUZZ_CC = clang
FUZZ_FLAGS = -std=c11 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -DST_FUZZING \
             -DST_NO_FORCE_INLINE -D_GNU_SOURCE
FUZZ_LIB_OBJ = $(LIB_SRC:%.c=build-fuzz/lib/%.o)
.SECONDARY: $(FUZZ_LIB_OBJ)
FUZZ_SECONDS ?= 600
FUZZ_CHECK_SECONDS ?= 10

## fuzz-build: build the libFuzzer harnesses into build-fuzz/
fuzz-build: $(FUZZERS:%=build-fuzz/%)

build-fuzz/lib/%.o: %.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(subst fuzzer,fuzzer-no-link,$(FUZZ_FLAGS)) -c -o $@ $<

build-fuzz/%: tests/fuzz/%.c $(FUZZ_LIB_OBJ)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_LIB_OBJ) $(LDLIBS)

build-fuzz/seeds: $(BINS)
	$(Q)rm -rf $@ && SVPC_BIN=$(abspath $(BUILD)) tests/fuzz/make-seeds.sh $@

## fuzz: run every harness for FUZZ_SECONDS (default 600) each; findings go to build-fuzz/
fuzz: fuzz-build build-fuzz/seeds
	$(Q)for f in $(FUZZERS); do c=build-fuzz/corpus-$${f#fuzz_}; mkdir -p $$c; \
	  echo "  RUN     $$f for $(FUZZ_SECONDS) s"; \
	  build-fuzz/$$f -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -artifact_prefix=build-fuzz/$$f- \
	    $$c build-fuzz/seeds/$${f#fuzz_} 2>&1 | tail -n 2 || exit 1; done

## fuzz-check: every harness for FUZZ_CHECK_SECONDS (default 10) each, as make check does
fuzz-check: fuzz-build build-fuzz/seeds
	$(Q)for f in $(FUZZERS); do \
	  build-fuzz/$$f -max_total_time=$(FUZZ_CHECK_SECONDS) -rss_limit_mb=2048 -artifact_prefix=build-fuzz/$$f- \
	    build-fuzz/seeds/$${f#fuzz_} > build-fuzz/$$f.log 2>&1 \
	    || { tail -n 30 build-fuzz/$$f.log; echo "fuzz-check: $$f FAILED"; exit 1; }; \
	  echo "fuzz-check: $$f: $$(grep -o 'Done [0-9]* runs' build-fuzz/$$f.log)"; done

## demo: install dependencies, build, compress and restore a bundled real trace, print sizes and speeds
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)SVPC_BIN=$(abspath $(BUILD)) scripts/demo.sh

## bench: svpc on ../shared/corpus against the reference, svpc 0.1.0 and gzip, and issue 11's targets (not a test; BENCH_ONLY=size,speed BENCH_TRACES=NAME: see scripts/bench.sh)
bench: all $(UNITBINS) $(addprefix $(BUILD)/tests/,$(TOOLS))
	$(Q)SVPC_BIN=$(abspath $(BUILD)) scripts/bench.sh

## bench-compare: what moved between two runs: make bench-compare OLD=a.tsv [NEW=build/bench.tsv]
.PHONY: bench-compare
NEW ?= $(BUILD)/bench.tsv
bench-compare:
	$(Q)test -n "$(OLD)" || { echo "usage: make bench-compare OLD=old/bench.tsv [NEW=build/bench.tsv]" >&2; exit 2; }
	$(Q)scripts/bench-compare.sh $(OLD) $(NEW)

MAN1 = $(wildcard man/*.1)
MAN3 = $(wildcard man/*.3)

## install: install the programs, simtrace-plot, <simtrace.h>, libsvpc.so and libsvpc.a, svpc.pc, the man pages under $(DESTDIR)$(PREFIX), and the Python package under $(DESTDIR)$(PYDIR)
install: all
	install -d $(BINDIR) $(INCDIR) $(LIBDIR) $(PCDIR)
	install -m 755 $(BINS) $(BINDIR)
	install -m 755 scripts/bochs-trace $(BINDIR)
	install -d $(LIBDIR)/svpc
	install -m 755 $(BUILD)/bochs-logbuf.so $(LIBDIR)/svpc
	install -m 644 include/simtrace.h $(INCDIR)
	install -m 644 $(LIB) $(LIBDIR)
	install -m 755 $(SHLIB) $(LIBDIR)
	ln -sf $(SHLIB_REAL) $(LIBDIR)/libsvpc.so.$(SOVERSION)
	ln -sf $(SHLIB_REAL) $(LIBDIR)/libsvpc.so
	install -m 644 $(BUILD)/svpc.pc $(PCDIR)
	install -d $(DESTDIR)$(PYDIR)/simtrace
	install -m 644 python/simtrace/*.py $(DESTDIR)$(PYDIR)/simtrace
	printf '# written by make install: where libsvpc.so.$(SOVERSION) was installed\nLIBDIR = "%s"\n' \
	  "$(PREFIX)/lib" > $(DESTDIR)$(PYDIR)/simtrace/_install.py
	sed 's|^PYDIR = .*|PYDIR = "$(PYDIR)"|' python/simtrace-plot > $(BINDIR)/simtrace-plot
	chmod 755 $(BINDIR)/simtrace-plot

## uninstall: remove what install installed
uninstall:
	rm -f $(PROGS:%=$(BINDIR)/%) $(BINDIR)/bochs-trace $(BINDIR)/simtrace-plot
	rm -rf $(DESTDIR)$(PYDIR)/simtrace
	rm -f $(INCDIR)/simtrace.h $(LIBDIR)/libsvpc.a $(LIBDIR)/$(SHLIB_REAL) $(LIBDIR)/libsvpc.so.$(SOVERSION) \
	  $(LIBDIR)/libsvpc.so $(PCDIR)/svpc.pc $(LIBDIR)/svpc/bochs-logbuf.so
	-rmdir $(LIBDIR)/svpc 2>/dev/null

## clean: remove build outputs
clean:
	rm -rf build build-asan build-tsan build-fuzz

# Man pages (man/, written in roff by hand; tests/cli/man_pages.bats renders
# them and checks them against --help) and scripts/svpc-parallel: install
# and uninstall do these too (prerequisites added here); the man pages have
# targets of their own so the test can install them without building.
.PHONY: install-man uninstall-man install-parallel uninstall-parallel
install: install-man install-parallel
uninstall: uninstall-man uninstall-parallel

## install-man: install the man pages under $(DESTDIR)$(PREFIX)/share/man (make install does too)
install-man:
	install -d $(MANDIR)/man1 $(MANDIR)/man3
	install -m 644 $(MAN1) $(MANDIR)/man1
	$(if $(MAN3),install -m 644 $(MAN3) $(MANDIR)/man3)

## uninstall-man: remove the installed man pages
uninstall-man:
	rm -f $(MAN1:man/%=$(MANDIR)/man1/%) $(MAN3:man/%=$(MANDIR)/man3/%)

install-parallel:
	install -d $(BINDIR)
	install -m 755 scripts/svpc-parallel $(BINDIR)

uninstall-parallel:
	rm -f $(BINDIR)/svpc-parallel
