#include "binary_int.h"

/* Every element is widened to 64 bits (sign- or zero-extended) and the result is truncated back to the element type
 * on store, which is exactly wrap-around modulo 2^width for Add, Sub, Mul and Shl. Signed arithmetic runs on uint64_t
 * so that overflow wraps instead of being undefined. */

/** a op b for a signed type of `bits` bits. */
static uint64_t mcu_binary_int_signed(int32_t op, int64_t a, int64_t b, int32_t bits)
{
    int64_t r;
    switch (op) {
    case MCU_BINARY_INT_ADD:
        return (uint64_t)a + (uint64_t)b;
    case MCU_BINARY_INT_SUB:
        return (uint64_t)a - (uint64_t)b;
    case MCU_BINARY_INT_MUL:
        return (uint64_t)a * (uint64_t)b;
    case MCU_BINARY_INT_DIV:
        /* b == -1 is a negation: INT64_MIN / -1 would overflow */
        return b == 0 ? 0u : (b == -1 ? 0u - (uint64_t)a : (uint64_t)(a / b));
    case MCU_BINARY_INT_MOD:
        if (b == 0 || b == -1) {
            return 0u;
        }
        r = a % b;
        return (uint64_t)((r != 0 && ((r < 0) != (b < 0))) ? r + b : r);
    case MCU_BINARY_INT_FMOD:
        return (b == 0 || b == -1) ? 0u : (uint64_t)(a % b);
    case MCU_BINARY_INT_MAX:
        return (uint64_t)(a > b ? a : b);
    case MCU_BINARY_INT_MIN:
        return (uint64_t)(a < b ? a : b);
    case MCU_BINARY_INT_AND:
        return (uint64_t)a & (uint64_t)b;
    case MCU_BINARY_INT_OR:
        return (uint64_t)a | (uint64_t)b;
    case MCU_BINARY_INT_XOR:
        return (uint64_t)a ^ (uint64_t)b;
    case MCU_BINARY_INT_SHL:
        return (b < 0 || b >= bits) ? 0u : (uint64_t)a << b;
    default:
        /* arithmetic right shift written without shifting a negative value (implementation-defined in C) */
        if (b < 0 || b >= bits) {
            return a < 0 ? ~(uint64_t)0 : 0u;
        }
        return a < 0 ? ~((uint64_t)~a >> b) : (uint64_t)a >> b;
    }
}

/** a op b for an unsigned type (or bool) of `bits` bits. */
static uint64_t mcu_binary_int_unsigned(int32_t op, uint64_t a, uint64_t b, int32_t bits)
{
    switch (op) {
    case MCU_BINARY_INT_ADD:
        return a + b;
    case MCU_BINARY_INT_SUB:
        return a - b;
    case MCU_BINARY_INT_MUL:
        return a * b;
    case MCU_BINARY_INT_DIV:
        return b == 0u ? 0u : a / b;
    case MCU_BINARY_INT_MOD:
    case MCU_BINARY_INT_FMOD:
        return b == 0u ? 0u : a % b;
    case MCU_BINARY_INT_MAX:
        return a > b ? a : b;
    case MCU_BINARY_INT_MIN:
        return a < b ? a : b;
    case MCU_BINARY_INT_AND:
        return a & b;
    case MCU_BINARY_INT_OR:
        return a | b;
    case MCU_BINARY_INT_XOR:
        return a ^ b;
    case MCU_BINARY_INT_SHL:
        return b >= (uint64_t)bits ? 0u : a << b;
    default:
        return b >= (uint64_t)bits ? 0u : a >> b;
    }
}

/* One loop per element type; WIDE is int64_t or uint64_t and APPLY the matching function above. */
#define MCU_BINARY_INT_LOOP(T, WIDE, APPLY)                                                                        \
    do {                                                                                                           \
        const T *pa = (const T *)a;                                                                                \
        const T *pb = (const T *)b;                                                                                \
        T *py = (T *)y;                                                                                            \
        for (i = 0; i < p->count; ++i) {                                                                           \
            py[i] = (T)APPLY(p->op, (WIDE)pa[ia], (WIDE)pb[ib], (int32_t)(8 * sizeof(T)));                         \
            mcu_bcast_next(&p->bc, idx, &ia, &ib);                                                                 \
        }                                                                                                          \
    } while (0)

void mcu_binary_int(const mcu_binary_int_params *p, const void *a, const void *b, void *y)
{
    int32_t idx[MCU_MAX_RANK] = {0};
    int32_t i, ia = 0, ib = 0;
    switch (p->dtype) {
    case MCU_DT_INT8:
        MCU_BINARY_INT_LOOP(int8_t, int64_t, mcu_binary_int_signed);
        break;
    case MCU_DT_INT16:
        MCU_BINARY_INT_LOOP(int16_t, int64_t, mcu_binary_int_signed);
        break;
    case MCU_DT_INT32:
        MCU_BINARY_INT_LOOP(int32_t, int64_t, mcu_binary_int_signed);
        break;
    case MCU_DT_INT64:
        MCU_BINARY_INT_LOOP(int64_t, int64_t, mcu_binary_int_signed);
        break;
    case MCU_DT_UINT16:
        MCU_BINARY_INT_LOOP(uint16_t, uint64_t, mcu_binary_int_unsigned);
        break;
    case MCU_DT_UINT32:
        MCU_BINARY_INT_LOOP(uint32_t, uint64_t, mcu_binary_int_unsigned);
        break;
    case MCU_DT_UINT64:
        MCU_BINARY_INT_LOOP(uint64_t, uint64_t, mcu_binary_int_unsigned);
        break;
    default: /* uint8 and bool */
        MCU_BINARY_INT_LOOP(uint8_t, uint64_t, mcu_binary_int_unsigned);
        break;
    }
}
