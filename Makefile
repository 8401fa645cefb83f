# SPDX-License-Identifier: MIT
# CUDA reduction, step by step.
#   make            build every stage, the baselines and the tools into build/ (CUDA toolkit and
#                   gcc; no CUnit, no installing)
#   make plot       the main job: build, run what has no results yet (GPU), draw results/plots/
#   make test       CUnit (installed with apt-get where it is missing and that works): build the
#                   suites, run the gpu suite (skipped without a GPU), then the host suite
#   make tests      build the two suites only
#   make run        every stage at its standard size, row sums and softmax over cols,
#                   and the real-world shapes                              -> results/*.csv
#                   (08_all_reduce: n = 2^18 .. 2^28 on every local GPU     -> results/allreduce.csv)
#   make sweep      full sums over n = 2^10 .. 2^28                        -> results/sweep.csv
#   make check      every stage's self-check only, standard and awkward sizes (GPU)
#   make clean
# More targets come from tools/*.mk: tables, reference (results.mk); profile, sanitize, sass
# (evidence.mk); assignment, grade (course.mk). README.md lists them all.
# Variables: STAGES=03_shuffle,04_block_reduce narrows run, sweep, check, test, profile,
#            sanitize, grade and assignment to those stages (default: all of them);
#            ARCH=sm_90 (default: the installed GPU, else a portable list);
#            CUNIT_PREFIX=/path/usr (an unpacked CUnit); CUDA_HOME=/usr/local/cuda.

CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(or $(shell command -v nvcc 2>/dev/null),/usr/local/cuda/bin/nvcc))
NVCC      := $(CUDA_HOME)/bin/nvcc
HOST_CC   ?= gcc
BUILD     := build
RESULTS   := results

comma := ,
empty :=
space := $(empty) $(empty)

# Every stage folder is built; STAGES picks the ones that are run, tested and graded.
ALL_STAGES := $(sort $(patsubst %/,%,$(wildcard [0-9][0-9]_*/)))
STAGES ?= $(ALL_STAGES)
override STAGES := $(strip $(subst $(comma),$(space),$(STAGES)))
ifneq ($(filter-out $(ALL_STAGES),$(STAGES)),)
  $(error STAGES=$(filter-out $(ALL_STAGES),$(STAGES)): no such stage; choose from $(ALL_STAGES))
endif

# GPU architecture: ARCH=sm_XY wins (or a list, ARCH=sm_75,sm_90); else the installed GPUs; else a
# portable list. The CUDA 12.0 .. 13.x toolkits all build sm_75 .. sm_90.
ifeq ($(origin ARCH),undefined)
  ARCH := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' .' | sed -n 's/^\([0-9][0-9]*[a-z]*\)$$/sm_\1/p' | sort -u)
endif
ARCH_LIST := $(sort $(subst $(comma),$(space),$(ARCH)))
ifneq ($(filter-out sm_%,$(ARCH_LIST)),)
  $(error ARCH=$(ARCH): expected sm_XY names such as sm_75 or sm_75,sm_90)
endif
ifneq ($(ARCH_LIST),)
  GENCODE := $(foreach a,$(ARCH_LIST:sm_%=%),\
                 -gencode arch=compute_$(a),code=[sm_$(a),compute_$(a)])
else
  # No GPU here: machine code for Turing (sm_75: T4, RTX 20xx), Ampere (sm_80: A100; sm_86: RTX 30xx,
  # A10, also run by sm_87 and sm_89: RTX 40xx, L4) and Hopper (sm_90). PTX for the lowest of them,
  # so the binary loads on every GPU from Turing on, and PTX for Hopper, which GPUs after it compile
  # at load time with the sm_90 paths (clusters) kept.
  GENCODE := -gencode arch=compute_75,code=[sm_75,compute_75] -gencode arch=compute_80,code=sm_80 \
             -gencode arch=compute_86,code=sm_86 -gencode arch=compute_90,code=[sm_90,compute_90]
