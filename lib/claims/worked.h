/* worked.h - the section's worked example: a head made by hand on "the cat sat".
 *
 * Three tokens with four features (determiner, noun, verb, animal),
 * d_k = d_v = 2, and a query factor c that sets how sharp the lookup is
 * (the section's c = 3). A verb looks for a noun, a noun for a determiner;
 * the values report (is an animal, is a determiner).
 *
 * Shapes (tokens are rows): X (3, 4), W_Q, W_K (4, 2), W_V (4, 2),
 * A (3, 3), O (3, 2), W_O (2, 4), W_QK = W_Q W_K^T and W_OV = W_V W_O (4, 4).
 */
#ifndef ATT_WORKED_H
#define ATT_WORKED_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>

enum { WORKED_T = 3, WORKED_D = 4, WORKED_DK = 2, WORKED_DV = 2 };
enum { WORKED_THE = 0, WORKED_CAT = 1, WORKED_SAT = 2 };      /* token rows   */
enum { WORKED_DET = 0, WORKED_NOUN = 1, WORKED_VERB = 2, WORKED_ANIMAL = 3 }; /* features */

extern const char *const worked_tokens[WORKED_T];      /* "the" "cat" "sat"      */
extern const char *const worked_features[WORKED_D];    /* det noun verb animal   */
extern const char *const worked_qk_columns[WORKED_DK]; /* "noun" "det" (sought)  */
extern const char *const worked_v_columns[WORKED_DV];  /* "animal" "det" (told)  */

/* X (3, 4), W_Q (4, 2), W_K (4, 2), W_V (4, 2) of the worked example, with
 * query factor c (the section's c = 3):
 *   X:   the = (1,0,0,0)  cat = (0,1,0,1)  sat = (0,0,1,0)
 *   W_Q: noun -> (0, c)  verb -> (c, 0)        (other rows 0)
 *   W_K: det  -> (0, 1)  noun -> (1, 0)        (other rows 0)
 *   W_V: det  -> (0, 1)  animal -> (1, 0)      (columns: is animal, is det)
 * ATT_EUSAGE if a shape is wrong or c is not finite. */
int worked_build(gsl_matrix *X, gsl_matrix *W_Q, gsl_matrix *W_K, gsl_matrix *W_V, double c);

/* The closed forms, by hand:
 *   winner w(c) = e^c / (e^c + 2),  other o(c) = 1 / (e^c + 2)
 *   A = [ 1/3 1/3 1/3 ; w o o ; o w o ]      ("the" has a zero query)
 *   O = [ 1/3 1/3 ; o w ; w o ]
 * w and o are evaluated without overflow for any finite c. A (3, 3), O (3, 2). */
void worked_weights(double c, double *winner, double *other);
int worked_closed(gsl_matrix *A, gsl_matrix *O, double c);

/* The output matrix W_O (2, 4) that writes the head's two value columns back
 * onto the features they report: is-animal -> animal, is-determiner ->
 * determiner (the section gives no W_O; this is the identity-like choice that
 * makes W_OV = W_V W_O readable over the features). ATT_EUSAGE on a shape. */
int worked_output_map(gsl_matrix *W_O);

#endif
