# symplan — build, test, run, bench, install.
# On a fresh Debian machine `make run` and `make test` install the dependencies
# they need (NLopt, LAPACKE, cJSON, Criterion) through apt-get first.

CC      ?= cc
PREFIX  ?= /usr/local
BUILD   ?= build
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
# Project headers are included by their path from the top folder ("lie/sp_lie.h").
SP_CFLAGS = -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -I$(CURDIR) $(CFLAGS)
LDLIBS  = -lnlopt -llapacke -lcjson -lm -pthread
TEST_LDLIBS = -lcriterion $(LDLIBS) -pthread

MODULES  = lie integrators problems planner
# The command's own files (planner/cli/): main.c and one cmd_<name>.c per subcommand.
CMD_SRC  = $(wildcard planner/cli/*.c)
CMD_OBJ  = $(CMD_SRC:%.c=$(BUILD)/%.o)
# The MPI executor of studies needs mpi.h: it is built into the MPI command only (`make mpi`).
MPI_SRC  = planner/study/study_mpi.c
LIB_SRC  = $(filter-out $(CMD_SRC) $(MPI_SRC),$(shell find $(MODULES) -name '*.c' | sort))
LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o)
# tests/*.c, and the fuzz harness (tests/fuzz/), whose regression corpus the suite replays
TEST_SRC = $(wildcard tests/*.c) tests/fuzz/fuzz_problem.c
TEST_OBJ = $(TEST_SRC:%.c=$(BUILD)/%.o)
# (the keyframes part measures the planner against the tests' independent reference solver,
# the scenes part plans the tests' random parking scenes)
BENCH_SRC = $(wildcard bench/*.c) tests/keyframe_reference.c tests/step_fixtures.c tests/car_scenes.c
HEADERS  = $(shell find $(MODULES) -name '*.h' | sort)
# Every object depends on the headers it includes, as the compiler lists them (-MMD -MP:
# build/…/x.d beside build/…/x.o, read at the end): a header change rebuilds its includers only.
DEPFLAGS = -MMD -MP
# The public headers, installed by `make install` (the umbrella symplan.h includes them):
# the problem and result objects (sp_api.h), the text API the Python package binds, the
# holonomic steppers a program (and the Python package) drives with a model of its own,
# and what those include. None includes cJSON. The rest is internal and not installed.
PUBLIC_HEADERS = lie/sp_status.h lie/sp_version.h planner/api/sp_api.h planner/api/sp_text_api.h \
	integrators/sp_holonomic.h integrators/sp_newton.h

# The version, from lie/sp_version.h (one place).
SP_VERSION := $(shell sed -n 's/^#define SP_VERSION_STRING "\(.*\)"/\1/p' lie/sp_version.h)
LIB   = $(BUILD)/libsymplan.a
# The shared library: libsymplan.so.MAJOR (its soname) -> libsymplan.so.MAJOR.MINOR.PATCH,
# from position-independent objects of their own ($(BUILD)/pic/).
SONAME = libsymplan.so.$(firstword $(subst ., ,$(SP_VERSION)))
SHLIB  = $(BUILD)/libsymplan.so.$(SP_VERSION)
PIC_OBJ = $(LIB_SRC:%.c=$(BUILD)/pic/%.o)
BIN   = $(BUILD)/symplan
# The manual page, written by the command from the tables its help prints
# (planner/cli/cmd_man.c); docs/symplan.1 is the same page for reading in the sources,
# refreshed by `make man` (tests/test_help.c checks that it is).
MAN   = $(BUILD)/symplan.1
TESTS = $(BUILD)/symplan-tests
BENCH = $(BUILD)/symplan-bench
DEPS_STAMP = $(BUILD)/.deps-ok

.PHONY: all shared man test run bench bench-ompl asan tsan clean install deps mpi fuzz valgrind check-install check-wheel
all: $(LIB) $(SHLIB) $(BIN) $(MAN)
# `make shared`: the shared library alone (build/libsymplan.so and its links)
shared: $(SHLIB)

$(MAN): $(BIN)
	$(BIN) help --man > $@.tmp && mv $@.tmp $@
man: $(MAN)
	cp $(MAN) docs/symplan.1

# Dependencies: a header that does not compile means its Debian package is missing. The
# library needs the first three; the tests add Criterion.
LIB_DEP_HEADERS = nlopt.h lapacke.h cjson/cJSON.h
LIB_DEP_PACKAGES = libnlopt-dev liblapacke-dev libcjson-dev
DEP_HEADERS = $(LIB_DEP_HEADERS) criterion/criterion.h
DEP_PACKAGES = $(LIB_DEP_PACKAGES) libcriterion-dev
# SP_DEPS=check (the Python package's build, setup.py, runs `make SP_DEPS=check shared`):
# only the library's headers are looked for, and a missing one fails the build with the
# apt-get command to type instead of installing anything (its own stamp: the tests'
# dependencies are not checked).
ifeq ($(SP_DEPS),check)
DEP_HEADERS = $(LIB_DEP_HEADERS)
DEP_PACKAGES = $(LIB_DEP_PACKAGES)
DEPS_STAMP = $(BUILD)/.lib-deps-ok
endif
deps: $(DEPS_STAMP)
$(DEPS_STAMP):
	@mkdir -p $(BUILD)
	@missing=; for h in $(DEP_HEADERS); do \
	  printf '#include <%s>\n' $$h | $(CC) -E -x c - >/dev/null 2>&1 || missing="$$missing $$h"; done; \
	if [ -n "$$missing" ] && [ "$(SP_DEPS)" = check ]; then \
	  echo "symplan: missing C headers:$$missing; install them with: sudo apt-get install $(DEP_PACKAGES)" >&2; exit 1; \
	elif [ -n "$$missing" ]; then \
	  echo "symplan: missing headers:$$missing; installing $(DEP_PACKAGES)"; \
	  sudo=; [ "$$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $(DEP_PACKAGES) >/dev/null \
	    || { echo "symplan: could not install $(DEP_PACKAGES)"; exit 1; }; \
	fi
	@touch $@

# The order-8 stepper's kernels are loops over the algebra's dimension, instantiated for
# so(3) and se(3); unrolled, a step runs about 1.3 times faster and its tangents 1.5 times.
$(BUILD)/integrators/hohp_rk.o $(BUILD)/pic/integrators/hohp_rk.o: SP_CFLAGS += -funroll-loops
# (the same for the round sphere's order-8 step, whose stage loops have fixed lengths)
$(BUILD)/integrators/round_sphere.o $(BUILD)/pic/integrators/round_sphere.o: SP_CFLAGS += -funroll-loops

$(BUILD)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(SP_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/pic/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(SP_CFLAGS) $(DEPFLAGS) -fPIC -c $< -o $@
# The shared library exports what the public headers declare and nothing else: the
# version script lists every symbol the objects define whose name a public header
# mentions; the rest (linear algebra, readers, family tables) stays local.
$(BUILD)/symplan.map: $(PIC_OBJ) $(PUBLIC_HEADERS)
	@nm -g --defined-only $(PIC_OBJ) | awk 'NF == 3 { print $$3 }' | sort -u > $@.defined
	@grep -ohE '\b[A-Za-z_][A-Za-z0-9_]*\b' $(PUBLIC_HEADERS) | sort -u > $@.named
	@comm -12 $@.defined $@.named | awk 'BEGIN { print "{ global:" } { print "  " $$0 ";" } END { print "  local: *;\n};" }' > $@
	@rm -f $@.defined $@.named
# (linked with its dependencies, so a program names only -lsymplan and what it calls itself)
$(SHLIB): $(PIC_OBJ) $(BUILD)/symplan.map
	$(CC) $(SP_CFLAGS) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=$(BUILD)/symplan.map $(PIC_OBJ) $(LDLIBS) -o $@
	ln -sf $(notdir $@) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $(BUILD)/libsymplan.so

$(BIN): $(CMD_OBJ) $(LIB)
	$(CC) $(SP_CFLAGS) $^ $(LDLIBS) -o $@

# The tests find the command and the data through these paths.
$(BUILD)/tests/%.o: SP_CFLAGS += -DSP_TEST_BIN='"$(abspath $(BIN))"' -DSP_TEST_DATA='"$(abspath data)"' \
	-DSP_TEST_TMP='"$(abspath $(BUILD))/tmp"' -DSP_TEST_FUZZ='"$(abspath tests/fuzz)"'
$(TESTS): $(TEST_OBJ) $(LIB)
	$(CC) $(SP_CFLAGS) $^ $(TEST_LDLIBS) -o $@

# The keyframe tests compare natural curves with scipy's RotationSpline, the schema tests
# validate files against schema/*.schema.json, and the Python package's tests
# (python/tests/) run under pytest with numpy and matplotlib: Debian's packages for
# /usr/bin/python3 are installed through apt-get when one is missing. (The stamp depends
# on the Makefile so that a module added here is looked for again.)
PY_PACKAGES = python3-scipy python3-jsonschema python3-numpy python3-pytest python3-matplotlib
PY_MODULES = scipy.spatial.transform, jsonschema, numpy, pytest, matplotlib
PY_STAMP = $(BUILD)/.python-deps-ok
$(PY_STAMP): Makefile | $(DEPS_STAMP)
	@/usr/bin/python3 -c 'import $(PY_MODULES)' >/dev/null 2>&1 || { \
	  echo "symplan: a module of $(PY_MODULES) for /usr/bin/python3 not found (the tests use them); installing $(PY_PACKAGES)"; \
	  sudo=; [ "$$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $(PY_PACKAGES) >/dev/null \
	    || { echo "symplan: could not install $(PY_PACKAGES)"; exit 1; }; }
	@touch $@

# (the MPI command too, once `make mpi` has built it: its test must not run a stale one);
# then the layering of the library's and the command's files (tests/check_layering.py: no
# circles, no call against lie <- integrators <- problems <- planner, nor inside
# planner/ against draw <- planning <- plot <- study <- api <- cli), every symplan command
# of a sh block in README.md and docs/*.md (tests/check_doc_commands.py, about 2 s), the Python
# package's tests over the shared library just built (python/tests/), the install, the
# Python package as installed, which must load the installed library, and the package as a wheel
# (`make check-wheel`). A library built with a sanitizer cannot be loaded into an
# uninstrumented Python: `make asan` and `make tsan` skip the three.
PY_TEST = PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=python SYMPLAN_LIBRARY=$(abspath $(SHLIB)) SYMPLAN_BIN=$(abspath $(BIN)) \
	/usr/bin/python3 -m pytest -q -p no:cacheprovider python/tests
PY_INSTALLED = cd / && PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$(abspath $(STAGE))/lib/python3/dist-packages /usr/bin/python3 -c \
	'import symplan, symplan._lib as l; assert l.lib()._name == "$(abspath $(STAGE))/lib/libsymplan.so", l.lib()._name; \
	print("python: the installed package loads", l.lib()._name, symplan.version())'
SANITIZED = $(findstring -fsanitize,$(OPT))
test: $(TESTS) $(BIN) $(SHLIB) $(PY_STAMP) $(wildcard $(BUILD)/symplan-mpi)
	@mkdir -p $(BUILD)/tmp
	$(TESTS) --jobs 2
	@/usr/bin/python3 tests/check_layering.py $(BUILD) $(LIB_OBJ) $(CMD_OBJ)
	@/usr/bin/python3 tests/check_doc_commands.py $(BIN)
	$(if $(SANITIZED),@echo "python tests skipped: the library is built with a sanitizer",$(PY_TEST))
	@$(MAKE) --no-print-directory check-install
	@$(if $(SANITIZED),:,$(PY_INSTALLED))
	@$(if $(SANITIZED),:,$(MAKE) --no-print-directory check-wheel)

# `make check-wheel` (tests/check_wheel.sh): the Python package as pip installs it. A
# copy of the checkout builds a wheel offline (pip wheel --no-build-isolation: setup.py
# compiles its own libsymplan.so with `make shared`, objects in $(BUILD)/wheel, and
# bundles it; 15-20 s the first time, a few after), the wheel goes into a fresh
# `python3 -m venv --system-site-packages`, and python/tests/ runs there from outside the
# checkout with no PYTHONPATH or SYMPLAN_LIBRARY (about 10 s). Debian's pip, setuptools
# and wheel for /usr/bin/python3 (what builds offline) are installed through apt-get
# when missing.
WHEEL_PACKAGES = python3-pip python3-setuptools python3-wheel python3-venv
WHEEL_STAMP = $(BUILD)/.wheel-deps-ok
$(WHEEL_STAMP): | $(PY_STAMP)
	@/usr/bin/python3 -c 'import pip, setuptools, wheel, venv' >/dev/null 2>&1 || { \
	  echo "symplan: pip, setuptools or wheel for /usr/bin/python3 not found (the wheel test builds with them); installing $(WHEEL_PACKAGES)"; \
	  sudo=; [ "$$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $(WHEEL_PACKAGES) >/dev/null \
	    || { echo "symplan: could not install $(WHEEL_PACKAGES)"; exit 1; }; }
	@touch $@
check-wheel: $(BIN) $(PY_STAMP) $(WHEEL_STAMP)
	CC='$(CC)' sh tests/check_wheel.sh $(abspath $(BIN)) $(abspath $(BUILD))/wheel

# `make check-install`: installs into $(BUILD)/stage and, with nothing but pkg-config
# pointed there, compiles every installed header alone and builds and runs every program
# of examples/ and README.md's C program against the shared library (and one against the
# static library), so that a broken install fails `make test` (tests/check_install.sh).
# pkg-config is installed through apt-get when missing.
STAGE = $(BUILD)/stage
PKGCONFIG_STAMP = $(BUILD)/.pkg-config-ok
$(PKGCONFIG_STAMP): | $(DEPS_STAMP)
	@command -v pkg-config >/dev/null 2>&1 || { \
	  echo "symplan: pkg-config not found (the install test compiles through it); installing it"; \
	  sudo=; [ "$$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq pkg-config >/dev/null \
	    || { echo "symplan: could not install pkg-config"; exit 1; }; }
	@touch $@
check-install: $(LIB) $(SHLIB) $(BIN) $(PKGCONFIG_STAMP)
	@rm -rf $(STAGE) $(BUILD)/examples
	@$(MAKE) --no-print-directory install PREFIX=$(abspath $(STAGE)) DESTDIR= >/dev/null
	CC='$(CC)' CFLAGS='$(CFLAGS)' sh tests/check_install.sh $(abspath $(STAGE)) $(abspath $(BUILD))/examples

# `make mpi`: build/symplan-mpi, the command with MPI studies (mpirun -n K … study …),
# after installing Open MPI through apt-get when mpicc, mpi.h or mpirun is missing. Only
# the study subcommand differs (compiled with -DSP_HAVE_MPI, with the MPI executor of
# studies, planner/study/study_mpi.c, added); the library is shared.
MPICC ?= mpicc
MPI_PACKAGES = libopenmpi-dev openmpi-bin
MPI_BIN = $(BUILD)/symplan-mpi
MPI_STAMP = $(BUILD)/.mpi-deps-ok
MPI_OWN_OBJ = $(BUILD)/mpi/planner/cli/cmd_study.o $(MPI_SRC:%.c=$(BUILD)/mpi/%.o)
MPI_CMD_OBJ = $(filter-out $(BUILD)/planner/cli/cmd_study.o,$(CMD_OBJ)) $(MPI_OWN_OBJ)
mpi: $(MPI_BIN)
$(MPI_STAMP): | $(DEPS_STAMP)
	@if ! command -v $(MPICC) >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1 || \
	    ! printf '#include <mpi.h>\n' | $(MPICC) -E -x c - >/dev/null 2>&1; then \
	  echo "symplan: Open MPI not found; installing $(MPI_PACKAGES)"; \
	  sudo=; [ "$$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $(MPI_PACKAGES) >/dev/null \
	    || { echo "symplan: could not install $(MPI_PACKAGES)"; exit 1; }; \
	fi
	@touch $@
$(BUILD)/mpi/%.o: %.c | $(MPI_STAMP)
	@mkdir -p $(dir $@)
	OMPI_CC=$(CC) $(MPICC) $(SP_CFLAGS) $(DEPFLAGS) -DSP_HAVE_MPI -c $< -o $@
$(MPI_BIN): $(MPI_CMD_OBJ) $(LIB)
	OMPI_CC=$(CC) $(MPICC) $(SP_CFLAGS) $^ $(LDLIBS) -o $@

# (everything `make` builds: the Python package in the source tree loads build/libsymplan.so)
run: all
	$(BIN) solve data/sphere_interpolation.json -o $(BUILD)/sphere_interpolation.result.json --summary

# GSL is a benchmark-only dependency (bench/hol_bench.c measures our integrators against
# its rk8pd): installed through apt-get when gsl/gsl_odeiv2.h is missing, and linked into
# the bench program only, never into the library or the tests.
GSL_PACKAGES = libgsl-dev
GSL_LDLIBS = -lgsl -lgslcblas
GSL_STAMP = $(BUILD)/.gsl-deps-ok
$(GSL_STAMP): | $(DEPS_STAMP)
	@if ! printf '#include <gsl/gsl_odeiv2.h>\n' | $(CC) -E -x c - >/dev/null 2>&1; then \
	  echo "symplan: GSL not found (needed by make bench only); installing $(GSL_PACKAGES)"; \
	  sudo=; [ "$$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $(GSL_PACKAGES) >/dev/null \
	    || { echo "symplan: could not install $(GSL_PACKAGES)"; exit 1; }; \
	fi
	@touch $@

$(BENCH): $(BENCH_SRC) $(LIB) | $(GSL_STAMP)
	$(CC) $(SP_CFLAGS) $^ $(LDLIBS) $(GSL_LDLIBS) -o $@

bench: $(BENCH)
	$(BENCH)

# OMPL, the sampling planners a user would otherwise pick for parking, is a peer of the
# parking bench only (bench/ompl_parking.cpp, C++; BSD-licensed): `make bench-ompl`
# installs libompl-dev when missing and runs the 20 TPCAP cases through it.
OMPL_PACKAGES = libompl-dev libeigen3-dev
OMPL_CFLAGS = -I/usr/include/ompl-1.5 -I/usr/include/eigen3
OMPL_STAMP = $(BUILD)/.ompl-deps-ok
$(OMPL_STAMP): | $(DEPS_STAMP)
	@if ! printf '#include <ompl/base/ProjectionEvaluator.h>\n' | $(CXX) -E -x c++ $(OMPL_CFLAGS) - >/dev/null 2>&1; then \
	  echo "symplan: OMPL not found (needed by make bench-ompl only); installing $(OMPL_PACKAGES)"; \
	  sudo=; [ "$$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $(OMPL_PACKAGES) >/dev/null \
	    || { echo "symplan: could not install $(OMPL_PACKAGES)"; exit 1; }; \
	fi
	@touch $@

BENCH_OMPL = $(BUILD)/symplan-bench-ompl
$(BENCH_OMPL): bench/ompl_parking.cpp bench/tpcap_case.c bench/tpcap_case.h $(LIB) | $(OMPL_STAMP)
	$(CC) $(SP_CFLAGS) -c bench/tpcap_case.c -o $(BUILD)/bench-tpcap-case.o
	$(CXX) -std=c++14 -O2 -Wall -Wextra -Werror -I$(CURDIR) $(OMPL_CFLAGS) bench/ompl_parking.cpp \
	  $(BUILD)/bench-tpcap-case.o $(LIB) -lompl $(LDLIBS) -o $@

bench-ompl: $(BENCH_OMPL)
	$(BENCH_OMPL)

# The test suite under AddressSanitizer and UndefinedBehaviorSanitizer, in its own tree.
asan: | $(DEPS_STAMP)
	LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp) \
	$(MAKE) BUILD=$(BUILD)/asan OPT="-O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" test

# `make tsan`: the threads suite's check (tests/threads_scenarios.c: a problem of every
# model family solved by several threads at once, each result equal to the one solved
# alone) under ThreadSanitizer, library and program built with -fsanitize=thread in
# $(BUILD)/tsan. Criterion's runner cannot start under ThreadSanitizer, so the check runs
# as a program of its own (tests/tsan/threads_main.c); any report fails the target. The
# runtime of TSAN_CC (libtsan2 for gcc, libclang-rt-dev for clang) is installed through
# apt-get when missing.
TSAN_CC ?= $(CC)
TSAN_BUILD = $(BUILD)/tsan
TSAN_PACKAGES = $(if $(findstring clang,$(TSAN_CC)),libclang-rt-dev,libtsan2)
TSAN_STAMP = $(BUILD)/.tsan-deps-ok
TSAN_RUN_OPTIONS = halt_on_error=1 exitcode=66 second_deadlock_stack=1
$(TSAN_STAMP): | $(DEPS_STAMP)
	@if ! printf 'int main(void) { return 0; }\n' | \
	    $(TSAN_CC) -fsanitize=thread -x c - -o $(BUILD)/.tsan-probe >/dev/null 2>&1; then \
	  echo "symplan: $(TSAN_CC) cannot link -fsanitize=thread; installing $(TSAN_PACKAGES)"; \
	  sudo=; [ "$$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $(TSAN_PACKAGES) >/dev/null \
	    || { echo "symplan: could not install $(TSAN_PACKAGES)"; exit 1; }; \
	fi
	@rm -f $(BUILD)/.tsan-probe
	@touch $@
# the program, built by the sub-make below (CC=TSAN_CC, OPT with -fsanitize=thread, BUILD=build/tsan)
$(BUILD)/symplan-threads: $(BUILD)/tests/tsan/threads_main.o $(BUILD)/tests/threads_scenarios.o \
                          $(BUILD)/tests/car_threads.o $(LIB)
	$(CC) $(SP_CFLAGS) $^ $(LDLIBS) -pthread -o $@
tsan: $(TSAN_STAMP)
	$(MAKE) --no-print-directory BUILD=$(TSAN_BUILD) CC=$(TSAN_CC) OPT="-O1 -fno-omit-frame-pointer -fsanitize=thread" \
	  $(TSAN_BUILD)/symplan-threads
	@mkdir -p $(TSAN_BUILD)/tmp
	TSAN_OPTIONS="$(TSAN_RUN_OPTIONS)" $(TSAN_BUILD)/symplan-threads

# `make fuzz FUZZ_SECONDS=N`: the libFuzzer harness tests/fuzz/fuzz_problem.c over the
# whole file path (read, validate, run under a small budget, print, plot), built with
# clang -fsanitize=fuzzer,address,undefined in $(BUILD)/fuzz (clang and its fuzzer
# runtime are installed through apt-get when missing). The corpus grows in
# $(BUILD)/fuzz/corpus from the seeds: data/, tests/fuzz/corpus/, tests/fuzz/regress/ and
# the malformed documents of the test suites; what it finds lands in
# $(BUILD)/fuzz/artifacts/ and fails the target. FUZZ_JOBS=N runs N fuzzers side by side.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
FUZZ_BUILD = $(BUILD)/fuzz
FUZZ_PACKAGES = clang libclang-rt-dev
FUZZ_STAMP = $(BUILD)/.fuzz-deps-ok
FUZZ_OPT = -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_ARGS = -dict=$(abspath tests/fuzz/json.dict) -max_len=8192 -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
	-artifact_prefix=$(abspath $(FUZZ_BUILD))/artifacts/
SEEDS_SRC = tests/fuzz/seeds.c tests/fuzz/seeds_problem_file.c tests/fuzz/seeds_cli.c
$(FUZZ_STAMP): | $(DEPS_STAMP)
	@if ! printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n; }\n' | \
	    $(FUZZ_CC) -fsanitize=fuzzer,address,undefined -x c - -o $(BUILD)/.fuzz-probe >/dev/null 2>&1; then \
	  echo "symplan: $(FUZZ_CC) cannot build a libFuzzer target; installing $(FUZZ_PACKAGES)"; \
	  sudo=; [ "$$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $(FUZZ_PACKAGES) >/dev/null \
	    || { echo "symplan: could not install $(FUZZ_PACKAGES)"; exit 1; }; \
	fi
	@rm -f $(BUILD)/.fuzz-probe
	@touch $@
# the harness, linked by the sub-make below (CC=clang, OPT=FUZZ_OPT, BUILD=build/fuzz)
$(BUILD)/fuzz_problem: tests/fuzz/fuzz_problem.c $(LIB)
	$(CC) $(SP_CFLAGS) -fsanitize=fuzzer $^ $(LDLIBS) -o $@
# the seed extractor: the test files' malformed documents, built by their own code
$(BUILD)/fuzz-seeds: SP_CFLAGS += -DSP_TEST_BIN='"$(abspath $(BIN))"' -DSP_TEST_DATA='"$(abspath data)"' \
	-DSP_TEST_TMP='"$(abspath $(BUILD))/tmp"' -DSP_TEST_FUZZ='"$(abspath tests/fuzz)"'
$(BUILD)/fuzz-seeds: $(SEEDS_SRC) tests/fuzz/seeds.h tests/support.c tests/test_problem_file.c tests/test_cli.c $(LIB)
	$(CC) $(SP_CFLAGS) $(SEEDS_SRC) tests/support.c $(LIB) $(TEST_LDLIBS) -o $@
fuzz: $(FUZZ_STAMP) $(BUILD)/fuzz-seeds
	$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) OPT="$(FUZZ_OPT)" $(FUZZ_BUILD)/fuzz_problem
	@rm -rf $(FUZZ_BUILD)/seeds && mkdir -p $(FUZZ_BUILD)/seeds $(FUZZ_BUILD)/corpus $(FUZZ_BUILD)/artifacts
	@$(BUILD)/fuzz-seeds $(FUZZ_BUILD)/seeds
	@for f in data/*.json data/studies/*.json; do cp "$$f" "$(FUZZ_BUILD)/seeds/data-$$(basename $$f)"; done
	cd $(FUZZ_BUILD) && ./fuzz_problem $(FUZZ_ARGS) -max_total_time=$(FUZZ_SECONDS) \
	  $(if $(filter-out 1,$(FUZZ_JOBS)),-jobs=$(FUZZ_JOBS) -workers=$(FUZZ_JOBS)) \
	  corpus seeds $(abspath tests/fuzz/corpus) $(abspath tests/fuzz/regress)

# The command-line suites under valgrind's memcheck: every symplan the tests start runs
# as valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99
# (tests/support.c), and a run with errors fails its test with valgrind's report.
VALGRIND_SUITES ?= @(cli|failures|plot|study)/*
VALGRIND_STAMP = $(BUILD)/.valgrind-ok
$(VALGRIND_STAMP): | $(DEPS_STAMP)
	@command -v valgrind >/dev/null 2>&1 || { \
	  echo "symplan: valgrind not found; installing it"; \
	  sudo=; [ "$$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq valgrind >/dev/null \
	    || { echo "symplan: could not install valgrind"; exit 1; }; }
	@touch $@
valgrind: $(TESTS) $(BIN) $(VALGRIND_STAMP)
	@mkdir -p $(BUILD)/tmp
	SP_TEST_VALGRIND=1 $(TESTS) --jobs 2 --filter '$(VALGRIND_SUITES)'

clean:
	rm -rf $(BUILD)

# The header dependencies of the objects built so far; an object built without its list
# (by an older Makefile) depends on every header, once.
DEP_OBJ = $(LIB_OBJ) $(PIC_OBJ) $(CMD_OBJ) $(TEST_OBJ) $(MPI_OWN_OBJ) $(BUILD)/tests/tsan/threads_main.o
DEP_FILES = $(wildcard $(DEP_OBJ:.o=.d))
$(filter-out $(DEP_FILES:.d=.o),$(wildcard $(DEP_OBJ))): $(HEADERS)
-include $(DEP_FILES)

# The command, both libraries with the soname's links, the public headers under
# include/symplan/ (their "lie/…" includes become "symplan/lie/…", so the one folder
# include/ is searched: <symplan/symplan.h>, <symplan/planner/api/sp_api.h>) and symplan.pc.
# The Python package (python/symplan/) goes to PREFIX/lib/python3/dist-packages/symplan,
# where it finds PREFIX/lib/libsymplan.so by its own place (python/symplan/_lib.py): no
# path is recorded, so a DESTDIR or a moved PREFIX keeps working.
PY_PACKAGE_DIR = $(PREFIX)/lib/python3/dist-packages/symplan
INCLUDE_REWRITE = s,^\#include "($(shell echo $(MODULES) | tr ' ' '|'))/,\#include "symplan/\1/,
install: $(LIB) $(SHLIB) $(BIN) $(MAN) symplan.h symplan.pc.in
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/symplan
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/symplan
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libsymplan.a
	install -m 755 $(SHLIB) $(DESTDIR)$(PREFIX)/lib/libsymplan.so.$(SP_VERSION)
	ln -sf libsymplan.so.$(SP_VERSION) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libsymplan.so
	for h in symplan.h $(PUBLIC_HEADERS); do \
	  install -d $(DESTDIR)$(PREFIX)/include/symplan/$$(dirname $$h) && \
	  sed -E '$(INCLUDE_REWRITE)' $$h > $(DESTDIR)$(PREFIX)/include/symplan/$$h && \
	  chmod 644 $(DESTDIR)$(PREFIX)/include/symplan/$$h || exit 1; done
	sed -e 's,@PREFIX@,$(PREFIX),' -e 's,@VERSION@,$(SP_VERSION),' symplan.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/symplan.pc
	install -d $(DESTDIR)$(PY_PACKAGE_DIR)
	install -m 644 python/symplan/*.py python/symplan/py.typed $(DESTDIR)$(PY_PACKAGE_DIR)/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 $(MAN) $(DESTDIR)$(PREFIX)/share/man/man1/symplan.1
