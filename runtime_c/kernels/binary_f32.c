#include "binary_f32.h"

MCU_BINARY_FLOAT_KERNEL(mcu_binary_f32, float, fmodf, copysignf)
