#ifndef MCU_INDEX_H
#define MCU_INDEX_H
#include "mcu_rt.h"

/** Element i of an index tensor whose element type is `dtype` (MCU_DT_*), as int64. Floats truncate toward zero;
 * NaN and floats beyond +-2^62 read as INT64_MIN, uint64 values above INT64_MAX as INT64_MAX, so range checks
 * reject them without an undefined conversion. */
int64_t mcu_index_load(const void *idx, int32_t dtype, int32_t i);

/** An index into a dim of length n, negative values counting from the end: the position in [0, n), or -1 when the
 * index is outside [-n, n). */
int32_t mcu_index_wrap(int64_t v, int32_t n);

#endif
