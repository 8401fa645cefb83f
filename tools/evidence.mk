# SPDX-License-Identifier: MIT
# evidence.mk: what the hardware says about each lesson.
#   make profile    Nsight Compute on one variant: make profile STAGE=05_packed VARIANT=packed_sum
#   make sanitize   compute-sanitizer memcheck over the gpu suite, racecheck over the block reductions

.PHONY: profile sanitize

STAGE   ?= 05_packed
VARIANT ?= packed_sum
profile: $(BUILD)/$(STAGE)
	@mkdir -p $(RESULTS)
	ncu --clock-control none --set full -f -o $(RESULTS)/profile_$(STAGE)_$(VARIANT) \
	    $(BUILD)/$(STAGE) --variant $(VARIANT) --iters 1 --warmup 0
	@echo "open $(RESULTS)/profile_$(STAGE)_$(VARIANT).ncu-rep in Nsight Compute (ncu-ui)"

sanitize: $(TEST_GPU) $(STAGE_BINS)
	GPU_TEST_QUICK=1 compute-sanitizer --tool memcheck --error-exitcode 1 $(TEST_GPU)
	@set -e; for s in $(STAGES); do \
	    if $(call has_op,$$s,sum); then \
	        compute-sanitizer --tool racecheck --error-exitcode 1 $(BUILD)/$$s --check-only --op sum -n 100003; fi; \
	    if $(call has_op,$$s,rowsum); then \
	        compute-sanitizer --tool racecheck --error-exitcode 1 $(BUILD)/$$s --check-only --op rowsum --rows 4099 --cols 77; fi; \
	done
