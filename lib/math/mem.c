/* mem.c - live bytes counted against a budget (see mem.h). */
#include "mem.h"
#include "status.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

static atomic_size_t live, peak, budget;
static const char *budget_option = "--max-memory";

void mem_set_budget(size_t bytes, const char *option)
{
    atomic_store(&budget, bytes);
    if (option) budget_option = option;
}

size_t mem_live(void) { return atomic_load(&live); }
size_t mem_peak(void) { return atomic_load(&peak); }
void mem_reset_peak(void) { atomic_store(&peak, atomic_load(&live)); }

double mem_human(size_t b, const char **unit)
{
    static const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double x = (double)b;
    int u = 0;
    while (x >= 1024.0 && u < 6) { x /= 1024.0; u++; }
    *unit = units[u];
    return x;
}

/* Count bytes against the budget: ATT_OK, or ATT_EUSAGE with the message recorded, the buffer
 * named by what or, when what is NULL, by fmt and *ap (formatted only then: mat_new is called in
 * training loops, and the label is needed only for a refusal). */
static int reserve(size_t bytes, const char *what, const char *fmt, va_list *ap)
{
    size_t old = atomic_fetch_add(&live, bytes);
    size_t now = old + bytes, b = atomic_load(&budget);
    if (now < old || (b > 0 && now > b)) {
        atomic_fetch_sub(&live, bytes);
        char label[96];
        if (what == NULL && fmt != NULL) vsnprintf(label, sizeof label, fmt, *ap), what = label;
        const char *u1, *u2;
        double x1 = mem_human(bytes, &u1), x2 = mem_human(b, &u2);
        if (now < old)
            return att_fail(ATT_EUSAGE, "%s: the size overflows", what ? what : "allocation");
        return att_fail(ATT_EUSAGE, "%s needs %.3g %s more, which would exceed %s %.3g %s "
                        "(raise %s, or choose smaller sizes)", what ? what : "this run",
                        x1, u1, budget_option, x2, u2, budget_option);
    }
    /* peak = max(peak, now), lock-free */
    size_t p = atomic_load(&peak);
    while (now > p && !atomic_compare_exchange_weak(&peak, &p, now)) {}
    return ATT_OK;
}

int mem_reserve(size_t bytes, const char *what)
{
    return reserve(bytes, what, NULL, NULL);
}

int mem_reserve_fmt(size_t bytes, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = reserve(bytes, NULL, fmt, &ap);
    va_end(ap);
    return rc;
}

void mem_release(size_t bytes)
{
    size_t old = atomic_load(&live);
    /* never below zero, whatever a caller gives back */
    while (!atomic_compare_exchange_weak(&live, &old, old >= bytes ? old - bytes : 0)) {}
}

void *mem_calloc(size_t n, size_t size, const char *what)
{
    if (size != 0 && n > SIZE_MAX / size) {
        att_fail(ATT_EUSAGE, "%s: %zu x %zu bytes overflows size_t", what ? what : "buffer", n,
                 size);
        return NULL;
    }
    if (mem_reserve(n * size, what)) return NULL;
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (p == NULL) {
        mem_release(n * size);
        att_fail(ATT_ERUNTIME, "out of memory allocating %s (%zu bytes)", what ? what : "a buffer",
                 n * size);
    }
    return p;
}

void mem_free(void *p, size_t n, size_t size)
{
    if (p == NULL) return;
    free(p);
    mem_release(n * size);
}
