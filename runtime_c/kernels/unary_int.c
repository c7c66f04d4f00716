#include "unary_int.h"

void mcu_unary_int(const mcu_unary_int_params *p, const void *x, void *y)
{
    const int32_t is_signed = p->dtype == MCU_DT_INT8 || p->dtype == MCU_DT_INT16 || p->dtype == MCU_DT_INT32 ||
                              p->dtype == MCU_DT_INT64;
    int32_t i;
    for (i = 0; i < p->count; ++i) {
        const uint64_t v = (uint64_t)mcu_get_int(x, p->dtype, i);
        const int32_t negative = is_signed && (v >> 63) != 0U;
        uint64_t r;
        switch (p->op) {
        case MCU_UNARY_INT_ABS:
            r = negative ? 0U - v : v;
            break;
        case MCU_UNARY_INT_NEG:
            r = 0U - v;
            break;
        case MCU_UNARY_INT_SIGN:
            r = negative ? ~(uint64_t)0 : (uint64_t)(v != 0U);
            break;
        case MCU_UNARY_INT_RELU:
            r = negative ? 0U : v;
            break;
        default: /* MCU_UNARY_INT_NOT */
            r = (uint64_t)(v == 0U);
            break;
        }
        mcu_set_int(y, p->dtype, i, r);
    }
}
