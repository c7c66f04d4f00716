#include "binary_f32.h"

#if defined(MCU_F32_SOFT)
MCU_BINARY_FLOAT_KERNEL(mcu_binary_f32, float, fmodf, copysignf, 0)
#else
MCU_BINARY_FLOAT_KERNEL(mcu_binary_f32, float, fmodf, copysignf, 1)
#endif
