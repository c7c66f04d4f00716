#include "clip.h"

#include <float.h>

/* One loop per element type; an absent bound is the type's lowest or highest value (ONNX's numeric_limits defaults,
 * which clip float infinities to +-FLT_MAX as onnxruntime does). */
#define MCU_CLIP_LOOP(T, LOWEST, HIGHEST)                                                                          \
    do {                                                                                                           \
        const T *px = (const T *)x;                                                                                \
        const T l = lo != NULL ? *(const T *)lo : (LOWEST);                                                        \
        const T h = hi != NULL ? *(const T *)hi : (HIGHEST);                                                       \
        T *py = (T *)y;                                                                                            \
        for (i = 0; i < p->count; ++i) {                                                                           \
            const T v = px[i] < l ? l : px[i];                                                                     \
            py[i] = v > h ? h : v;                                                                                 \
        }                                                                                                          \
    } while (0)

void mcu_clip(const mcu_clip_params *p, const void *x, const void *lo, const void *hi, void *y)
{
    int32_t i;
    switch (p->dtype) {
    case MCU_DT_FLOAT:
        MCU_CLIP_LOOP(float, -FLT_MAX, FLT_MAX);
        break;
    case MCU_DT_DOUBLE:
        MCU_CLIP_LOOP(double, -DBL_MAX, DBL_MAX);
        break;
    case MCU_DT_INT8:
        MCU_CLIP_LOOP(int8_t, INT8_MIN, INT8_MAX);
        break;
    case MCU_DT_INT16:
        MCU_CLIP_LOOP(int16_t, INT16_MIN, INT16_MAX);
        break;
    case MCU_DT_INT32:
        MCU_CLIP_LOOP(int32_t, INT32_MIN, INT32_MAX);
        break;
    case MCU_DT_INT64:
        MCU_CLIP_LOOP(int64_t, INT64_MIN, INT64_MAX);
        break;
    case MCU_DT_UINT16:
        MCU_CLIP_LOOP(uint16_t, 0, UINT16_MAX);
        break;
    case MCU_DT_UINT32:
        MCU_CLIP_LOOP(uint32_t, 0, UINT32_MAX);
        break;
    case MCU_DT_UINT64:
        MCU_CLIP_LOOP(uint64_t, 0, UINT64_MAX);
        break;
    default: /* uint8 */
        MCU_CLIP_LOOP(uint8_t, 0, UINT8_MAX);
        break;
    }
}
