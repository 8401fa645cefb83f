# SPDX-License-Identifier: MIT
# results.mk: the plots, the README tables and BENCHMARKS.md, from the results CSVs, by
# build/results (tools/results*.c, the one reader of the CSVs).
#   make plot       with a GPU, runs what has no results yet and draws results/plots/;
#                   without one, draws the committed reference run (plots/reference/) there
#   make tables     rewrite the README tables and BENCHMARKS.md from plots/reference/
#   make reference  copy results/*.csv (and sanitize.txt) into plots/reference/, redraw its
#                   images, refresh the tables. 08's
#                   allreduce.csv becomes allreduce_<G>gpu.csv, one file per GPU count, so that
#                   runs on 2 and on 4 GPUs (from different machines) stand side by side.

RESULTS_SRC := $(wildcard tools/results_*.c)
RESULTS_OBJ := $(RESULTS_SRC:tools/%.c=$(BUILD)/obj/tools/%.o)
TOOLS_BINS  += $(BUILD)/results
TOOLS_LIB   += $(RESULTS_OBJ)

.PHONY: plot tables reference deps-plot

$(RESULTS_OBJ) $(BUILD)/obj/tools/results.o: $(BUILD)/obj/tools/%.o: tools/%.c
	@mkdir -p $(@D)
	$(HOST_CC) $(CFLAGS) -Itools -MMD -MP -c $< -o $@

$(BUILD)/results: $(BUILD)/obj/tools/results.o $(RESULTS_OBJ) $(BUILD)/libcommon.a
	$(HOST_CC) $^ -o $@ -lm -lpthread

# HAVE_GPU is set after this file is read: test it in the recipe, not with ifeq.
plot: $(BUILD)/results deps-plot
	@set -e; if [ "$(HAVE_GPU)" = yes ]; then \
	    missing=; \
	    for f in run rows softmax shapes; do [ -f $(RESULTS)/$$f.csv ] || missing=1; done; \
	    if [ -n "$$missing" ]; then $(MAKE) run; fi; \
	    if [ ! -f $(RESULTS)/sweep.csv ]; then $(MAKE) sweep; fi; \
	    echo "$(BUILD)/results plot $(RESULTS) $(RESULTS)/plots"; \
	    $(BUILD)/results plot $(RESULTS) $(RESULTS)/plots; \
	else \
	    echo "make plot: no GPU here: drawing the committed reference run (plots/reference/)"; \
	    echo "$(BUILD)/results plot plots/reference $(RESULTS)/plots"; \
	    $(BUILD)/results plot plots/reference $(RESULTS)/plots; \
	fi

deps-plot:
	@sh tools/require.sh gnuplot

tables: $(BUILD)/results
	$(BUILD)/results tables plots/reference --write

reference: $(BUILD)/results deps-plot
	@ls $(RESULTS)/*.csv >/dev/null 2>&1 || \
	    { echo "make reference: no $(RESULTS)/*.csv; run make run and make sweep on a GPU"; exit 2; }
	@set -e; for f in $(RESULTS)/*.csv $(wildcard $(RESULTS)/sanitize.txt); do \
	    if [ $${f##*/} != allreduce.csv ]; then echo "cp $$f plots/reference/"; \
	        cp $$f plots/reference/; continue; fi; \
	    awk -F, '/^#|^gpu,/ { head = head $$0 "\n"; next } \
	        { out = "plots/reference/allreduce_" $$6 "gpu.csv"; \
	          if (!(out in done)) { done[out]; printf "%s", head > out; print out } \
	          print > out }' $$f; done
	$(BUILD)/results plot plots/reference plots/reference
	$(BUILD)/results tables plots/reference --write

-include $(RESULTS_OBJ:.o=.d) $(BUILD)/obj/tools/results.d
