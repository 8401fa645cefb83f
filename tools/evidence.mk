# SPDX-License-Identifier: MIT
# evidence.mk: what the hardware says about each lesson.
#   make profile [STAGE=dir]  Nsight Compute counters of every variant of the stage (of every
#                             stage in STAGES without STAGE): a table, results/profile.csv
#                             (GPU and ncu; NCU_FLAGS=... is appended to ncu's options)
#   make sanitize             memcheck, racecheck, synccheck and initcheck over every variant
#                             and dtype of STAGES at awkward sizes, memcheck over the gpu suite:
#                             results/sanitize.txt (GPU and compute-sanitizer;
#                             SANITIZERS=memcheck,racecheck picks tools)
#   make sass STAGE=dir       the stage's SASS filtered to the lesson's instructions, with the
#                             bytes each thread keeps in flight (cuobjdump; SASS_FLAGS=-v adds
#                             the instructions themselves)
#   make evidence-selftest    the parsers of these tools on samples (tests/host/evidence.sh; no GPU)
# Without a GPU, or without ncu / compute-sanitizer / cuobjdump, a target says so in one line
# and its script exits 3. The scripts (tools/profile.sh, sanitize.sh, sass.sh) say how.

.PHONY: profile sanitize sass evidence-selftest

# STAGE=05_packed (or a comma list) picks stages for profile and sass; else STAGES
EVIDENCE_STAGES = $(if $(STAGE),$(subst $(comma),$(space),$(STAGE)),$(STAGES))
EVIDENCE_ENV = BUILD='$(BUILD)' RESULTS='$(RESULTS)' HAVE_GPU='$(HAVE_GPU)' ARCH='$(ARCH)' \
               CUDA_HOME='$(CUDA_HOME)'
# the baselines program is sanitized too when every stage is
EVIDENCE_BASELINES = $(if $(filter-out $(STAGES),$(ALL_STAGES)),,--baselines)

# Each target first checks the GPU and the tool (one line, exit 3), then builds what it
# runs, then runs it.
profile:
	@$(EVIDENCE_ENV) sh tools/profile.sh --need
	@$(MAKE) --no-print-directory $(addprefix $(BUILD)/,$(EVIDENCE_STAGES))
	@$(EVIDENCE_ENV) NCU_FLAGS='$(NCU_FLAGS)' sh tools/profile.sh $(EVIDENCE_STAGES)

sanitize:
	@$(EVIDENCE_ENV) sh tools/sanitize.sh --need
	@$(MAKE) --no-print-directory $(STAGE_BINS) $(BUILD)/baselines $(TEST_GPU)
	@$(EVIDENCE_ENV) SANITIZERS='$(SANITIZERS)' sh tools/sanitize.sh $(EVIDENCE_BASELINES) $(STAGES)

sass:
	@$(EVIDENCE_ENV) sh tools/sass.sh --need
	@$(MAKE) --no-print-directory $(addprefix $(BUILD)/,$(EVIDENCE_STAGES))
	@$(EVIDENCE_ENV) sh tools/sass.sh $(SASS_FLAGS) $(EVIDENCE_STAGES)

evidence-selftest:
	@BUILD=$(BUILD) sh tests/host/evidence.sh
