/* The fuzz targets behind arbor-fuzz (fuzz_main.c picks one by ARB_FUZZ_TARGET). Each returns
 * 0 and aborts on a violated property. */
#ifndef ARB_TESTS_FUZZ_H
#define ARB_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int arb_fuzz_config(const uint8_t *data, size_t size);
int arb_fuzz_logp(const uint8_t *data, size_t size);
int arb_fuzz_tune(const uint8_t *data, size_t size);
int arb_fuzz_sched(const uint8_t *data, size_t size);
int arb_fuzz_calib(const uint8_t *data, size_t size);

#endif /* ARB_TESTS_FUZZ_H */
