# SPDX-License-Identifier: BSD-3-Clause
# cclab — build, test, demo.  `make help` lists the targets.
#
# One archive per layer (docs/architecture.md): util/ -> build/libcclab-util.a,
# core/ -> libcclab-core.a, sim/ -> libcclab-sim.a, backend/ (with the CUDA
# module, backend/cuda/cuda.mk) -> libcclab-backend.a.  cli/ builds
# build/cclab, which links them all; each tests/test_*.c is its own cmocka
# program and links util and core, plus sim and backend when it includes
# their headers, itself or through a tests/*.h (tests/layers.sh --uses): a
# core test links without libibverbs and CUDA, and a layer a test uses but
# does not include fails its build.  tests/layers.sh checks that no include
# runs up a layer.  bench/*.c are benchmarks.  BUILD selects the output
# folder, so sanitizer and clang builds live beside the normal one.

CC      ?= gcc
BUILD   ?= build
PREFIX  ?= /usr/local
OPT     ?= -O2 -g
SAN     ?=
CFLAGS  ?=
WARN    := -Wall -Wextra -Wshadow -Wpointer-arith -Wstrict-prototypes -Wmissing-prototypes -Wvla -Werror
CPPFLAGS_ALL := -I. -D_GNU_SOURCE $(shell pkg-config --cflags yaml-0.1 jansson 2>/dev/null) $(CPPFLAGS)
# -fPIC: the same objects make the program and libcclab.so.
CFLAGS_ALL   := -std=c11 -fPIC $(OPT) $(WARN) $(SAN) -MMD -MP $(CFLAGS)
# util's and core's libraries; backend's (libibverbs, then CUDA's) come first
# in LDLIBS_ALL, for what links the backend archive.
LDLIBS_UTIL  := $(shell pkg-config --libs yaml-0.1 jansson 2>/dev/null) -lm -lpthread
LDLIBS_BACKEND := $(shell pkg-config --libs libibverbs 2>/dev/null || echo -libverbs)
LDLIBS_ALL    = $(LDLIBS_BACKEND) $(LDLIBS_UTIL)
TEST_LIBS    := -lcmocka

