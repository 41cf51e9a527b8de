/* workset.c - work buffers by index (see workset.h). */
#include "workset.h"
#include "mat.h"
#include "status.h"

#include <stdlib.h>

void workset_free(void *p)
{
    workset *w = p;
    if (w == NULL) return;
    for (size_t k = 0; k < w->nm; k++) mat_free(w->m[k]);
    for (size_t k = 0; k < w->nv; k++) mat_vec_free(w->v[k]);
    for (size_t k = 0; k < w->nh; k++) head_state_free(&w->h[k]);
    free(w);
}

workset *workset_new(size_t nm, const size_t (*shape)[2], size_t nv, const size_t *len,
                     size_t nh, const size_t (*head)[5])
{
    if (nm > WORKSET_MATS || nv > WORKSET_VECS || nh > WORKSET_HEADS) {
        att_fail(ATT_ERUNTIME, "workset: %zu matrices, %zu vectors, %zu heads (at most %d, %d, %d)",
                 nm, nv, nh, WORKSET_MATS, WORKSET_VECS, WORKSET_HEADS);
        return NULL;
    }
    workset *w = calloc(1, sizeof *w);
    if (w == NULL) { att_fail(ATT_ERUNTIME, "out of memory for a workset"); return NULL; }
    int ok = 1;
    for (; w->nm < nm && ok; w->nm++)
        ok = (w->m[w->nm] = mat_new(shape[w->nm][0], shape[w->nm][1])) != NULL;
    for (; w->nv < nv && ok; w->nv++) ok = (w->v[w->nv] = mat_vec_new(len[w->nv])) != NULL;
    for (; w->nh < nh && ok; w->nh++) {
        const size_t *s = head[w->nh];
        ok = head_state_alloc(&w->h[w->nh], s[0], s[1], s[2], s[3], s[4]) == ATT_OK;
    }
    if (!ok) { workset_free(w); return NULL; }
    return w;
}
