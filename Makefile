# symplan — build, test, run, bench, install.
# On a fresh Debian machine `make run` and `make test` install the dependencies
# they need (NLopt, LAPACKE, cJSON, Criterion) through apt-get first.

CC      ?= cc
PREFIX  ?= /usr/local
BUILD   ?= build
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
SP_CFLAGS = -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L $(CFLAGS)
LDLIBS  = -lnlopt -llapacke -lcjson -lm
TEST_LDLIBS = -lcriterion $(LDLIBS)

MODULES  = lie integrators problems planner
# The command's own files: main.c and one cmd_<name>.c per subcommand.
CMD_SRC  = planner/main.c $(wildcard planner/cmd_*.c)
CMD_OBJ  = $(CMD_SRC:%.c=$(BUILD)/%.o)
LIB_SRC  = $(filter-out $(CMD_SRC),$(wildcard $(addsuffix /*.c,$(MODULES))))
LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC = $(wildcard tests/*.c)
TEST_OBJ = $(TEST_SRC:%.c=$(BUILD)/%.o)
BENCH_SRC = $(wildcard bench/*.c)
HEADERS  = $(wildcard $(addsuffix /*.h,$(MODULES)))
PUBLIC_HEADERS = $(wildcard $(addsuffix /sp_*.h,$(MODULES)))

LIB   = $(BUILD)/libsymplan.a
BIN   = $(BUILD)/symplan
TESTS = $(BUILD)/symplan-tests
BENCH = $(BUILD)/symplan-bench
DEPS_STAMP = $(BUILD)/.deps-ok

.PHONY: all test run bench asan clean install deps mpi
all: $(LIB) $(BIN)

# Dependencies: a header that does not compile means its Debian package is missing.
DEP_HEADERS = nlopt.h lapacke.h cjson/cJSON.h criterion/criterion.h
DEP_PACKAGES = libnlopt-dev liblapacke-dev libcjson-dev libcriterion-dev
deps: $(DEPS_STAMP)
$(DEPS_STAMP):
	@mkdir -p $(BUILD)
	@missing=; for h in $(DEP_HEADERS); do \
	  printf '#include <%s>\n' $$h | $(CC) -E -x c - >/dev/null 2>&1 || missing="$$missing $$h"; done; \
	if [ -n "$$missing" ]; then \
	  echo "symplan: missing headers:$$missing; installing $(DEP_PACKAGES)"; \
	  sudo=; [ "$$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $(DEP_PACKAGES) >/dev/null \
	    || { echo "symplan: could not install $(DEP_PACKAGES)"; exit 1; }; \
	fi
	@touch $@

$(BUILD)/%.o: %.c $(HEADERS) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(SP_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BIN): $(CMD_OBJ) $(LIB)
	$(CC) $(SP_CFLAGS) $^ $(LDLIBS) -o $@

# The tests find the command and the data through these paths.
$(BUILD)/tests/%.o: SP_CFLAGS += -DSP_TEST_BIN='"$(abspath $(BIN))"' -DSP_TEST_DATA='"$(abspath data)"' \
	-DSP_TEST_TMP='"$(abspath $(BUILD))/tmp"'
$(TESTS): $(TEST_OBJ) $(LIB)
	$(CC) $(SP_CFLAGS) $^ $(TEST_LDLIBS) -o $@

# (the MPI command too, once `make mpi` has built it: its test must not run a stale one)
test: $(TESTS) $(BIN) $(wildcard $(BUILD)/symplan-mpi)
	@mkdir -p $(BUILD)/tmp
	$(TESTS) --jobs 2

# `make mpi`: build/symplan-mpi, the command with MPI studies (mpirun -n K … study …),
# after installing Open MPI through apt-get when mpicc, mpi.h or mpirun is missing. Only
# the study subcommand differs (compiled with -DSP_HAVE_MPI); the library is shared.
MPICC ?= mpicc
MPI_PACKAGES = libopenmpi-dev openmpi-bin
MPI_BIN = $(BUILD)/symplan-mpi
MPI_STAMP = $(BUILD)/.mpi-deps-ok
MPI_CMD_OBJ = $(filter-out $(BUILD)/planner/cmd_study.o,$(CMD_OBJ)) $(BUILD)/mpi/planner/cmd_study.o
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
$(BUILD)/mpi/planner/cmd_study.o: planner/cmd_study.c $(HEADERS) | $(MPI_STAMP)
	@mkdir -p $(dir $@)
	OMPI_CC=$(CC) $(MPICC) $(SP_CFLAGS) -DSP_HAVE_MPI -c $< -o $@
$(MPI_BIN): $(MPI_CMD_OBJ) $(LIB)
	OMPI_CC=$(CC) $(MPICC) $(SP_CFLAGS) $^ $(LDLIBS) -o $@

run: $(BIN)
	$(BIN) solve data/sphere_interpolation.json -o $(BUILD)/sphere_interpolation.result.json --summary

$(BENCH): $(BENCH_SRC) $(LIB)
	$(CC) $(SP_CFLAGS) $^ $(LDLIBS) -o $@

bench: $(BENCH)
	$(BENCH)

# The test suite under AddressSanitizer and UndefinedBehaviorSanitizer, in its own tree.
asan: | $(DEPS_STAMP)
	$(MAKE) BUILD=$(BUILD)/asan OPT="-O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" test

clean:
	rm -rf $(BUILD)

install: $(LIB) $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/symplan
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libsymplan.a
	for h in $(PUBLIC_HEADERS); do install -D -m 644 $$h $(DESTDIR)$(PREFIX)/include/symplan/$$h; done
	printf 'prefix=%s\nlibdir=$${prefix}/lib\nincludedir=$${prefix}/include/symplan\n\nName: symplan\nDescription: Trajectory planning on Lie groups with structure-preserving integrators\nVersion: 0.1.0\nLibs: -L$${libdir} -lsymplan\nLibs.private: $(LDLIBS)\nCflags: -I$${includedir}\n' \
	  '$(PREFIX)' > $(DESTDIR)$(PREFIX)/lib/pkgconfig/symplan.pc
