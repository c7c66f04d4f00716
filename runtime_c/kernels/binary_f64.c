#include "binary_f64.h"

MCU_BINARY_FLOAT_KERNEL(mcu_binary_f64, double, fmod, copysign)
