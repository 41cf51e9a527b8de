/* circuits.h - transitional: the former grab-bag is split into one module per
 * concept. Include the one you need:
 *   worked.h     the "the cat sat" head of the worked example
 *   bias.h       folding b_V, the sigmoid control, row spreads
 *   prevtoken.h  the previous-token head (exercise 4.2b)
 * This header only includes prevtoken.h, for code not yet moved over; it goes
 * once previous_token_head includes prevtoken.h. */
#ifndef ATT_CIRCUITS_H
#define ATT_CIRCUITS_H
#include "prevtoken.h"
#endif