endif
# ptxas reports every kernel that spills registers to local memory, for every architecture built
# (not named PTXAS_FLAGS: nvcc reads a variable of that name from its environment)
PTXAS_OPTIONS := -Xptxas -warn-spills

INCLUDES := -Icommon -Ibaselines
CFLAGS   := -std=c11 -O2 -pthread -Wall -Wextra -D_POSIX_C_SOURCE=200809L $(INCLUDES) -I$(CUDA_HOME)/include
NVFLAGS  := -O3 -lineinfo -std=c++17 $(GENCODE) $(PTXAS_OPTIONS) $(INCLUDES) -Xcompiler -Wall
# The toolkit's own libraries, found and remembered (rpath), so that a toolkit from Python wheels
# (CUDA_HOME=.../nvidia/cu13, README) links and runs without LD_LIBRARY_PATH; such a toolkit may
# ship libcublas.so.13 without the unversioned name.
CUDA_LIBDIR := $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/lib))
CUBLAS_LIB  := $(if $(wildcard $(CUDA_LIBDIR)/libcublas.so),-lcublas,$(if $(wildcard \
                 $(CUDA_LIBDIR)/libcublas.so.[0-9]*),-l:$(notdir $(firstword $(wildcard \
                 $(CUDA_LIBDIR)/libcublas.so.[0-9]*))),-lcublas))
LDFLAGS  := $(GENCODE) $(if $(CUDA_LIBDIR),-L$(CUDA_LIBDIR) -Xlinker -rpath=$(CUDA_LIBDIR))
LDLIBS   := $(CUBLAS_LIB) -lm -lpthread
# A stage that links more than the CUDA runtime and cuBLAS sets STAGE_LDLIBS_<dir> in its block
# at the end of this file (for example STAGE_LDLIBS_08_all_reduce := -lnccl); its program and
# the gpu suite, which links every stage, get them.
stage_ldlibs = $(foreach s,$(1),$(STAGE_LDLIBS_$(s)))

# ---- NCCL, for 08_all_reduce's nccl variant (and the gpu suite, which links every stage) ---------
# Found in NCCL_HOME=/path (include/nccl.h and lib/ or lib64/ with libnccl.so or libnccl.so.2),
# else in the CUDA toolkit, else in /usr (the distribution's libnccl-dev), else in the Python
# wheel nvidia-nccl-cu13 or -cu12 (as PyTorch installs it). Without it the nccl variant is left
# out and build/08_all_reduce says how to install it. NCCL_HOME= (empty) builds without NCCL.
nccl_at = $(if $(wildcard $(1)/include/nccl.h),$(firstword $(wildcard $(1)/lib64/libnccl.so* \
              $(1)/lib/libnccl.so* $(1)/lib/x86_64-linux-gnu/libnccl.so* $(1)/lib/aarch64-linux-gnu/libnccl.so*)))
ifeq ($(origin NCCL_HOME),undefined)
  NCCL_HOME := $(firstword $(foreach d,$(CUDA_HOME) /usr,$(if $(call nccl_at,$(d)),$(d))))
  ifeq ($(NCCL_HOME),)
    NCCL_HOME := $(shell python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null)
  endif
endif
NCCL_SO := $(if $(NCCL_HOME),$(call nccl_at,$(NCCL_HOME)))
ifneq ($(NCCL_SO),)
  NCCL_LIBDIR  := $(patsubst %/,%,$(dir $(NCCL_SO)))
  NCCL_CFLAGS  := -DHAVE_NCCL $(if $(filter-out /usr,$(NCCL_HOME)),-I$(NCCL_HOME)/include)
  # ahead of the toolkit's own -L and rpath: this NCCL, not another one the toolkit may hold;
  # for the host linker only, as nvlink would search the folder too (in /usr/lib it warns
  # about the static libpthread.a it cannot use)
  NCCL_LDFLAGS := -Xlinker -L$(NCCL_LIBDIR) -Xlinker -rpath=$(NCCL_LIBDIR)
  NCCL_LIB     := $(if $(wildcard $(NCCL_LIBDIR)/libnccl.so),-lnccl,-l:$(notdir $(NCCL_SO)))
