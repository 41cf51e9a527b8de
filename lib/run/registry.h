/* registry.h - the claims registry (experiments/registry.tsv) compiled in.
 *
 * The registry is the one place where a claim's words live: its ID, the
 * section's subheading, the one-line claim, its figures, its headline macro,
 * where its mathematics is. The Makefile turns the file into
 * $(BUILD)/registry.inc (tools/make/registry.sh c), which registry.c includes, so
 * every experiment prints its subheading and claim from it (--help and the
 * plain summary) and tools/make/registry.sh writes the README's tables from it.
 */
#ifndef ATT_REGISTRY_H
#define ATT_REGISTRY_H

typedef struct {
    const char *id, *origin, *subheading, *claim, *figures, *headline, *code, *note;
} registry_entry;

/* The entry of claim `id`, or NULL when the registry has none. */
const registry_entry *registry_find(const char *id);

#endif
