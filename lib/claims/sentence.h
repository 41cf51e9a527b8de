/* sentence.h - the section's opening sentence with a small hand-made head in
 * which "it" attends to "animal" and "animal" does not attend to "it".
 *
 * Tokens (T = 11): The animal didn't cross the street because it was too tired.
 * Each token is a hand-made feature vector x_t (d = 7 features: determiner,
 * noun, animate, verb, pronoun, function word, adjective); "it" carries a
 * little of "animate" (0.5), so the raw scores link it to "animal" both ways.
 * Shapes: X (T, d), W_Q, W_K (d, d_k = 2), S, A (T, T).
 *   raw:      S = X X^T (symmetric), A = row softmax(S)
 *   learned:  W_QK = W_Q W_K^T = 6 e_pronoun e_animate^T + 4 e_noun e_verb^T
 *             (a pronoun looks for an animate thing, a noun for its verb),
 *             S = X W_QK X^T = Q K^T, A = row softmax(S)
 * so s(it, animal) = 6 + 0 while s(animal, it) = 0: the pairing is one-way.
 */
#ifndef ATT_SENTENCE_H
#define ATT_SENTENCE_H

#include <stddef.h>

enum { SENTENCE_T = 11, SENTENCE_D = 7, SENTENCE_DK = 2, SENTENCE_IT = 7, SENTENCE_ANIMAL = 1 };

/* One (query, key) cell of both heads. */
typedef struct {
    size_t qi, ki;              /* 0-based query and key positions */
    const char *query, *key;    /* their tokens                    */
    double raw_score, raw_weight, score, weight;
} sentence_row;

typedef struct {
    double raw_it_animal, raw_animal_it;   /* raw scores s(it, animal), s(animal, it) */
    double s_it_animal, s_animal_it;       /* learned scores                          */
    double a_it_animal, a_animal_it;       /* learned weights                         */
    double raw_scale;                      /* max |x_i| |x_j|: rounding scale of S    */
} sentence_result;

/* Fill rows[qi * SENTENCE_T + ki] for every cell and the summary r.
 * ATT_OK, or ATT_ERUNTIME (no memory). */
int sentence_attention(sentence_row rows[SENTENCE_T * SENTENCE_T], sentence_result *r);

#endif
