#ifndef MCU_ETHOSU_REGION_H
#define MCU_ETHOSU_REGION_H
#include "mcu_rt.h"

/* Arm ethos-u-core-driver API this kernel calls (ethosu_driver.h of driver API 0.16 and later); the firmware links
 * the driver and calls ethosu_init() once at startup. Declared as driver API 1.x does; releases that declare
 * `const uint64_t *base_addr` take the same arguments. */
struct ethosu_driver;
struct ethosu_driver *ethosu_reserve_driver(void);
void ethosu_release_driver(struct ethosu_driver *drv);
int ethosu_invoke_v3(struct ethosu_driver *drv, const void *custom_data_ptr, const int custom_data_size,
                     uint64_t *const base_addr, const size_t *base_addr_size, const int num_base_addr,
                     void *user_arg);

/* Base-address regions of Vela's raw output: 0 read-only weights, 1 scratch, 2 fast scratch; 3 and up hold I/O
 * tensors when Vela places them in regions of their own. */
#define MCU_ETHOSU_MAX_REGIONS 8
#define MCU_ETHOSU_MAX_IO 8
#define MCU_ETHOSU_REGION_WEIGHTS 0
#define MCU_ETHOSU_REGION_SCRATCH 1
#define MCU_ETHOSU_REGION_SCRATCH_FAST 2

/* Status codes of mcu_ethosu_region (the model's run function returns them unchanged). */
#define MCU_ETHOSU_ERR_ALIGN (-2)
#define MCU_ETHOSU_ERR_INVOKE (-3)
#define MCU_ETHOSU_ERR_NO_DRIVER (-4)

/* Where one region input or output lives for the NPU: `region` 1 = inside the scratch at `offset` (copied in or
 * out around the invoke), 3.. = a region of its own whose base address is the tensor itself (offset 0). */
typedef struct {
    int32_t region;
    uint32_t offset, bytes;
} mcu_ethosu_io;

/* One Vela command stream ("COP1" driver payload) with its weights and the layout of its scratch. The scratch
 * argument holds scratch_bytes + 15 bytes, or align16(scratch_bytes) + scratch_fast_bytes + 31 when the memory mode
 * gives the fast scratch a size of its own; both parts start 16-byte aligned. */
typedef struct {
    const uint8_t *command_stream;
    int32_t command_stream_bytes;
    const uint8_t *weights;
    uint32_t weights_bytes, scratch_bytes, scratch_fast_bytes;
    int32_t num_regions, n_inputs, n_outputs;
    mcu_ethosu_io inputs[MCU_ETHOSU_MAX_IO], outputs[MCU_ETHOSU_MAX_IO];
} mcu_ethosu_region_params;

/** Run one NPU region: copy the inputs to their places, reserve a driver, invoke the command stream with the base
 * addresses {weights, scratch, fast scratch, I/O...}, release the driver, copy the outputs out. Returns 0,
 * MCU_ETHOSU_ERR_ALIGN (an I/O tensor that is its own region's base address is not 16-byte aligned),
 * MCU_ETHOSU_ERR_NO_DRIVER (ethosu_reserve_driver gave none) or MCU_ETHOSU_ERR_INVOKE (the driver refused or the NPU
 * failed); outputs are written only on success. */
int mcu_ethosu_region(const mcu_ethosu_region_params *p, const void *const *xs, void *const *ys, void *scratch);

#endif
