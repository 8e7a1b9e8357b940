/*
 * The libcaf ABI of gfortran 8-14 (-fcoarray=lib): the array descriptor and the argument types
 * the compiler passes to the _gfortran_caf_* entry points. Written from gfortran's documented
 * interface (gfortran manual, "Coarray Programming": the libcaf ABI); gfortran 7 used an older
 * descriptor (dtype was one word) and is not covered.
 */
#ifndef CAF_ABI_H
#define CAF_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CAF_MAX_DIMS 15

/* Descriptor type codes (dtype.type). */
enum {
    CAF_BT_INTEGER = 1,
    CAF_BT_LOGICAL,
    CAF_BT_REAL,
    CAF_BT_COMPLEX,
    CAF_BT_DERIVED,
    CAF_BT_CHARACTER
};

typedef struct {
    ptrdiff_t stride; /* in elements */
    ptrdiff_t lbound;
    ptrdiff_t ubound;
} caf_dim_t;

typedef struct {
    void *base_addr; /* first element of the section (local data only) */
    size_t offset;
    struct {
        size_t elem_len;
        int version;
        signed char rank;
        signed char type;
        signed short attribute;
    } dtype;
    ptrdiff_t span;
    caf_dim_t dim[];
} caf_desc_t;

/* Register kinds (the compiler's caf_register_t). */
enum {
    CAF_REG_STATIC = 0,
    CAF_REG_ALLOC,
    CAF_REG_LOCK_STATIC,
    CAF_REG_LOCK_ALLOC,
    CAF_REG_CRITICAL,
    CAF_REG_EVENT_STATIC,
    CAF_REG_EVENT_ALLOC,
    CAF_REG_REGISTER_ONLY,
    CAF_REG_ALLOCATE_ONLY
};
enum { CAF_DEREG_DEREGISTER = 0, CAF_DEREG_DEALLOCATE_ONLY };

/* One dimension of a vector-subscripted reference: nvec > 0 gives the subscripts (integers of
 * the given kind, Fortran indices); nvec == 0 means the descriptor's own range applies. */
typedef struct {
    size_t nvec;
    union {
        struct {
            void *vector;
            int kind;
        } v;
        struct {
            ptrdiff_t lower_bound, upper_bound, stride;
        } triplet;
    } u;
} caf_vector_t;

/* A reference chain of the *_by_ref entry points: components and array references applied in
 * turn to a coarray. */
enum { CAF_REF_COMPONENT = 0, CAF_REF_ARRAY, CAF_REF_STATIC_ARRAY };
enum {
    CAF_ARR_NONE = 0,
    CAF_ARR_VECTOR,
    CAF_ARR_FULL,
    CAF_ARR_RANGE,
    CAF_ARR_SINGLE,
    CAF_ARR_OPEN_END,
    CAF_ARR_OPEN_START
};
typedef struct caf_ref {
    struct caf_ref *next;
    int type;
    size_t item_size;
    union {
        struct {
            ptrdiff_t offset, caf_token_offset;
        } c;
        struct {
            unsigned char mode[CAF_MAX_DIMS];
            int static_array_type;
            union {
                struct {
                    ptrdiff_t start, end, stride; /* Fortran indices */
                } s;
                struct {
                    void *vector;
                    size_t nvec;
                    int kind;
                } v;
            } dim[CAF_MAX_DIMS];
        } a;
    } u;
} caf_ref_t;

/* atomic_op codes and co_reduce operator flags. */
enum { CAF_ATOMIC_ADD = 1, CAF_ATOMIC_AND, CAF_ATOMIC_OR, CAF_ATOMIC_XOR };
#define CAF_OPR_BYREF     (1 << 0)
#define CAF_OPR_HIDDENLEN (1 << 1)
#define CAF_OPR_ARG_VALUE (1 << 2)
#define CAF_OPR_ARG_DESC  (1 << 3)

/* Status values as gfortran's ISO_FORTRAN_ENV defines them (STAT_UNLOCKED is 0 there). */
#define CAF_STAT_UNLOCKED           0
#define CAF_STAT_LOCKED             1
#define CAF_STAT_LOCKED_OTHER_IMAGE 2
#define CAF_STAT_DUP_SYNC_IMAGES    3
#define CAF_STAT_STOPPED_IMAGE      6000
#define CAF_STAT_FAILED_IMAGE       6001
/* F2018's STAT_UNLOCKED_FAILED_IMAGE (libgfortran's value; gfortran 12's ISO_FORTRAN_ENV does not
 * name it yet): LOCK acquired a lock whose holder failed. */
#define CAF_STAT_UNLOCKED_FAILED_IMAGE 6002
/* Any other failure (a transport error, an unsupported request). */
#define CAF_STAT_ERROR 1

typedef void *caf_token_t;
typedef void *caf_team_t;

#endif /* CAF_ABI_H */
