#include "util/zero.h"

#include <string.h>

void arb_zero(void *p, size_t n)
{
    memset(p, 0, n);
}
