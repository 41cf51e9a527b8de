# doc.mk - the lecture's documents, built from the results in OUT (make
# slides / make handout call this; see the Makefile). On purpose this file
# has no rule for any results file: the documents depend on results/, never on
# bin/, so building them can never rerun an experiment.
#   make -f doc/doc.mk [OUT=results] [PAPER=a4|letter] [all | OUT/<doc>.pdf]
OUT   ?= results
PAPER ?= a4
DOCS  := slides slides-notes handout instructor
# what the documents read from the results (claims.tex, the figures, and the
# .meta files that name the commit), and from the checkout
DOC_RESULTS := $(OUT)/claims.tex $(wildcard $(OUT)/*.meta $(OUT)/figures/*.pdf $(OUT)/figures/slides/*.pdf)
DOC_SRC     := $(wildcard doc/*.tex) tools/report/latex.sh $(wildcard exercises/solutions/*.py)
# a change of PAPER rebuilds the notes (a stamp outside results/)
PAPER_STAMP := build/doc/paper-$(PAPER)
$(shell mkdir -p build/doc; [ -f build/doc/paper-$(PAPER) ] || { rm -f build/doc/paper-*; touch build/doc/paper-$(PAPER); })

.PHONY: all
all: $(addprefix $(OUT)/,$(addsuffix .pdf,$(DOCS)))
.DELETE_ON_ERROR:

$(OUT)/slides.pdf $(OUT)/slides-notes.pdf: $(OUT)/%.pdf: doc/%.tex $(DOC_SRC) $(DOC_RESULTS)
	@sh tools/report/latex.sh $< $(OUT)
$(OUT)/handout.pdf $(OUT)/instructor.pdf: $(OUT)/%.pdf: doc/%.tex $(DOC_SRC) $(DOC_RESULTS) $(PAPER_STAMP)
	@PAPER=$(PAPER) sh tools/report/latex.sh $< $(OUT)
$(OUT)/claims.tex:
	@echo "docs: $@ is missing: the documents are built from the results of make reproduce" >&2; exit 1
