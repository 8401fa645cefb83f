# SPDX-License-Identifier: MIT
# results.mk: the plots and the generated README tables, from the results CSVs.
#   make plot       with a GPU, runs what has no results yet and draws results/plots/;
#                   without one, draws the committed reference run (plots/reference/)
#   make tables     refresh the README tables from plots/reference/
#   make reference  copy results/ into plots/reference/, redraw its images, refresh the tables

.PHONY: plot tables reference deps-plot

plot: deps-plot
ifeq ($(HAVE_GPU),yes)
	@[ -f $(RESULTS)/run.csv ] && [ -f $(RESULTS)/rows.csv ] && [ -f $(RESULTS)/softmax.csv ] || $(MAKE) run
	@[ -f $(RESULTS)/sweep.csv ] || $(MAKE) sweep
	sh plots/make_plots.sh $(RESULTS) $(RESULTS)/plots
else
	@echo "make plot: no GPU on this machine: drawing the committed reference run (plots/reference/)"
	sh plots/make_plots.sh plots/reference $(RESULTS)/plots
endif

deps-plot:
	@sh tools/require.sh gnuplot

tables:
	python3 tools/results_tables.py --results plots/reference --write

reference: deps-plot
	cp $(RESULTS)/*.csv plots/reference/
	sh plots/make_plots.sh plots/reference plots/reference
	$(MAKE) tables
