#include "ethosu_region.h"

/** p rounded up to the next multiple of 16 bytes (the driver faults on base addresses that are not). */
static uint8_t *mcu_ethosu_align16(uint8_t *p)
{
    return p + ((16u - ((uintptr_t)p & 15u)) & 15u);
}

int mcu_ethosu_region(const mcu_ethosu_region_params *p, const void *const *xs, void *const *ys, void *scratch)
{
    uint64_t base[MCU_ETHOSU_MAX_REGIONS];
    size_t size[MCU_ETHOSU_MAX_REGIONS];
    uint8_t *const work = mcu_ethosu_align16((uint8_t *)scratch);
    /* Shared_Sram and Sram_Only: Vela gives the fast scratch no size of its own and it is the scratch itself. */
    uint8_t *const fast = p->scratch_fast_bytes != 0u
        ? mcu_ethosu_align16(work + p->scratch_bytes) : work;
    struct ethosu_driver *drv;
    int32_t i, status;
    for (i = 0; i < p->num_regions; i++) {
        base[i] = 0u;
        size[i] = 0u;
    }
    base[MCU_ETHOSU_REGION_WEIGHTS] = (uint64_t)(uintptr_t)p->weights;
    size[MCU_ETHOSU_REGION_WEIGHTS] = p->weights_bytes;
    base[MCU_ETHOSU_REGION_SCRATCH] = (uint64_t)(uintptr_t)work;
    size[MCU_ETHOSU_REGION_SCRATCH] = p->scratch_bytes;
    base[MCU_ETHOSU_REGION_SCRATCH_FAST] = (uint64_t)(uintptr_t)fast;
    size[MCU_ETHOSU_REGION_SCRATCH_FAST] = p->scratch_fast_bytes != 0u ? p->scratch_fast_bytes : p->scratch_bytes;
    for (i = 0; i < p->n_inputs; i++) {
        const mcu_ethosu_io *io = &p->inputs[i];
        if (io->region == MCU_ETHOSU_REGION_SCRATCH) {
            memcpy(work + io->offset, xs[i], io->bytes);
        } else if (((uintptr_t)xs[i] & 15u) != 0u) {
            return MCU_ETHOSU_ERR_ALIGN;
        } else {
            base[io->region] = (uint64_t)(uintptr_t)xs[i];
            size[io->region] = io->bytes;
        }
    }
    for (i = 0; i < p->n_outputs; i++) {
        const mcu_ethosu_io *io = &p->outputs[i];
        if (io->region == MCU_ETHOSU_REGION_SCRATCH) {
            continue;
        }
        if (((uintptr_t)ys[i] & 15u) != 0u) {
            return MCU_ETHOSU_ERR_ALIGN;
        }
        base[io->region] = (uint64_t)(uintptr_t)ys[i];
        size[io->region] = io->bytes;
    }
    drv = ethosu_reserve_driver();
    if (drv == NULL) {
        return MCU_ETHOSU_ERR_NO_DRIVER;
    }
    status = ethosu_invoke_v3(drv, p->command_stream, p->command_stream_bytes, base, size, p->num_regions, NULL);
    ethosu_release_driver(drv);
    if (status != 0) {
        return MCU_ETHOSU_ERR_INVOKE;
    }
    for (i = 0; i < p->n_outputs; i++) {
        const mcu_ethosu_io *io = &p->outputs[i];
        if (io->region == MCU_ETHOSU_REGION_SCRATCH) {
            memcpy(ys[i], work + io->offset, io->bytes);
        }
    }
    return 0;
}
