/* prelude.h - what an experiment includes first: the engine and one head.
 *
 * The engine: the skeleton (experiment.h: options, verdict rows by kind,
 * the summary), sweeps (sweep.h: the grid, the statistics list, work
 * buffers), a figure's example draw (example.h), tables (table.h), status
 * codes (status.h), generators (rng.h); the mathematics every head-based
 * experiment uses: matrices (mat.h), the head (head.h), rounding tolerances
 * (tol.h), work sets (workset.h); and the C and GSL headers they call. An
 * experiment then includes only its claim's own helpers (qkov.h, bias.h, ...).
 */
#ifndef ATT_PRELUDE_H
#define ATT_PRELUDE_H

#include "example.h"
#include "experiment.h"
#include "head.h"
#include "mat.h"
#include "rng.h"
#include "status.h"
#include "sweep.h"
#include "table.h"
#include "tol.h"
#include "workset.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_randist.h>

#endif
