# attention-qkv: an experiment suite reproducing the claims of section 4.2
# ("queries, keys and values"). `make help` lists the targets.

# The claims, in the catalogue's order: the registry's rows (experiments/registry.tsv,
# the one place that names them; tools/make/registry.sh).
IDS := $(shell sh tools/make/registry.sh ids)
# Only the experiments whose source exists are built (the suite grows by issue).
EXPERIMENTS := $(filter $(basename $(notdir $(wildcard experiments/*.c))),$(IDS))

# The output folder of make reproduce / make figures: OUT given on the make
# command line only (make reproduce OUT=DIR). An OUT exported by the shell is
# ignored: it must not redirect, or prune, anything.
OUT_GIVEN := $(filter command line,$(origin OUT))
override OUT := $(if $(OUT_GIVEN),$(OUT),results)
# FORCE=1 (command line): reproduce into a non-empty folder without a manifest
override FORCE := $(if $(filter command line,$(origin FORCE)),$(FORCE),0)
# ONLY="ID ..." (command line): a quick reproduce of those experiments, their
# figures and a report of them, into a private OUT (never results/); no
# robustness table, explorer, handout or slides.
override ONLY := $(if $(filter command line,$(origin ONLY)),$(strip $(ONLY)),)
ifneq ($(filter-out $(IDS),$(ONLY)),)
$(error ONLY: unknown experiment(s) '$(filter-out $(IDS),$(ONLY))'; the IDs are: $(IDS))
endif
# DRAWS=N (command line): a quicker reproduce into a private OUT (never results/, whose numbers
# are the experiments' defaults): every experiment that takes --draws runs with --draws N, the
# others at their defaults (tests/test_reproduce_out.sh: ONLY=concentration DRAWS=200)
override DRAWS := $(if $(filter command line,$(origin DRAWS)),$(strip $(DRAWS)),)
# Build products; a developer may use private ones: make BUILD=build-x BIN=bin-x
BUILD   ?= build
BIN     ?= bin
CC      ?= cc
OPT     ?= -O2
SAN     ?=
# The project's flags are not replaceable from the command line:
# `make CFLAGS+=-O3` or `make EXTRA_CFLAGS=...` add to them.
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
# lib/ in layers: math (the section's mathematics, plainly), fast (the fast
# path: the tiled head and its vectorized exp), run (the machinery that
# runs experiments), claims (helpers for one claim or the explorer).
INCLUDES := -Ilib/math -Ilib/fast -Ilib/run -Ilib/claims
override CFLAGS := -std=c11 $(OPT) -g $(WARN) -D_GNU_SOURCE -fopenmp $(INCLUDES) \
           -MMD -MP $(SAN) $(CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS := -fopenmp $(SAN)

# Libraries through pkg-config. GSL's BLAS calls go to OpenBLAS when it is
# installed (about 8x faster here), otherwise to GSL's reference gslcblas.
GSL_CFLAGS  := $(shell pkg-config --cflags gsl 2>/dev/null)
GSL_LIBS    := $(filter-out -lgslcblas,$(shell pkg-config --libs gsl 2>/dev/null))
BLAS_LIBS   := $(shell pkg-config --exists openblas 2>/dev/null && pkg-config --libs openblas || echo -lgslcblas)
CHECK_LIBS  := $(shell pkg-config --libs check 2>/dev/null)
CURSES_LIBS := $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw)
LIBS        := $(GSL_LIBS) $(BLAS_LIBS) -lm

# The terminal front end of the explorer needs ncurses; only its program links it.
TUI_SRC  := lib/claims/explorer_tui.c
LIB_SRC  := $(filter-out $(TUI_SRC),$(wildcard lib/*/*.c))
LIB_OBJ  := $(patsubst lib/%.c,$(BUILD)/lib/%.o,$(LIB_SRC))
LIB_A    := $(BUILD)/libattn.a
# tools/ by purpose (doc/layout.md): each program tools/[FOLDER/]NAME.c is built as
# $(BUILD)/tools/NAME; tools/lib/ is their own library (libtools.a: the CSV readers),
# which only the tools and the tests link.
TOOLS_LIB_SRC := $(wildcard tools/lib/*.c)
TOOLS_LIB_OBJ := $(patsubst tools/lib/%.c,$(BUILD)/tools/lib/%.o,$(TOOLS_LIB_SRC))
TOOLS_A  := $(BUILD)/libtools.a
TOOL_SRC := $(filter-out tools/lib/%,$(wildcard tools/*.c tools/*/*.c))
TOOLS    := $(basename $(notdir $(TOOL_SRC)))
TESTS    := $(basename $(notdir $(wildcard tests/test_*.c)))
# the lecture figures, each FIGURE:ID (the registry's figures column)
FIGURE_OF := $(shell sh tools/make/registry.sh figures)
PLOTS    := $(foreach fp,$(FIGURE_OF),$(word 1,$(subst :, ,$(fp))))
CHECK_PLOTS := $(basename $(notdir $(wildcard plots/checks/*.gp)))
ifneq ($(ONLY),)
EXPERIMENTS := $(filter $(ONLY),$(EXPERIMENTS))
PLOTS       := $(foreach id,$(EXPERIMENTS),$(filter $(id) $(id)_%,$(PLOTS)))
CHECK_PLOTS := $(foreach id,$(EXPERIMENTS),$(filter $(id) $(id)_%,$(CHECK_PLOTS)))
endif

.PHONY: all check check-all reproduce reproduce-long figures report verify bench sanitize valgrind fuzz \
        deps python clean help tests mpi experiments grade autograder
.DELETE_ON_ERROR:

all: $(addprefix $(BIN)/,$(EXPERIMENTS)) $(addprefix $(BUILD)/tools/,$(TOOLS)) ## build the library, one bin/<ID> per claim, and the tools

experiments: $(addprefix $(BIN)/,$(EXPERIMENTS))

# The MPI programs: the same sources through mpicc with -DATT_MPI (lib/run/par.h),
# library objects in build-mpi/, programs in bin-mpi/ (run: mpirun -np N bin-mpi/<ID>).
# The plain build above never sees mpi.h or libmpi.
mpi: ## build every experiment for MPI into bin-mpi/ (mpirun -np N bin-mpi/<ID> ...)
	@sh tools/deps.sh mpi
	@$(MAKE) --no-print-directory experiments BUILD=build-mpi BIN=bin-mpi CC=mpicc \
	    EXTRA_CFLAGS="$(EXTRA_CFLAGS) -DATT_MPI"

# (only this Makefile is read: MAKEFILE_LIST also holds the build/*.d files)
help: ## list every target with what it does
	@awk -f tools/make/make_help.awk $(firstword $(MAKEFILE_LIST))

deps: ## install (as root) or name the missing Debian packages; says what it checked
	@sh tools/deps.sh --say

# Debian's /usr/bin/python3 first: the interpreter deps.sh gives python3-numpy
# (a pyenv, conda or virtualenv python3 first on PATH often has no NumPy)
python: ## print the Python 3 that has NumPy, for your own checks (Debian's /usr/bin/python3)
	@PYTHON="$${PYTHON:-/usr/bin/python3}" sh tools/python.sh numpy

$(BUILD)/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(GSL_CFLAGS) -c $< -o $@

# The claims registry, compiled in (lib/run/registry.h).
$(BUILD)/registry.inc: experiments/registry.tsv tools/make/registry.sh
	@mkdir -p $(@D)
	sh tools/make/registry.sh c >$@.tmp && mv $@.tmp $@
$(BUILD)/lib/run/registry.o: $(BUILD)/registry.inc
$(BUILD)/lib/run/registry.o: override CFLAGS += -I$(BUILD)

$(LIB_A): $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BIN)/%: experiments/%.c $(LIB_A) | $(BIN)
	$(CC) $(CFLAGS) -MF $(BUILD)/$*.d $(GSL_CFLAGS) $< $(if $(filter two_queries_four_keys,$*),$(TUI_SRC)) -o $@ $(LDFLAGS) $(LIB_A) $(LIBS) $(if $(filter two_queries_four_keys,$*),$(CURSES_LIBS))

$(BUILD)/tools/lib/%.o: tools/lib/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itools/lib $(GSL_CFLAGS) -c $< -o $@

$(TOOLS_A): $(TOOLS_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

# $(BUILD)/tools/NAME from its source, wherever in tools/ it is
$(foreach s,$(TOOL_SRC),$(eval $(BUILD)/tools/$(basename $(notdir $(s))): $(s)))
$(addprefix $(BUILD)/tools/,$(TOOLS)): $(TOOLS_A) $(LIB_A) | $(BUILD)/tools
	$(CC) $(CFLAGS) -Itools/lib $(GSL_CFLAGS) $(filter %.c,$^) -o $@ $(LDFLAGS) $(TOOLS_A) $(LIB_A) $(LIBS)

# bin/attention is a user tool, built from tools/attention.c.
$(BIN)/attention: $(BUILD)/tools/attention | $(BIN)
	cp $< $@
ifneq ($(wildcard tools/attention.c),)
all: $(BIN)/attention
endif

$(BUILD)/tests/%: tests/%.c $(TOOLS_A) $(LIB_A) | $(BUILD)/tests
	$(CC) $(CFLAGS) -Itools/lib $(GSL_CFLAGS) $(shell pkg-config --cflags check 2>/dev/null) $< -o $@ $(LDFLAGS) $(TOOLS_A) $(LIB_A) $(CHECK_LIBS) $(LIBS)

tests: $(addprefix $(BUILD)/tests/,$(TESTS))

# make check: the unit and property suites and the fast end-to-end tests;
# make check-all adds the slow end-to-end suites below (CI runs it). Suites
# run TEST_JOBS at a time (default: the cores; tools/test/run_tests.sh), the
# longest first. Each suite prints one line: name, what it checks, time; its
# output is in $(BUILD)/test-logs/ (VERBOSE=1 shows it, one suite at a time).
# The build inside runs as a sub-make ('+'), so make -j2 check builds in parallel.
SLOW_TESTS  := tests/test_bad_inputs.sh tests/test_mpi.sh tests/test_browser.sh \
               tests/test_verify.sh tests/test_threads.sh tests/test_docs.sh tests/test_reproduce_long.sh
# make sanitize runs check-all with these slow ones (what make check held
# before the split); verify and threads test determinism, not memory, and MPI
# runs bin-mpi/, which is never sanitized (its single-process references are
# test_experiments.sh's sanitized runs), so check-all's run of it is enough.
SAN_SLOW_TESTS := tests/test_bad_inputs.sh tests/test_browser.sh
# ... and without the suites that run none of the project's compiled code, or
# only programs test_experiments.sh and test_attention.sh already run under the
# sanitizers (make help, include layers, registry, deps.sh, figure text layout,
# the Python grader): their verdict is make check's, the same under ASan.
SAN_SKIP_TESTS := tests/test_help.sh tests/test_layers.sh tests/test_registry.sh tests/test_deps.sh \
                  tests/test_layout.sh tests/test_glyphs.sh tests/test_grade.sh tests/test_grade_hostile.sh tests/test_autograder.sh
SKIP_TESTS  ?=
LATER_TESTS  = $(filter $(wildcard tests/test_*.sh),$(SLOW_TESTS))
CHECK_SUITES = $(addprefix $(BUILD)/tests/,$(TESTS)) $(filter-out $(SLOW_TESTS) $(SKIP_TESTS),$(wildcard tests/test_*.sh))
RUN_TESTS    = ATT_BIN_DIR=$(BIN) BUILD=$(BUILD) sh tools/test/run_tests.sh --logs $(BUILD)/test-logs \
               --build "$(MAKE) --no-print-directory tests all"
check: deps ## build, then every unit and property test and the fast end-to-end tests, two at a time (about 60 s of CPU; more on a slower or busy machine)
	@+$(RUN_TESTS) --later "$(LATER_TESTS)" $(CHECK_SUITES)
# check-all: ATT_CHECK_ALL=1 also runs the exhaustive variants that make check samples (every
# known-wrong grader file, every size option with every value, the whole self-weight sweep,
# the committed figures' layout)
check-all: deps ## make check with every variant, plus the slow end-to-end suites: bad inputs, MPI, Chromium, verify, threads (about 10 min of CPU: 5 to 6 min on 2 idle cores)
	@+ATT_CHECK_ALL=1 $(RUN_TESTS) $(CHECK_SUITES) $(LATER_TESTS)

# ---- reproduce: every experiment, every figure, the claims report ---------

# An experiment's verdict file is written last, so it stands for the whole run.
# Exit 1 (some verdict FAIL) is a result, not a build error.
# Each prints one line as it finishes: its name, time and verdicts.
$(OUT)/%.verdicts.csv: $(BIN)/% $(BUILD)/tools/csvcol | $(OUT)/figures
	@sh tools/reproduce/run_one.sh $* $(BIN) $(OUT) $(BUILD) $(if $(DRAWS),--draws "$(DRAWS)")

# Figures: plots/<name>.gp renders into $(OUT)/figures/<name>.{pdf,svg,png} and
# depends on its script and on the run of the claim whose registry row lists it
# (the figures column; sh tools/make/registry.sh figures).
# Lecture figures come from plots/*.gp, check-oriented plots (tolerances,
# rule lines, rounding errors) from plots/checks/*.gp into figures/checks/.
$(OUT)/figures/%.pdf $(OUT)/figures/%.svg $(OUT)/figures/%.png: plots/%.gp plots/style.gnuplot tools/report/render.sh
	@sh tools/report/render.sh $< $(OUT) $*
$(OUT)/figures/checks/%.pdf $(OUT)/figures/checks/%.svg $(OUT)/figures/checks/%.png: plots/checks/%.gp plots/style.gnuplot tools/report/render.sh
	@sh tools/report/render.sh $< $(OUT) $*
# (a check plot plots/checks/<ID>[_part].gp belongs to experiment <ID>)
define plot_deps
$(OUT)/figures/$(1).pdf $(OUT)/figures/$(1).svg $(OUT)/figures/$(1).png: $(OUT)/$(2).verdicts.csv
endef
$(foreach fp,$(FIGURE_OF),$(eval $(call plot_deps,$(word 1,$(subst :, ,$(fp))),$(word 2,$(subst :, ,$(fp))))))
define check_plot_deps
$(foreach p,$(filter $(1) $(1)_%,$(CHECK_PLOTS)),$(OUT)/figures/checks/$(p).pdf $(OUT)/figures/checks/$(p).svg $(OUT)/figures/checks/$(p).png): $(OUT)/$(1).verdicts.csv
endef
$(foreach id,$(IDS),$(eval $(call check_plot_deps,$(id))))

FIGURES := $(foreach p,$(PLOTS),$(OUT)/figures/$(p).png $(OUT)/figures/$(p).svg $(OUT)/figures/$(p).pdf) \
           $(foreach p,$(CHECK_PLOTS),$(OUT)/figures/checks/$(p).png $(OUT)/figures/checks/$(p).svg $(OUT)/figures/checks/$(p).pdf)
VERDICTS := $(foreach id,$(EXPERIMENTS),$(OUT)/$(id).verdicts.csv)

# The robustness table: each headline number under 5 seeds and 2 generators.
ROBUST := $(if $(ONLY),,$(if $(wildcard tools/report/robustness.sh),$(OUT)/robustness.md))
# It reruns the programs into folders of its own: it needs the programs, not the experiments'
# runs, so it starts with them, and it is rewritten whenever it is asked for (make reproduce,
# make verify), like the runs.
.PHONY: robustness-rerun
$(OUT)/robustness.md: $(addprefix $(BIN)/,$(EXPERIMENTS)) tools/report/robustness.sh robustness-rerun | $(OUT)/figures
	@sh tools/report/robustness.sh $(OUT) $(BIN)

$(OUT)/claims.csv: $(VERDICTS) $(ROBUST) $(BUILD)/tools/report
	@$(BUILD)/tools/report --out $(OUT) $(EXPERIMENTS)
	@sh tools/report/readme_sync.sh $(OUT)

# make reproduce reruns every experiment, whatever the timestamps say (a
# results/ edited by hand, or written by a run by hand with --out results, is
# replaced), then renders the figures, writes the report and, where TeX is
# installed, the handout and the slides. Its first line names the folder; a
# non-empty folder that an earlier reproduce did not write (no manifest) is
# refused (tools/reproduce/prune_results.sh), and at the end only files the previous
# reproduce wrote (its manifest: inode, size, path, as each writer recorded
# them) and this one did not are removed, never through a symlink.
# Two phases. The experiments that time themselves (TIMED) run first, alone, one after
# another: their times must not share the cores. Then everything else is one make -j graph
# (reproduce-rest), so no core waits at a barrier: the other experiments side by side (their
# numbers do not depend on the threads they get), the robustness reruns, each figure as soon as
# its experiment is done, the explorer's screenshot, then the report and the four documents.
# The experiments start longest first, by the CPU seconds each took in this build's last
# reproduce (run_one.sh records them in $(BUILD)/reproduce-cpu/; tools/reproduce/order.sh),
# so that the short ones fill the cores at the end; without a record, the registry's run
# column (first) and then its order.
REPRODUCE_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# (the registry's column run says which: timed, first)
TIMED := $(shell sh tools/make/registry.sh with run timed)
FIRST := $(shell sh tools/make/registry.sh with run first)
UNTIMED_VERDICTS := $(foreach id,$(shell sh tools/reproduce/order.sh $(BUILD) $(filter $(FIRST),$(EXPERIMENTS)) \
                      $(filter-out $(TIMED) $(FIRST),$(EXPERIMENTS))),$(OUT)/$(id).verdicts.csv)
TIMED_VERDICTS := $(foreach id,$(filter $(TIMED),$(EXPERIMENTS)),$(OUT)/$(id).verdicts.csv)
# Every program and script step records each file it writes, as it writes it
# (ATT_WRITE_LOG, lib/run/afile.h, tools/reproduce/written.sh): the manifest is built from
# that record, never from a scan of the folder, so a file of yours saved there
# meanwhile is never taken for the suite's. build/tools/recover (built by make all)
# first finishes or undoes a killed run's release in the folder.
reproduce: export ATT_WRITE_LOG = $(abspath $(OUT))/.reproduce-written
reproduce: ## install what is missing, rerun every experiment, render every figure, write the report, handout and slides (OUT=DIR elsewhere, ONLY="ID ..." a few, DRAWS=N fewer draws)
	@ONLY="$(ONLY)" DRAWS="$(DRAWS)" sh tools/reproduce/prune_results.sh begin "$(OUT)" "$(FORCE)"
	@sh tools/deps.sh
	@$(MAKE) --no-print-directory all
	@BUILD="$(BUILD)" sh tools/reproduce/prune_results.sh open "$(OUT)"
	@rm -f $(VERDICTS) $(OUT)/claims.csv
	@echo "reproduce: $(words $(EXPERIMENTS)) experiments, then figures and the report"
	@$(if $(TIMED_VERDICTS),$(MAKE) --no-print-directory $(TIMED_VERDICTS),:)
	@$(MAKE) --no-print-directory -j$(REPRODUCE_JOBS) reproduce-rest
	@sh tools/reproduce/prune_results.sh end "$(OUT)"

# the second phase of make reproduce (above): the robustness reruns first (about 12 CPU s in
# runs of 0.6 s or less), then the experiments longest first; the figures, the report and the
# documents after them, each as soon as what it reads is there
.PHONY: reproduce-rest
reproduce-rest: $(ROBUST) $(UNTIMED_VERDICTS) figures-report
	@+if [ -n "$(ONLY)" ]; then echo "reproduce: ONLY=\"$(ONLY)\": no robustness table, explorer, handout or slides"; \
	 elif command -v pdflatex >/dev/null 2>&1; then $(DOC_MAKE) all; \
	 else echo "reproduce: pdflatex not found: handout and slides not rebuilt (make handout installs TeX)"; fi

# make reproduce-long: long_sequences' section-scale crossings (c = 1, d_k = 16 and 4) with the
# draws that reach +-10% (experiments/long_sequences.c, LONG_DRAWS_*; about 15 min on 2 idle cores),
# too slow for make reproduce. Writes $(OUT)/long/ (the same file set as the default run, macros
# ending in Long) with its own manifest (tools/reproduce/prune_results.sh), all or nothing; then, when
# $(OUT) holds a report, rewrites it so claims.csv/md/tex carry the long rows (tools/report/report.c
# reads $(OUT)/long/<ID>.verdicts.csv when it exists). make verify compares it only with LONG=1.
# LONG_DRAWS=N (command line): N draws per configuration instead, for a quick check of the target
override LONG_DRAWS := $(if $(filter command line,$(origin LONG_DRAWS)),$(LONG_DRAWS),)
LONG_IDS = $(foreach id,$(EXPERIMENTS),$(if $(wildcard $(OUT)/$(id).verdicts.csv),$(id)))
reproduce-long: export ATT_WRITE_LOG = $(abspath $(OUT))/long/.reproduce-written
reproduce-long: ## long_sequences at the section's scale (c = 1) with the draws chosen for a +-10% CI on T* (about 15 min, doc/long_run.md): writes results/long/, then the report (OUT=DIR elsewhere)
	@sh tools/reproduce/prune_results.sh begin "$(OUT)/long" "$(FORCE)"
	@$(MAKE) --no-print-directory $(BIN)/long_sequences $(BUILD)/tools/csvcol $(BUILD)/tools/report $(BUILD)/tools/recover
	@BUILD="$(BUILD)" sh tools/reproduce/prune_results.sh open "$(OUT)/long"
	@echo "reproduce-long: long_sequences --long into $(OUT)/long ($(if $(LONG_DRAWS),$(LONG_DRAWS) draws per configuration,section: 17,000,000 draws, narrow: 411,000; about 15 min on 2 idle cores))"
	@sh tools/reproduce/run_one.sh long_sequences $(BIN) "$(OUT)/long" $(BUILD) --long --max-memory 8G $(if $(LONG_DRAWS),--draws $(LONG_DRAWS))
	@if [ -f "$(OUT)/claims.csv" ]; then echo "reproduce-long: rewriting the report in $(OUT)"; \
	  $(BUILD)/tools/report --out "$(OUT)" $(LONG_IDS) && sh tools/report/readme_sync.sh "$(OUT)"; fi
	@sh tools/reproduce/prune_results.sh end "$(OUT)/long"

# Re-render the figures of a run made by hand (default out/, where programs
# write unless --out says otherwise): every plot of every experiment whose
# verdicts are in that folder, from its data; nothing is rerun. A figure newer
# than its run, script and style is kept (FORCE=1: every one redrawn).
FIG_OUT := $(if $(OUT_GIVEN),$(OUT),out)
figures: ## re-render the figures of your own runs: make figures [OUT=DIR] (default out/; those already newer than their run are kept, FORCE=1 redraws all)
	@FORCE="$(FORCE)" sh tools/report/figures.sh "$(FIG_OUT)" $(IDS)

# The browser explorer: one self-contained page (web/explorer.html, script and
# styles inside it), and a screenshot of its default state taken by headless
# Chromium (skipped, with a message, when Chromium is missing).
EXPLORER := $(if $(ONLY),,$(if $(wildcard web/explorer.html),$(OUT)/explorer.html $(OUT)/figures/explorer.png))
$(OUT)/explorer.html: web/explorer.html | $(OUT)/figures
	cp $< $@.tmp.$$$$ && mv $@.tmp.$$$$ $@ && sh tools/reproduce/written.sh $@
$(OUT)/figures/explorer.png: $(OUT)/explorer.html web/screenshot.sh | $(OUT)/figures
	@sh web/screenshot.sh $< $@ 1280,800

.PHONY: figures-report
figures-report: $(VERDICTS) $(FIGURES) $(OUT)/claims.csv $(EXPLORER)

# ---- the lecture: deck, student handout, instructor notes (pdflatex) -------
# Built from the committed results/ (claims.tex, figures/, *.meta) by a make of
# their own (doc/doc.mk), which has no rule for any results file: `make slides
# handout` never reruns an experiment or re-renders a figure, and a missing
# results file stops it with its name. A4 by default: make handout PAPER=letter.
# make slides / make handout always rebuild their PDFs (-W: as if the lecture's
# source had changed): in a fresh clone the committed PDFs are as new as their
# sources, and asking for the documents should build them.
PAPER ?= a4
DOC_MAKE = $(MAKE) --no-print-directory -f doc/doc.mk OUT=$(OUT) PAPER=$(PAPER)
.PHONY: docs handout slides
docs:
	@+$(DOC_MAKE) all
handout: ## build results/handout.pdf (student notes) and results/instructor.pdf (with speaker notes, solutions, commands), from results/ (PAPER=letter for US Letter)
	@sh tools/deps.sh tex
	@+$(DOC_MAKE) -W doc/lecture.tex $(OUT)/handout.pdf $(OUT)/instructor.pdf
slides: ## build results/slides.pdf (the 16:9 lecture deck) and results/slides-notes.pdf (with speaker notes), from results/
	@sh tools/deps.sh tex
	@+$(DOC_MAKE) -W doc/lecture.tex $(OUT)/slides.pdf $(OUT)/slides-notes.pdf

# The section's exercises (exercises/): grade a student's file against the C
# head. exercises/grade.py needs no NumPy; it finds a Python that has it for
# the student's code (set ATT_PYTHON to choose one).
# make autograder: Gradescope's zip (setup.sh, run_autograder, the grader, the C
# sources of bin/shapes and bin/attention; no solutions). AUTOGRADER_SEED=N (a secret
# seed), AUTOGRADER_HIDE="TEST ..." (shown after the due date), AUTOGRADER_TRUSTED=1.
autograder: $(TOOLS_A) $(LIB_A) $(BUILD)/registry.inc ## build/autograder.zip for Gradescope (no solutions in it); AUTOGRADER_SEED=N AUTOGRADER_HIDE="TEST ..."
	@CC="$(CC)" CFLAGS_ALL="$(filter-out -MMD -MP,$(CFLAGS)) $(GSL_CFLAGS)" LIBS="$(LDFLAGS) $(LIBS)" \
	  AUTOGRADER_SEED="$(AUTOGRADER_SEED)" AUTOGRADER_HIDE="$(AUTOGRADER_HIDE)" \
	  AUTOGRADER_TRUSTED="$(AUTOGRADER_TRUSTED)" sh tools/make/autograder.sh $(BUILD) $(BUILD)/autograder.zip

grade: $(BIN)/shapes $(BIN)/attention ## grade FILE=STUDENT.py (the section's exercises) against the C head; GRADE_ARGS="--json results.json"
	@test -n "$(FILE)" || { echo "make grade: give FILE=path/to/section_4_2.py (the starter is exercises/section_4_2.py)" >&2; exit 2; }
	@python3 exercises/grade.py "$(FILE)" --trusted --bin $(BIN) $(GRADE_ARGS)

verify: all ## rerun everything into a temporary folder and compare it with the committed results/ (LONG=1: results/long/ too, about 10 min more)
	@LONG="$(LONG)" sh tools/verify/verify.sh

bench: ## benchmarks: Monte Carlo vs NumPy and the RNG limit, any_length vs DGEMM, make reproduce wall time
	@sh tools/deps.sh bench
	@$(MAKE) --no-print-directory all
	@OUT=$(OUT) BUILD=$(BUILD) BIN=$(BIN) sh bench/run.sh

# (make check, and so make sanitize, includes tests/test_experiments.sh: every experiment once, with
# few draws, so this runs every program under the sanitizers too)
sanitize: ## tests and every experiment (few draws) under AddressSanitizer + UndefinedBehaviorSanitizer (in build-san/, bin-san/)
	@$(MAKE) --no-print-directory check-all BUILD=build-san BIN=bin-san OPT=-O1 \
	    LATER_TESTS="$(filter $(wildcard tests/test_*.sh),$(SAN_SLOW_TESTS))" SKIP_TESTS="$(SAN_SKIP_TESTS)" \
	    SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

valgrind: ## the tests under valgrind, without fork: no leaks, no invalid reads
	@sh tools/deps.sh valgrind
	@$(MAKE) --no-print-directory tests all
	@BIN=$(BIN) sh tools/test/valgrind.sh $(addprefix $(BUILD)/tests/,$(TESTS))

fuzz: ## libFuzzer targets (clang) for the CSV reader and the option parser
	@sh tools/deps.sh fuzz
	@sh fuzz/run.sh

clean: ## remove build products (results/ is kept: it is committed)
	rm -rf $(BUILD) $(BIN) build-san bin-san build-mpi bin-mpi

$(BIN) $(BUILD)/lib $(BUILD)/tools $(BUILD)/tests $(OUT)/figures:
	mkdir -p $@

# header dependencies written by -MMD -MP
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
