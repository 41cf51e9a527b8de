/* mem.h - allocation against a budget.
 *
 * Every matrix and vector of the library (mat_new, mat_vec_new) and every large
 * buffer of an experiment (mem_alloc) is counted here: the live bytes are a
 * process-wide atomic counter, and an allocation that would take them past
 * the budget is refused with ATT_EUSAGE, naming the budget and what was
 * asked. So an experiment's memory check is its real allocation, made before
 * anything is written, and not a formula kept by hand beside the code.
 *
 *   live' = live + bytes;  refused when budget > 0 and live' > budget
 */
#ifndef ATT_MEM_H
#define ATT_MEM_H

#include <stddef.h>

/* Set the budget in bytes (0: none), and the option that set it, for
 * messages ("--max-memory"). */
void mem_set_budget(size_t bytes, const char *option);

/* Bytes live now, and the most that were live at once since the start (or
 * since mem_reset_peak). */
size_t mem_live(void);
size_t mem_peak(void);
void mem_reset_peak(void);

/* Count `bytes` against the budget before allocating them yourself
 * (ATT_OK, or ATT_EUSAGE with the message recorded; `what` names the
 * buffer), and give them back. */
int mem_reserve(size_t bytes, const char *what);
/* The same, the buffer named by a printf format, formatted only when the budget refuses. */
int mem_reserve_fmt(size_t bytes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mem_release(size_t bytes);

/* calloc(n, size) counted against the budget; NULL with the error recorded
 * (ATT_EUSAGE over budget or on overflow, ATT_ERUNTIME when the system
 * refuses). Free with mem_free(p, n, size), the same n and size. */
void *mem_calloc(size_t n, size_t size, const char *what);
void mem_free(void *p, size_t n, size_t size);

/* b bytes in a unit for messages: 4294967296 -> 4 with *unit = "GiB" */
double mem_human(size_t b, const char **unit);

#endif
