/*
 * The noted broadcast addresses: an open-addressing set of words, emptied when half full (an
 * address noted long ago matters only if a receiver's element still holds it, and then keeping
 * the receiver's own address is still right).
 */
#include <stdlib.h>
#include <string.h>

#include "caf_bcast_keep.h"

enum { SLOTS = 4096 }; /* a power of two */
static uintptr_t noted[SLOTS];
static size_t noted_count;

static size_t slot_of(uintptr_t p)
{
    return (size_t)((p >> 4) ^ (p >> 16)) & (SLOTS - 1);
}

void caf_bcast_note(const void *data)
{
    uintptr_t p = (uintptr_t)data;
    if (!p) return;
    if (noted_count >= SLOTS / 2) {
        memset(noted, 0, sizeof noted);
        noted_count = 0;
    }
    size_t i = slot_of(p);
    while (noted[i] && noted[i] != p) i = (i + 1) & (SLOTS - 1);
    if (!noted[i]) {
        noted[i] = p;
        noted_count++;
    }
}

static int is_noted(uintptr_t p)
{
    if (!p || !noted_count) return 0;
    for (size_t i = slot_of(p);; i = (i + 1) & (SLOTS - 1)) {
        if (noted[i] == p) return 1;
        if (!noted[i]) return 0;
    }
}

int caf_bcast_keep(caf_kept_t *k, const char *buf, size_t bytes)
{
    size_t cap = 0;
    k->n = 0;
    k->word = NULL;
    for (size_t at = 0; noted_count && at + sizeof(uintptr_t) <= bytes; at += sizeof(uintptr_t)) {
        uintptr_t w;
        memcpy(&w, buf + at, sizeof w); /* derived-type data need not be word-aligned here */
        if (!is_noted(w)) continue;
        if (k->n == cap) {
            cap = cap ? 2 * cap : 16;
            struct caf_kept_word *grown = realloc(k->word, cap * sizeof *grown);
            if (!grown) {
                free(k->word);
                k->word = NULL;
                k->n = 0;
                return -1;
            }
            k->word = grown;
        }
        k->word[k->n].at = at;
        k->word[k->n].was = w;
        k->n++;
    }
    return 0;
}

void caf_bcast_restore(caf_kept_t *k, char *buf)
{
    for (size_t i = 0; i < k->n; i++)
        memcpy(buf + k->word[i].at, &k->word[i].was, sizeof k->word[i].was);
    free(k->word);
    k->word = NULL;
    k->n = 0;
}
