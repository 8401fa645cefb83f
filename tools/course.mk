# SPDX-License-Identifier: MIT
# course.mk: the course kit (INSTRUCTORS.md tells the whole story).
#   make assignment [STAGES=...]       build/assignment/ and a tarball: each chosen stage's
#                                      solution regions stubbed, the answers left out
#   make grade [STAGES=...]            grade this tree on this GPU: a table and
#                                      build/grade/results.json (GRADE_FLAGS: the grader's flags)
#   make test-assignment [STAGES=...]  cut an assignment and build it for one architecture
#   make mutants [MUTANTS=a/b,c]       (GPU) every mutant of tests/mutants/ graded as a
#                                      submission must lose its stage's correctness
#   make test-mutants                  (no GPU) every mutant applies and its .cu compiles

.PHONY: assignment grade test-assignment mutants test-mutants

TOOLS_BINS += $(BUILD)/grader
TOOLS_LIB  += $(BUILD)/obj/tools/grade_lib.o

$(BUILD)/grader: tools/grade.c tools/grade.h tools/results.h $(BUILD)/obj/tools/results_read.o \
                 $(BUILD)/libcommon.a
	@mkdir -p $(@D)
	$(HOST_CC) $(CFLAGS) -Itools $< $(BUILD)/obj/tools/results_read.o $(BUILD)/libcommon.a -o $@ -lm

# the grader without its main, for the host tests
$(BUILD)/obj/tools/grade_lib.o: tools/grade.c tools/grade.h tools/results.h
	@mkdir -p $(@D)
	$(HOST_CC) $(CFLAGS) -Itools -DCOURSE_LIB -c $< -o $@

assignment:
	@sh tools/assignment.sh '$(BUILD)' '$(STAGES)'

# The grader needs a GPU (it says so, exit 3, before anything is built). The programs are
# relinked from scratch with -k: a stage that does not compile fails its own tests (with the
# compiler's errors), and no program left over from an earlier build is ever graded.
GRADE_FLAGS ?=
# compute-sanitizer of the toolkit that builds, where it has one (else the grader looks on PATH)
GRADE_SANITIZER = $(if $(wildcard $(CUDA_HOME)/bin/compute-sanitizer),\
                    --compute-sanitizer $(CUDA_HOME)/bin/compute-sanitizer)
grade: $(BUILD)/grader
	@$(BUILD)/grader --probe --out $(BUILD)/grade $(GRADE_SANITIZER) $(GRADE_FLAGS)
	@rm -f $(addprefix $(BUILD)/,$(STAGES)) $(TEST_GPU)
	@echo "make grade: building the stages and the gpu suite (log: $(BUILD)/grade/build.log)"
	@$(MAKE) --no-print-directory -k $(addprefix $(BUILD)/,$(STAGES)) $(TEST_GPU) \
	    >$(BUILD)/grade/build.log 2>&1 || echo "make grade: part of the build FAILED;" \
	    "grading what built (the errors: $(BUILD)/grade/build.log)"
	$(BUILD)/grader --stages '$(STAGES)' --build $(BUILD) --out $(BUILD)/grade \
	    --build-log $(BUILD)/grade/build.log $(GRADE_SANITIZER) $(GRADE_FLAGS)

# Not in the host suite (a minute of nvcc on two cores); CI runs it.
test-assignment: assignment
	$(MAKE) -C $(BUILD)/assignment --no-print-directory BUILD=build ARCH=$(or $(ARCH),sm_90) all
	@echo "make test-assignment: the assignment ($(STAGES)) builds with nvcc"

# MUTANTS: NN_stage/NAME or NN_stage, comma separated; MUTANT_JOBS (environment): how many
# mutants are graded at a time.
MUTANTS ?=
mutants: $(BUILD)/grader
	@BUILD='$(BUILD)' $(if $(CUNIT_PREFIX),CUNIT_PREFIX='$(CUNIT_PREFIX)') \
	    sh tests/mutants/run.sh $(subst $(comma),$(space),$(MUTANTS))

test-mutants:
	@NVCC='$(NVCC)' ARCH='$(or $(firstword $(ARCH_LIST)),sm_90)' sh tests/mutants/run.sh --check
