#include "binary_f64.h"

/* double arithmetic is a library call on every core (single-precision FPUs at most): rows not unrolled */
MCU_BINARY_FLOAT_KERNEL(mcu_binary_f64, double, fmod, copysign, 0)
