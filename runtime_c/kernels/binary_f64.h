#ifndef MCU_BINARY_F64_H
#define MCU_BINARY_F64_H
#include "binary_f32.h"

/* The same fields and op codes as binary_f32. */
typedef mcu_binary_f32_params mcu_binary_f64_params;

/** binary_f32 on double tensors (software-emulated on a single-precision FPU such as the Cortex-M4's). */
void mcu_binary_f64(const mcu_binary_f64_params *p, const double *a, const double *b, double *y);

#endif
