# lsfix.sh - sourced by bench/run.sh: long_sequences' conditional estimator against
# the brute-force one (explicit softmax rows) at one T (bench/lsbench.c): cost per row
# and precision per second 1 / (h^2 t), h the 95% CI half-width of T E[a_ii].
row_longseq() {
    T=4096; N=4000
    [ "$QUICK" = 1 ] && N=1000
    ${CC:-cc} -std=c11 -O2 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -D_GNU_SOURCE -fopenmp \
        -Ilib/math -Ilib/fast -Ilib/run -Ilib/claims $(pkg-config --cflags gsl) bench/lsbench.c -o "$BUILD/bench/lsbench" \
        -fopenmp "$BUILD/libattn.a" $GSL_LIBS $BLAS_LIBS -lm
    echo "bench: long_sequences estimators, T = $T, $N W x 8 rows" >&2
    "$BUILD/bench/lsbench" $T $N > "$tmp/lsbench"
    cs=$(value cond_s_per_row "$tmp/lsbench"); bs=$(value brute_s_per_row "$tmp/lsbench")
    cp=$(value cond_prec_per_s "$tmp/lsbench"); bp=$(value brute_prec_per_s "$tmp/lsbench")
    ratio=$(calc "%.1f" "$cp / $bp")
    met=$(awk "BEGIN { print ($cp > $bp) ? \"yes\" : \"no\" }")
    if command -v row >/dev/null 2>&1; then
        row "long_sequences: cost per row at T = $T (d = 64, d_k = 16)" "$(calc "%.1f us" "$cs * 1e6") conditional" \
            "$(calc "%.1f us" "$bs * 1e6") explicit row" "$(calc "%.2f" "$bs / $cs")" "O(1) in T" "-"
        row "long_sequences: precision per second 1/(h^2 t), T = $T" "$(calc "%.4g" "$cp")" "$(calc "%.4g" "$bp")" \
            "${ratio}x" "> 1x" "$met"
    else
        echo "long_sequences T = $T: s/row conditional $cs, explicit $bs; precision/s $cp vs $bp (${ratio}x)"
    fi
}
row_longseq
