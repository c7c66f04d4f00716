#ifndef MCU_NORMALIZE_F32_H
#define MCU_NORMALIZE_F32_H
#include "mcu_rt.h"
#include "strided.h"

/* How a group of elements is normalized. */
#define MCU_NORM_STANDARD 0 /* (x - mean) * (1 / sqrt(var + epsilon)): LayerNormalization, InstanceNormalization */
#define MCU_NORM_MVN 1      /* (x - mean) / (sqrt(var) + epsilon): MeanVarianceNormalization */
#define MCU_NORM_L1 2       /* x / sum |x|: LpNormalization p = 1 */
#define MCU_NORM_L2 3       /* x / sqrt(sum x^2): LpNormalization p = 2 */
#define MCU_NORM_RMS 4      /* x * (1 / sqrt(mean x^2 + epsilon)): RMSNormalization */

/* `outer` walks the groups and `inner` the elements of one group. Operand 0 of both walks is x's (and y's) element
 * step, operand 1 scale's and operand 2 bias's (0 when absent or broadcast). */
typedef struct {
    int32_t mode;
    float epsilon;
    mcu_walk outer, inner;
} mcu_normalize_f32_params;

/** y = normalized x * scale + bias, per group; scale, bias, mean and inv_std_dev may be NULL. mean and inv_std_dev
 * (the STANDARD mode's statistics, one per group in `outer` order) are LayerNormalization's optional outputs. */
void mcu_normalize_f32(const mcu_normalize_f32_params *p, const float *x, const float *scale, const float *bias,
                       float *y, float *mean, float *inv_std_dev);

#endif
