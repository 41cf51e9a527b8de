/* lscond.h - the conditional (Rao-Blackwellised) self-weight of one row at
 * any sequence length: E[T a_ii | s_ii, sigma_i] by quadrature, O(1) in T.
 *
 * Set-up (lib/claims/longseq.h): given W and x_i, the other T - 1 scores
 * s_ij = sigma z_j are i.i.d. N(0, sigma^2), sigma = ||W_K q_i||, while
 * s = s_ii is fixed. So, with S = sum_{j=1}^{T-1} e^{sigma z_j},
 *   g_T(s, sigma) = E[T a_ii | s, sigma] = T E[e^s / (e^s + S)].
 *
 * Derivation (all terms positive, Tonelli):
 *   1/a = int_0^inf e^{-t a} dt                                   (a > 0)
 *   E[1/(e^s + S)] = int_0^inf e^{-t e^s} E[e^{-t S}] dt
 *                  = int_0^inf e^{-t e^s} phi(t)^{T-1} dt,
 * phi(t) = E[exp(-t e^{sigma z})], the Laplace transform of a lognormal
 * (the z_j are independent, so E e^{-tS} = phi^{T-1}). With t = e^{v - s}:
 *   g_T(s, sigma) = T int_R exp(v - e^v - (T - 1) psi(v - s)) dv,
 *   psi(tau) = psi_sigma(tau) = -log phi(e^tau) >= 0.
 * (This is T E_E[phi(E e^{-s})^{T-1}], E ~ Exp(1): v = log E.)
 *
 * psi by quadrature in z (trapezoid on a uniform grid, spectrally accurate
 * for these entire integrands):
 *   1 - phi = int F(tau + sigma z) N(z) dz,  F(w) = 1 - exp(-e^w) (no cancellation)
 *   psi = -log1p(-(1 - phi))   when 1 - phi < 1/2, else -log int exp(-e^{tau + sigma z}) N(z) dz
 * For tau -> -inf the cumulants of Y = e^{sigma z} give
 *   psi = t k1 - t^2 k2 / 2 + O(t^3),  t = e^tau, k1 = e^{sigma^2/2}, k2 = e^{2 sigma^2} - e^{sigma^2},
 * used where t k2 / k1 < e^{-10} (the neglected term is e^{-20} relative).
 * By Jensen, psi(tau) <= t k1 = e^{tau + sigma^2/2}.
 *
 * A table f(sigma, tau) = log psi_sigma(tau) - tau (smooth, -> sigma^2/2 as
 * tau -> -inf) on a uniform grid, read by 4 x 4 Lagrange interpolation, makes
 * one row cost a few hundred table reads whatever T is; points off the table
 * are computed directly.
 *
 * The v-integral: trapezoid with step LSCOND_H on [v_lo, 4]
 * (e^{v - e^v} < e^{-50} above 4), v_lo = s - log(T_max - 1) - sigma^2/2 - 22,
 * below which (T - 1) psi <= e^{-22} (Jensen) and the integrand is
 * e^{v - e^v} to that accuracy: its integral, 1 - exp(-e^{v_lo}), is added.
 */
#ifndef ATT_LSCOND_H
#define ATT_LSCOND_H

#include <stddef.h>

typedef struct {
    double dsig, dtau, sig_max, tau_min, tau_max;
    size_t ns, nt;          /* grid sizes: sigma_j = j dsig, tau_i = tau_min + i dtau */
    double *f;              /* f[j * nt + i] = log psi_{sigma_j}(tau_i) - tau_i */
} lscond_table;

/* psi_sigma(tau) computed directly (quadrature or the series), for tests
 * and for points off the table. sigma >= 0. */
double lscond_psi_direct(double sigma, double tau);

/* Build the table (sigma in [0, 8], tau in [-106, 60]); ATT_ERUNTIME on no
 * memory (t is then empty). Takes about a second of CPU, once per run. */
int lscond_table_build(lscond_table *t);
void lscond_table_free(lscond_table *t);

/* psi_sigma(tau) from the table (or directly off it). t may be NULL: direct. */
double lscond_psi(const lscond_table *t, double sigma, double tau);

/* out[k] = g_{T_k}(s, sigma) = E[T a_ii | s, sigma] for the n lengths
 * Ts[0 .. n-1] (each >= 1, ascending), with trapezoid step h (LSCOND_H for
 * the experiment; tests pass a finer one). t NULL: psi computed directly. */
#define LSCOND_H 0.4
enum { LSCOND_MAXT = 64 };   /* at most this many lengths per call (n) */
void lscond_self(const lscond_table *t, double s, double sigma, const double *Ts, size_t n,
                 double h, double *out);

#endif
