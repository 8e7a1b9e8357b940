/*
 * Receivers' own addresses across co_broadcast of derived types. gfortran (8 to 14) broadcasts
 * an array of a derived type with allocatable components in two steps: each allocatable
 * component on its own first (this runtime sees only the component's data), then the elements
 * as whole bytes, descriptors included, so every receiver's descriptors would take the source
 * image's addresses, which mean nothing on the receiver. The data addresses of the broadcasts
 * made so far are noted here; a word of a receiver's derived-type elements that held one of
 * them keeps it (the rest of such a descriptor, bounds and strides, is alike on every image:
 * the component's own broadcast needed the same shape everywhere).
 */
#ifndef CAF_BCAST_KEEP_H
#define CAF_BCAST_KEEP_H

#include <stddef.h>
#include <stdint.h>

/* Note @p data, the local data address of a broadcast (NULL is ignored). */
void caf_bcast_note(const void *data);

typedef struct {
    size_t n;
    struct caf_kept_word {
        size_t at;     /* byte offset in the buffer */
        uintptr_t was; /* the receiver's word there */
    } * word;
} caf_kept_t;

/* Before the broadcast, on a receiver: the words of @p buf (@p bytes) that hold a noted
 * address. Returns 0, or -1 (no memory: nothing kept). */
int caf_bcast_keep(caf_kept_t *k, const char *buf, size_t bytes);
/* After it: put those words back, and free @p k. */
void caf_bcast_restore(caf_kept_t *k, char *buf);

#endif /* CAF_BCAST_KEEP_H */
