/* fusedtime.h - the fused_qkv timing: one product X W_QKV against three and 3 H.
 *
 * At GPT-2 widths (d = 768, d_k = d_v = 64) on this CPU (OpenBLAS, all its
 * threads): for T = 64 .. 4096 with one head and T = 64, 256, 1024, 4096 with
 * 12 heads (or only T = --T, both head counts), every variant is timed
 * (timing_measure: --reps samples, each at least 2 ms):
 *   fused      QKV = X W_QKV              X (T, d), W_QKV (d, 3 H 64)
 *   separate   X W_Q, X W_K, X W_V        (d, H 64) each
 *   per_head   X W^h for each of the 3 H blocks (d, 64), 12 heads only
 * and the speed-up of fusing, separate / fused: median / median, the range
 * min / max .. max / min. Writes <dir>/fused_qkv_timing.csv (T, heads,
 * threads, variant, reps, inner, min/median/max seconds, median GFLOP/s)
 * and fused_qkv_speedup_timing.csv (T, heads, versus, speed-up median and
 * range).
 */
#ifndef ATT_FUSEDTIME_H
#define ATT_FUSEDTIME_H

#include <stddef.h>

enum { FUSEDTIME_D = 768, FUSEDTIME_DK = 64, FUSEDTIME_MAX_SPEEDUPS = 24 };

typedef struct {
    size_t T, heads;
    const char *versus;     /* "separate" or "per_head" */
    double speedup_median, speedup_low, speedup_high;
} fusedtime_speedup;

/* Time every point (T = 0: the whole sweep), seeds from seed, write both
 * tables; sr[0 .. *ns - 1] the speed-ups (FUSEDTIME_MAX_SPEEDUPS at most). */
int fusedtime_run(const char *dir, unsigned long seed, size_t T, size_t reps, fusedtime_speedup *sr, size_t *ns);

#endif
