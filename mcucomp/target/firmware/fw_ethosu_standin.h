/* A stand-in for Arm's ethos-u-core-driver, for test firmware and host tests only: there is no Ethos-U here. It
 * implements ethosu_reserve_driver / ethosu_release_driver / ethosu_invoke_v3 and checks, at run time, what faults
 * or is refused on hardware; it does not compute the NPU's results (outputs are left as they are).
 *
 * The NPU it pretends to be and the regions it expects come from fw_npu_expect.h (generated from report.json):
 *   FW_NPU_PRODUCT    0 Ethos-U55, 1 Ethos-U65, 2 Ethos-U85 (the product field of the stream's config word)
 *   FW_NPU_MACS_LOG2  log2 of the MACs per cycle (the stream's config word, bits 0-3)
 *   FW_NPU_EXPECT     per region: command stream, weights, scratch and fast scratch bytes, and where its outputs
 *                     go ({base-address region, offset, bytes} each)
 * the first two overridable with -D to play another NPU. Built with -DFW_NPU_REPLAY (test firmware with
 * semihosting), it writes each region call's outputs from the host file npu_replay.bin: the outputs the host's
 * reference computed for the same call, so the CPU layers after an NPU region can be checked bit for bit. */
#ifndef FW_ETHOSU_STANDIN_H
#define FW_ETHOSU_STANDIN_H

#include <stddef.h>
#include <stdint.h>

struct ethosu_driver;
struct ethosu_driver *ethosu_reserve_driver(void);
void ethosu_release_driver(struct ethosu_driver *drv);
int ethosu_invoke_v3(struct ethosu_driver *drv, const void *custom_data_ptr, const int custom_data_size,
                     uint64_t *const base_addr, const size_t *base_addr_size, const int num_base_addr,
                     void *user_arg);

/** Why the last ethosu_invoke_v3 failed ("" when it did not). */
const char *fw_ethosu_standin_error(void);
/** How many invokes passed every check. */
int fw_ethosu_standin_invokes(void);

#endif