LAYERS    := util core sim backend
CLI_SRC   := $(wildcard cli/*.c)
TEST_SRC  := $(wildcard tests/test_*.c)
BENCH_SRC := $(wildcard bench/*.c)

LIB_OBJ   := $(foreach l,$(LAYERS),$(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard $(l)/*.c)))
CLI_OBJ   := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_BIN  := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
LIB_UTIL    := $(BUILD)/libcclab-util.a
LIB_CORE    := $(BUILD)/libcclab-core.a
LIB_SIM     := $(BUILD)/libcclab-sim.a
LIB_BACKEND := $(BUILD)/libcclab-backend.a
# Every archive, in link order (a layer before those it uses).
LIB       := $(LIB_BACKEND) $(LIB_SIM) $(LIB_CORE) $(LIB_UTIL)
CCLAB     := $(BUILD)/cclab
# cclab run under one of these names takes nccl-tests' flags and prints its
# text (docs/simulator.md, "As nccl-tests").
NCCL_TESTS_LINKS := $(addprefix $(BUILD)/,all_reduce_perf all_gather_perf \
	reduce_scatter_perf broadcast_perf reduce_perf alltoall_perf sendrecv_perf)
# libcclab.so (include/cclab.h, lib/): scenarios, schedules and the
# simulator and data executor for other programs.  util, core and sim
# behind lib/cclab.map, which exports cclab_* and nothing else; the soname's
# major number changes only when a function goes or changes meaning.
SO_VERSION := 0.1.0
SO_NAME    := libcclab.so.0
SO         := $(BUILD)/libcclab.so.$(SO_VERSION)
API_OBJ    := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard lib/*.c))

.PHONY: all lib man uninstall test-install test-deb tests bench test test-run test-matrix check-layers test-scripts test-cuda test-softroce test-calibrate softroce-report validate asan tsan fuzz fuzz-build test-valgrind clang demo install clean deps help
all: $(CCLAB) lib $(NCCL_TESTS_LINKS)
lib: $(SO)

# The CUDA module (backend/cuda/): the real one when nvcc is found, else a
# stand-in whose every call says cclab was built without CUDA.
include backend/cuda/cuda.mk
$(LIB_BACKEND): $(GPU_OBJ)
LDLIBS_BACKEND += $(GPU_LDLIBS)
CPPFLAGS_ALL += $(GPU_CPPFLAGS)

help:
	@echo "make            build $(BUILD)/cclab"
	@echo "make test       install deps, build, run every test (gcc), then under ASan+UBSan (clang)"
	@echo "make test-matrix  the test programs in full: the whole correctness matrix and long runs (CCLAB_MATRIX=full)"
	@echo "make asan       the test suite under ASan+UBSan in build-asan/"
	@echo "make tsan       cclab tune's threads under ThreadSanitizer in build-tsan/"
	@echo "make test-valgrind  small scenarios and error paths under valgrind memcheck"
	@echo "make fuzz       the libFuzzer targets (tests/fuzz/), FUZZ_SECONDS=$(FUZZ_SECONDS) each, in build-fuzz/"
	@echo "make test-cuda  the CUDA kernels against the CPU reference (SKIP without a GPU)"
	@echo "make test-softroce  the verbs executor on soft-RoCE in a qemu VM (SKIP without qemu)"
	@echo "make test-calibrate predicted vs measured on soft-RoCE: calibrate, sim, compare, report"
	@echo "make softroce-report  the same with cclab beside perftest ($(BUILD)/calibrate/report.md)"
	@echo "make validate   published nccl-tests/perftest results (validation/) beside cclab's, with plots and the baseline gate"
	@echo "make clang      build warning-free with clang in build-clang/"
	@echo "make check-layers  no include runs up a layer (util < core < sim, backend < cli)"
	@echo "make bench      build the benchmarks in $(BUILD)/bench/"
	@echo "make demo       install deps, build, show a schedule and check collectives"
	@echo "make install    PREFIX=$(PREFIX): program, libcclab.so, cclab.h, cclab.pc, man pages,"
	@echo "                completion, Python module, scenarios (docs/install.md); make uninstall"
	@echo "make test-install  install into a temporary prefix and use only the installed copy"
	@echo "make test-deb   build the Debian package, install it, use it, purge it (root)"

# The compiler and flags an object was built with: a change (-fPIC, OPT,
# SAN) rebuilds every object, not only those whose sources changed.
FLAGS_STAMP := $(BUILD)/.cflags
FLAGS_NOW   := $(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL)
$(shell mkdir -p $(BUILD) && { [ "$$(cat $(FLAGS_STAMP) 2>/dev/null)" = "$(FLAGS_NOW)" ] || \
	echo "$(FLAGS_NOW)" >$(FLAGS_STAMP); })

$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -c $< -o $@

layer_obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard $(1)/*.c))
$(LIB_UTIL): $(call layer_obj,util)
$(LIB_CORE): $(call layer_obj,core)
$(LIB_SIM): $(call layer_obj,sim)
$(LIB_BACKEND): $(call layer_obj,backend)
$(LIB):
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(CCLAB): $(CLI_OBJ) $(LIB)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDLIBS_ALL)

# nccl-tests' programs (as links to cclab; cli/cmd_nccl_tests.c)
$(NCCL_TESTS_LINKS): $(CCLAB)
	ln -sf cclab $@

$(SO): $(API_OBJ) $(LIB_SIM) $(LIB_CORE) $(LIB_UTIL) lib/cclab.map
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -shared -Wl,-soname,$(SO_NAME) -Wl,--version-script=lib/cclab.map \
		-Wl,--no-undefined -o $@ $(API_OBJ) $(LIB_SIM) $(LIB_CORE) $(LIB_UTIL) $(LDLIBS_UTIL)
	ln -sf $(notdir $@) $(BUILD)/$(SO_NAME)
	ln -sf $(SO_NAME) $(BUILD)/libcclab.so

# Man pages from the help text (help2man), cclab(1) and cclab-COMMAND(1).
man: $(CCLAB)
	@bash scripts/man.sh $(CCLAB) $(BUILD)/man

# util and core, and sim or backend (with its libraries) when the test uses
# them (tests/layers.sh --uses).
$(BUILD)/tests/%: tests/%.c $(LIB)
	@mkdir -p $(dir $@)
	uses=" $$(bash tests/layers.sh --uses $<) "; libs="$(LIB_CORE) $(LIB_UTIL)"; ldlibs=""; \
	case $$uses in *" sim "*) libs="$(LIB_SIM) $$libs" ;; esac; \
	case $$uses in *" backend "*) libs="$(LIB_BACKEND) $$libs" ldlibs="$(LDLIBS_BACKEND)" ;; esac; \
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $< $$libs $(TEST_LIBS) $$ldlibs $(LDLIBS_UTIL)

$(BUILD)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $< $(LIB) $(LDLIBS_ALL)

tests: $(CCLAB) $(TEST_BIN) $(BENCH_BIN)
bench: $(BENCH_BIN)

deps:
	@bash scripts/install-deps.sh

# Checks the layering, runs every test program of $(BUILD) and prints one
# total line.  Every program runs its quick form (CCLAB_MATRIX=quick: the
# correctness matrix and the other long runs, docs/testing.md);
# test-matrix runs them in full (and `CCLAB_MATRIX=exhaustive make
# test-matrix` every k x dtype x redop: hours), a separate target as long
# fuzzing is, outside make test's 50 minutes.
test-run: tests check-layers
	@CCLAB=$(CCLAB) CCLAB_MATRIX=$${CCLAB_MATRIX:-quick} bash tests/run.sh $(BUILD)/tests

test-matrix:
	CCLAB_MATRIX=$${CCLAB_MATRIX:-full} $(MAKE) test-run

check-layers:
	@bash tests/layers.sh

# Shell tests: the plotting scripts (gnuplot), scripts/softroce/report.sh, and
# every JSON result file against its schema (docs/schemas/);
# they print their own count and fail loudly.
test-scripts: $(CCLAB)
	@CCLAB=$(CCLAB) bash tests/test_plots.sh
	@CCLAB=$(CCLAB) bash tests/test_schemas.sh

# The CI's whole run (.ci/run), stage by stage, each stage's wall time
# printed as it ends so that a slow CI says which stage grew.
TEST_STAGES := test-run test-scripts test-install test-deb test-cuda \
	test-calibrate validate test-valgrind asan tsan fuzz
test: deps
	@for t in $(TEST_STAGES); do s=$$(date +%s); $(MAKE) $$t || exit $$?; \
		echo "make test: $$t passed in $$(( $$(date +%s) - s )) s"; done

# On a GPU: every dtype x redop kernel against core/dtype.c and the memory
# bandwidth they reach; without one, SKIP (after the CPU run of the
# kernels' per-thread code when nvcc is there).
test-cuda: $(CUDA_TEST_BINS)
	@NVCC="$(CUDA_NVCC)" bash scripts/test-cuda.sh $(CUDA_TEST)

# The verbs executor on a real verbs stack: rdma_rxe in a qemu VM booting
# Debian's kernel (scripts/softroce/, docs/softroce.md).  Exit 77 from the
# runner is its SKIP: no qemu, no kernel package to be had.
test-softroce: $(CCLAB)
	@bash scripts/softroce/run.sh --out $(BUILD)/softroce --plan scripts/softroce/verbs-tests.sh \
		-- $(CCLAB); rc=$$?; if [ $$rc = 77 ]; then echo "test-softroce: SKIP"; \
		elif [ $$rc != 0 ]; then echo "test-softroce: FAIL ($(BUILD)/softroce has the logs)"; \
		exit $$rc; fi

# Predicted vs measured on soft-RoCE (docs/calibrate.md): p2p results and the
# ring allreduce measured in the VM, `cclab calibrate` of the one into a
# fabric, `cclab sim` of the other on it, `cclab compare`, and the report
# ($(BUILD)/calibrate/report.md).  It fails only when a step cannot run: how
# close the prediction comes is the report's finding.  softroce-report adds
# cclab beside perftest in the same boot (a few minutes more).
test-calibrate: $(CCLAB)
	@bash scripts/softroce/calibrate.sh --out $(BUILD)/calibrate $(CCLAB); rc=$$?; \
		if [ $$rc = 77 ]; then echo "test-calibrate: SKIP"; \
		elif [ $$rc != 0 ]; then echo "test-calibrate: FAIL ($(BUILD)/calibrate has the logs)"; \
		exit $$rc; fi

softroce-report: $(CCLAB)
	PERFTEST=1 bash scripts/softroce/calibrate.sh --out $(BUILD)/calibrate $(CCLAB)

# The corpus of published measurements (validation/, docs/validation.md):
# every case simulated at the sizes it measured up to VALIDATE_MAX_BYTES, the
# report, its JSON and CSV, two plots, and the gate: a class whose median
# |error| is worse than validation/baseline.csv by more than one percentage
# point fails.  When test-calibrate measured soft-RoCE in the VM, its case
# ($(BUILD)/calibrate/softroce) is reported after the corpus, outside the gate
# (one noisy emulated fabric).
VALIDATE_MAX_BYTES ?= 512M
VALIDATE_OUT := $(BUILD)/validate
validate: $(CCLAB)
	@mkdir -p $(VALIDATE_OUT)
	@$(CCLAB) validate validation --max-bytes $(VALIDATE_MAX_BYTES) --quiet \
		--baseline validation/baseline.csv --json $(VALIDATE_OUT)/validate.json \
		--csv $(VALIDATE_OUT)/validate.csv >$(VALIDATE_OUT)/report.txt; rc=$$?; \
		cat $(VALIDATE_OUT)/report.txt; \
		if [ -f $(BUILD)/calibrate/softroce/scenario.yaml ]; then \
			$(CCLAB) validate $(BUILD)/calibrate/softroce --json $(VALIDATE_OUT)/softroce.json \
				>$(VALIDATE_OUT)/softroce.txt && cat $(VALIDATE_OUT)/softroce.txt || rc=1; \
		fi; \
		if command -v gnuplot >/dev/null; then \
			bash scripts/plot.sh validate $(VALIDATE_OUT)/validate.png $(VALIDATE_OUT)/validate.csv && \
			bash scripts/plot.sh validate-cases $(VALIDATE_OUT)/validate-cases.png \
				$(VALIDATE_OUT)/validate.csv || rc=1; \
		fi; \
		if [ $$rc != 0 ]; then echo "validate: FAIL ($(VALIDATE_OUT)/report.txt)"; exit $$rc; fi

# The sanitizer pass runs the test programs as test-run does.  Without the
# CUDA module: nvcc's objects would not be instrumented anyway.  The verbs
# executor runs under the sanitizers too, in the soft-RoCE VM: the real
# verbs paths are exercised nowhere else.
ASAN_VARS := BUILD=build-asan CC=clang CCLAB_CUDA=0 OPT="-O1 -g" \
	SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
asan:
	$(MAKE) test-run $(ASAN_VARS)
	$(MAKE) test-softroce $(ASAN_VARS)

# ThreadSanitizer on the one threaded command, `cclab tune` (scripts/tsan.sh).
TSAN_VARS := BUILD=build-tsan CC=clang CCLAB_CUDA=0 OPT="-O1 -g" SAN="-fsanitize=thread"
tsan:
	$(MAKE) build-tsan/cclab $(TSAN_VARS)
	@bash scripts/tsan.sh build-tsan/cclab

# libFuzzer (tests/fuzz/, docs/reliability.md): the library instrumented
# for coverage (fuzzer-no-link) under ASan+UBSan like `asan`, each target
# linked with libFuzzer's main.  tests/fuzz/run.sh replays the regression
# inputs, then fuzzes each target FUZZ_SECONDS from a temporary copy of its
# corpus (the checked-in one never grows) and fails on any crash.
FUZZ_SECONDS ?= 20
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN  := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_VARS := BUILD=build-fuzz CC=clang CCLAB_CUDA=0 OPT="-O1 -g" \
	SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -fsanitize=fuzzer -o $@ $< $(LIB) $(LDLIBS_ALL)

fuzz-build: $(FUZZ_BIN)
fuzz:
	$(MAKE) fuzz-build $(FUZZ_VARS)
	@bash tests/fuzz/run.sh build-fuzz/fuzz $(FUZZ_SECONDS)

# Small scenarios and commands under valgrind memcheck, error paths
# included (scripts/valgrind.sh, docs/reliability.md).
test-valgrind: $(CCLAB)
	@bash scripts/valgrind.sh $(CCLAB)

clang:
	$(MAKE) all tests bench BUILD=build-clang CC=clang

demo: deps all
	@bash scripts/demo.sh $(CCLAB)

# Where `make install` puts things; DESTDIR stages them (debian/rules).
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR    ?= $(PREFIX)/share/cclab
DOCDIR     ?= $(PREFIX)/share/doc/cclab
MANDIR     ?= $(PREFIX)/share/man
COMPDIR    ?= $(PREFIX)/share/bash-completion/completions
# Where python3 looks for PREFIX's modules: Debian's /usr/lib/python3/
# dist-packages for /usr, /usr/local/lib/python3.X/dist-packages for
# /usr/local, else PREFIX/lib/python3.X/site-packages (sysconfig's
# posix_prefix: ~/.local's is the user site).  Debian's python3 first.
PYTHON     := $(firstword $(wildcard /usr/bin/python3) python3)
PYTHONDIR  ?= $(shell $(PYTHON) -c 'import sys, sysconfig; p = sys.argv[1].rstrip("/") or "/"; \
	v = "python%d.%d" % sys.version_info[:2]; \
	print("/usr/lib/python3/dist-packages" if p == "/usr" else \
	      "/usr/local/lib/%s/dist-packages" % v if p == "/usr/local" else \
	      sysconfig.get_path("purelib", "posix_prefix", {"base": p, "platbase": p}))' '$(PREFIX)' 2>/dev/null)
# nccl-tests' and perftest's program names, as links to cclab
# (scripts/install.sh); the nccl-tests names in BINDIR too unless 0.
TOOLDIR        ?= $(PREFIX)/lib/cclab/bin
PERF_IN_BINDIR ?= 1
INSTALL_VARS = DESTDIR="$(DESTDIR)" BUILD="$(BUILD)" PREFIX="$(PREFIX)" BINDIR="$(BINDIR)" \
	LIBDIR="$(LIBDIR)" INCLUDEDIR="$(INCLUDEDIR)" DATADIR="$(DATADIR)" DOCDIR="$(DOCDIR)" \
	MANDIR="$(MANDIR)" COMPDIR="$(COMPDIR)" PYTHONDIR="$(PYTHONDIR)" TOOLDIR="$(TOOLDIR)" \
	PERF_IN_BINDIR="$(PERF_IN_BINDIR)" SO_VERSION="$(SO_VERSION)" SO_NAME="$(SO_NAME)"
install: $(CCLAB) $(SO) man
	@$(INSTALL_VARS) bash scripts/install.sh install
uninstall:
	@$(INSTALL_VARS) bash scripts/install.sh uninstall

# make install into a temporary prefix, the example and the Python module
# built and run against the installed copy only, then make uninstall.
test-install: $(CCLAB) $(SO)
	@CCLAB=$(CCLAB) BUILD=$(BUILD) bash tests/test_install.sh

# The Debian package (debian/): dpkg-buildpackage, dpkg -i, used, purged.
test-deb:
	@bash tests/test_deb.sh

clean:
	rm -rf build build-asan build-clang build-fuzz build-tsan

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_BIN:=.d) $(BENCH_BIN:=.d) $(FUZZ_BIN:=.d)
