# SPDX-License-Identifier: MIT
# evidence.mk: what the hardware says about each lesson (maint/EVIDENCE_NOTES.md).
#   make profile [STAGE=dir]  Nsight Compute over every variant: a table, results/profile.csv
#   make sanitize             compute-sanitizer over every variant of STAGES: results/sanitize.txt
#   make sass STAGE=dir       the stage's SASS filtered to its lesson (SASS_FLAGS=-v: all of it)
#   make evidence-selftest    the scripts' parsers on samples (tests/host/evidence.sh; no GPU)
# Without a GPU or the tool, a target says so in one line (its script exits 3).

.PHONY: profile sanitize sass evidence-selftest

# STAGE=05_packed (or a comma list) picks stages for profile and sass; else STAGES
EVIDENCE_STAGES = $(if $(STAGE),$(subst $(comma),$(space),$(STAGE)),$(STAGES))
EVIDENCE_ENV = BUILD='$(BUILD)' RESULTS='$(RESULTS)' HAVE_GPU='$(HAVE_GPU)' ARCH='$(ARCH)' \
               CUDA_HOME='$(CUDA_HOME)'
# the baselines program is sanitized too when every stage is
EVIDENCE_BASELINES = $(if $(filter-out $(STAGES),$(ALL_STAGES)),,--baselines)

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
