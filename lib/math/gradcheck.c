/* gradcheck.c - central differences of the head's loss (see gradcheck.h). */
#include "gradcheck.h"
#include "status.h"

#include <math.h>

/* L = sum_ij G_ij O_ij */
double gradcheck_loss(const gsl_matrix *G, const gsl_matrix *O)
{
    double L = 0.0;
    for (size_t i = 0; i < O->size1; i++)
        for (size_t j = 0; j < O->size2; j++)
            L += gsl_matrix_get(G, i, j) * gsl_matrix_get(O, i, j);
    return L;
}

int gradcheck_head(double *fd, head_state *work, const head_params *p, const gsl_matrix *Xq,
                   const gsl_matrix *Xkv, const gsl_matrix *G, double *theta, size_t n,
                   size_t stride, double step, int relative)
{
    for (size_t i = 0; i < n; i++) {
        double *x = theta + i * stride, x0 = *x;
        double h = relative ? step * fmax(1.0, fabs(x0)) : step;
        volatile double xp = x0 + h, xm = x0 - h;   /* the steps actually taken */
        int rc;
        // fd_i = (L(theta + h e_i) - L(theta - h e_i)) / (theta_i^+ - theta_i^-)
        *x = xp;
        if ((rc = head_forward(work, p, Xq, Xkv))) { *x = x0; return rc; }
        double Lp = gradcheck_loss(G, work->O);
        *x = xm;
        if ((rc = head_forward(work, p, Xq, Xkv))) { *x = x0; return rc; }
        double Lm = gradcheck_loss(G, work->O);
        *x = x0;
        fd[i] = (Lp - Lm) / (xp - xm);
    }
    return ATT_OK;
}
