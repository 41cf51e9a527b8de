#!/bin/sh
# test_glyphs.sh - every glyph on every frame of the deck is large enough for
# a lecture hall (issue 31), measured with pdfminer (tests/glyph_check.py):
# purpose: deck glyphs: every glyph >= 9 pt, main text >= 12 pt, titles >= body
#
#   1. the checker finds planted defects in a small beamer deck built here
#      (body text at 10 pt right under a 17 pt line, a 6 pt sub-subscript, a
#      title smaller than its body) and passes its clean frame, whose 9 pt subscripts, sum limits
#      and frame number are allowed; skipped without pdflatex;
#   2. DIR/slides.pdf (DIR: results, or ATT_LAYOUT_DIR) has no glyph under
#      9 pt, no main-text glyph under 12 pt, no title under its body's size.
# Beside tests/test_layout.sh, which checks the figures' text with poppler.
set -u
cd "$(dirname "$0")/.."
DIR=${ATT_LAYOUT_DIR:-results}
PY=$(sh tools/python.sh pdfminer 2>/dev/null) ||
    { echo "test_glyphs: skipped (pdfminer is missing: sh tools/deps.sh tex installs python3-pdfminer)"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_glyphs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0

# ---- 1. planted defects ------------------------------------------------------
if command -v pdflatex >/dev/null 2>&1; then
    cat > "$tmp/planted.tex" <<'TEX'
\documentclass[aspectratio=169,12pt]{beamer}
\usepackage[T1]{fontenc}
\usepackage{lmodern}
\setbeamertemplate{navigation symbols}{}
\setbeamerfont{frametitle}{size=\large,series=\bfseries}
\setbeamertemplate{footline}{\hfill{\scriptsize\insertframenumber}\hspace*{3mm}\vspace*{2mm}}
\DeclareMathSizes{12}{12}{9}{9}
\DeclareMathSizes{14.4}{14.4}{10}{9}
\begin{document}
\begin{frame}{Clean: a title at the body's size}
  \large $X \in \mathbb{R}^{T\times d}$, $x_i^\top x_j$, $W_{Q}W_{K}^{\top}$, $R^{d_k\times d_k}$
  \[ o_i = \sum_{j=1}^{T} a_{ij} v_j \]
\end{frame}
\begin{frame}{Small main text}
  \Large A large line, then text right under it (not its subscript):\par
  \fontsize{10}{11}\selectfont PLANTEDSMALL body text at ten points.
\end{frame}
\begin{frame}{A tiny sub-subscript}
  \fontsize{10}{12}\selectfont\normalsize Width $x_{i_{m}}$ here.
  {\fontsize{10}{12}\selectfont $y_{a_{b}}$}
\end{frame}
\begin{frame}{\normalsize Title under its body}
  \Large Large body text, larger than the title.
\end{frame}
\end{document}
TEX
    if (cd "$tmp" && pdflatex -interaction=nonstopmode -halt-on-error planted.tex >/dev/null 2>&1); then
        "$PY" tests/glyph_check.py "$tmp/planted.pdf" > "$tmp/report.txt"; rc=$?
        ok=1
        grep -q 'page 1:' "$tmp/report.txt" && { echo "test_glyphs: FAIL: the checker flags the clean frame:"; grep 'page 1:' "$tmp/report.txt"; ok=0; }
        for want in 'main .*page 2: .* at 10.0 pt' 'small .*page 3: .* at [5-7]\.[0-9] pt' 'title .*page 4: title'; do
            grep -q "$want" "$tmp/report.txt" || { echo "test_glyphs: FAIL: the checker misses: $want"; cat "$tmp/report.txt"; ok=0; }
        done
        [ $rc = 1 ] || { echo "test_glyphs: FAIL: the checker exits $rc on planted defects (want 1)"; ok=0; }
        if [ $ok = 1 ]; then
            echo "test_glyphs: the checker finds the 3 planted defects (10 pt body, sub-subscript, small title) and passes a clean frame"
        else
            fail=1
        fi
    else
        echo "test_glyphs: FAIL: the planted deck does not build"; tail -5 "$tmp/planted.log"; fail=1
    fi
else
    echo "test_glyphs: planted defects skipped (pdflatex is missing: sh tools/deps.sh tex)"
fi

# ---- 2. the deck ---------------------------------------------------------------
if [ -f "$DIR/slides.pdf" ]; then
    if "$PY" tests/glyph_check.py "$DIR/slides.pdf"; then
        echo "test_glyphs: $DIR/slides.pdf: every glyph >= 9 pt, main text >= 12 pt, titles >= body"
    else
        echo "test_glyphs: FAIL: $DIR/slides.pdf has glyphs too small for the hall (listed above)"; fail=1
    fi
else
    echo "test_glyphs: FAIL: no $DIR/slides.pdf (make slides builds it from the committed results)"; fail=1
fi
exit $fail
