/* registry.c - the claims registry, generated from experiments/registry.tsv. */
#include "registry.h"

#include <stddef.h>
#include <string.h>

static const registry_entry entries[] = {
#include "registry.inc"
};

const registry_entry *registry_find(const char *id)
{
    for (size_t i = 0; id && i < sizeof entries / sizeof entries[0]; i++)
        if (strcmp(entries[i].id, id) == 0) return &entries[i];
    return NULL;
}