endif
$(BUILD)/obj/08_all_reduce/%.o: NVFLAGS += $(NCCL_CFLAGS)
$(BUILD)/08_all_reduce $(BUILD)/test_gpu: LDFLAGS := $(NCCL_LDFLAGS) $(LDFLAGS)
$(BUILD)/08_all_reduce $(BUILD)/test_gpu: LDLIBS += $(NCCL_LIB)
# ---- end of NCCL ------------------------------------------------------------------------------

ifdef CUNIT_PREFIX
  CUNIT_CFLAGS := -I$(CUNIT_PREFIX)/include
  CUNIT_LIBS   := $(CUNIT_PREFIX)/lib/x86_64-linux-gnu/libcunit.a
else
  CUNIT_LIBS   := -lcunit
endif

COMMON_SRC := $(wildcard common/*.c)
COMMON_OBJ := $(COMMON_SRC:common/%.c=$(BUILD)/obj/common/%.o)
BASE_OBJ   := $(BUILD)/obj/baselines/baselines.o
STAGE_BINS := $(ALL_STAGES:%=$(BUILD)/%)
TEST_HOST  := $(BUILD)/test_host
TEST_GPU   := $(BUILD)/test_gpu

# The objects of one stage: each .cu of its folder on its own (the lesson file) and of its
# tuned/ folder where it has one (06, 07: one file a production path), and its main.c.
stage_objs = $(patsubst %.cu,$(BUILD)/obj/%.o,$(wildcard $(1)/*.cu $(1)/tuned/*.cu))
ALL_STAGE_OBJS := $(foreach s,$(ALL_STAGES),$(call stage_objs,$(s)))

# the sizes of make run / make sweep (sizes accept N, 2^K and comma lists)
SWEEP_N   := 2^10,2^11,2^12,2^13,2^14,2^15,2^16,2^17,2^18,2^19,2^20,2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28,1000,1000003,10000019,100000007
ROW_COLS  := 32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536
SOFT_COLS := 32,64,128,256,512,1000,1024,2048,4096,8192,16384,32768,65536
# timed repetitions of make run (the median of at least 20, DESIGN.md Timing)
RUN_FLAGS ?= --iters 30
# 08_all_reduce in make run: floats per GPU, on every local GPU        -> results/allreduce.csv
ALLREDUCE_SIZES := 2^18,2^19,2^20,2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28
# real-world [rows, cols]: LLM logits (vocabularies of 32000 .. 262144), attention rows, classifiers
SHAPES    := 1x262144 8x131072 32x128256 64x32000 256x151936 4096x50257 16384x4096 131072x128 2048x1000

.PHONY: FORCE all tools tests run sweep test check clean deps-test
.SECONDEXPANSION:
.DEFAULT_GOAL := all

# The tools' own rules and targets. Each adds its programs to TOOLS_BINS and any object
# the host tests link to TOOLS_LIB.
TOOLS_BINS :=
TOOLS_LIB  :=
HAVE_GPU   := $(shell nvidia-smi -L >/dev/null 2>&1 && echo yes)
include tools/results.mk tools/evidence.mk tools/course.mk

all: $(STAGE_BINS) $(BUILD)/baselines tools
tools: $(TOOLS_BINS)
tests: $(TEST_HOST) $(TEST_GPU)

# ---- objects --------------------------------------------------------------
$(BUILD)/obj/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(HOST_CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libcommon.a: $(COMMON_OBJ)
	ar rcs $@ $^

# one pattern rule builds every .cu of every stage and the baselines
$(BUILD)/obj/%.o: %.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%_main.o: %/main.c common/stage.h
	@mkdir -p $(@D)
	$(HOST_CC) $(CFLAGS) -c $< -o $@

# build/NN_name: the stage's objects, its main, the baselines and the common driver
$(STAGE_BINS): $(BUILD)/%: $$(call stage_objs,$$*) $(BUILD)/obj/%_main.o $(BASE_OBJ) $(BUILD)/libcommon.a
	$(NVCC) $(LDFLAGS) $^ -o $@ $(call stage_ldlibs,$*) $(LDLIBS)

$(BUILD)/baselines: $(BUILD)/obj/baselines_main.o $(BASE_OBJ) $(BUILD)/libcommon.a
	$(NVCC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# the gpu suite finds every stage through a generated table of descriptors
$(BUILD)/stages.list: FORCE | $(BUILD)/.
	@echo '$(ALL_STAGES)' | cmp -s - $@ || echo '$(ALL_STAGES)' > $@

$(BUILD)/registry.c: $(BUILD)/stages.list Makefile
	@{ echo '/* generated by make: every stage descriptor */'; echo '#include "stage.h"'; \
	   for s in $(ALL_STAGES); do echo "extern const stage_t stage_$$s;"; done; \
	   echo 'const stage_t *const all_stages[] = {'; \
	   for s in $(ALL_STAGES); do echo "    &stage_$$s,"; done; echo '    0};'; } > $@

$(BUILD)/.:
	@mkdir -p $@

# ---- tests ----------------------------------------------------------------
deps-test:
	@sh tools/require.sh cunit "$(CUNIT_PREFIX)"

HOST_TEST_OBJ := $(patsubst tests/host/%.c,$(BUILD)/obj/host/%.o,$(wildcard tests/host/*.c))
$(BUILD)/obj/host/%.o: tests/host/%.c | deps-test
	@mkdir -p $(@D)
	$(HOST_CC) $(CFLAGS) $(CUNIT_CFLAGS) -Itools -MMD -MP -c $< -o $@

$(TEST_HOST): $(HOST_TEST_OBJ) $(TOOLS_LIB) $(BUILD)/libcommon.a
	$(NVCC) $(LDFLAGS) $^ $(CUNIT_LIBS) -o $@ $(LDLIBS)

$(TEST_GPU): $(wildcard tests/gpu/*.c) $(BUILD)/registry.c $(ALL_STAGE_OBJS) $(BASE_OBJ) $(BUILD)/libcommon.a | deps-test
	@mkdir -p $(BUILD)/obj/gpu
	$(HOST_CC) $(CFLAGS) $(CUNIT_CFLAGS) -c tests/gpu/test_gpu.c -o $(BUILD)/obj/gpu/test_gpu.o
	$(HOST_CC) $(CFLAGS) $(CUNIT_CFLAGS) -c tests/gpu/test_allreduce.c -o $(BUILD)/obj/gpu/test_allreduce.o
	$(HOST_CC) $(CFLAGS) -c $(BUILD)/registry.c -o $(BUILD)/obj/gpu/registry.o
	$(NVCC) $(LDFLAGS) $(BUILD)/obj/gpu/test_gpu.o $(BUILD)/obj/gpu/test_allreduce.o $(BUILD)/obj/gpu/registry.o \
	    $(ALL_STAGE_OBJS) $(BASE_OBJ) $(BUILD)/libcommon.a $(CUNIT_LIBS) -o $@ $(call stage_ldlibs,$(ALL_STAGES)) $(LDLIBS)

# GPU_TEST_STAGES narrows the gpu suite to the chosen stages (the baselines run when all do)
test: tests $(STAGE_BINS) $(BUILD)/baselines tools
	GPU_TEST_STAGES='$(STAGES)' $(TEST_GPU)
	BUILD_DIR=$(BUILD) $(TEST_HOST)

# ---- runs -----------------------------------------------------------------
# has_op STAGE OP: true when the stage has variants of that op (its --list, column 2)
has_op = $(BUILD)/$(1) --list | awk '$$2=="$(2)"{f=1}END{exit !f}'

run: $(STAGE_BINS) $(BUILD)/baselines
	@mkdir -p $(RESULTS)
	rm -f $(RESULTS)/run.csv $(RESULTS)/rows.csv $(RESULTS)/softmax.csv $(RESULTS)/shapes.csv \
	    $(RESULTS)/allreduce.csv
	@set -e; for s in $(filter-out 08_all_reduce,$(STAGES)); do \
	    $(BUILD)/$$s $(RUN_FLAGS) --csv $(RESULTS)/run.csv; done
	@set -e; for s in $(STAGES); do \
	    if $(call has_op,$$s,rowsum); then \
	        $(BUILD)/$$s --op rowsum --cols $(ROW_COLS) $(RUN_FLAGS) --csv $(RESULTS)/rows.csv; fi; done
	@# a stage program times CUB beside its variants; cuBLAS gemv comes from the baselines program
	$(BUILD)/baselines --op rowsum --cols $(ROW_COLS) $(RUN_FLAGS) --csv $(RESULTS)/rows.csv
	@set -e; for s in $(STAGES); do \
	    if $(call has_op,$$s,softmax); then \
	        $(BUILD)/$$s --cols $(SOFT_COLS) $(RUN_FLAGS) --csv $(RESULTS)/softmax.csv; fi; done
	@set -e; for s in $(STAGES); do \
	    if $(BUILD)/$$s --list | awk '$$1=="dispatch"{f=1}END{exit !f}'; then \
	        for sh in $(SHAPES); do $(BUILD)/$$s --variant dispatch --rows $${sh%x*} --cols $${sh#*x} \
	            $(RUN_FLAGS) --csv $(RESULTS)/shapes.csv; done; fi; done
	@set -e; for sh in $(SHAPES); do $(BUILD)/baselines --op rowsum --rows $${sh%x*} --cols $${sh#*x} \
	    $(RUN_FLAGS) --csv $(RESULTS)/shapes.csv; done
	@case " $(STAGES) " in *" 08_all_reduce "*) \
	    $(BUILD)/08_all_reduce -n $(ALLREDUCE_SIZES) $(RUN_FLAGS) --csv $(RESULTS)/allreduce.csv;; esac

sweep: $(STAGE_BINS)
	@mkdir -p $(RESULTS)
	rm -f $(RESULTS)/sweep.csv
	@# 08_all_reduce's sum runs on every GPU: its rows go to allreduce.csv (make run), not here
	@set -e; for s in $(filter-out 08_all_reduce,$(STAGES)); do \
	    if $(call has_op,$$s,sum); then \
	        $(BUILD)/$$s --op sum -n $(SWEEP_N) --iters 30 --csv $(RESULTS)/sweep.csv; fi; done

check: $(STAGE_BINS) $(BUILD)/baselines
	@set -e; for s in $(STAGES) baselines; do \
	    $(BUILD)/$$s --check-only; \
	    if $(call has_op,$$s,sum); then \
	        $(BUILD)/$$s --check-only --op sum -n 1,2,31,33,1023,1025,65537,1000003; fi; \
	    if $(call has_op,$$s,allreduce); then \
	        $(BUILD)/$$s --check-only --op allreduce -n 1,2,31,33,1023,1025,65537,1000003; fi; \
	    if $(call has_op,$$s,rowsum); then \
	        $(BUILD)/$$s --check-only --op rowsum --rows 7 --cols 1,3,33,1025,65537; fi; \
	    if $(call has_op,$$s,softmax); then \
	        $(BUILD)/$$s --check-only --rows 37 --cols 1,3,33,1000,1025,20000,100000; \
	        $(BUILD)/$$s --check-only --rows 1 --cols 262144,262147; fi; \
	done; echo "make check: every stage passed"

clean:
	rm -rf $(BUILD) *.o

-include $(COMMON_OBJ:.o=.d) $(HOST_TEST_OBJ:.o=.d) $(ALL_STAGE_OBJS:.o=.d) $(BASE_OBJ:.o=.d)

# ---- stage blocks ---------------------------------------------------------
# A stage that needs rules of its own (STAGE_LDLIBS_<dir>, extra runs added as prerequisites
# of run, sweep or clean) adds one block below, opened and closed by a comment line naming it,
# and leaves the rules above alone.

