/* Driver stand-in: see fw_ethosu_standin.h. The checks follow the Ethos-U driver's handling of a Vela "COP1"
 * payload: fourcc, length a multiple of 4, driver actions (config, command stream, NOP), 16-byte alignment of the
 * command stream and of every base address, the config word against the NPU's, and each region's size. */
#include "fw_ethosu_standin.h"
#include "fw_npu_expect.h"

#define FW_COP1 0x31504F43u /* "COP1", little endian */
#define FW_DA_CONFIG 0x01u
#define FW_DA_CMD_STREAM 0x02u
#define FW_DA_NOP 0x05u
#define FW_FIXED_REGIONS 3 /* weights, scratch, fast scratch */
#define FW_MAX_REGIONS 8
#define FW_NPU_MAX_OUTPUTS 8

#ifdef FW_NPU_REPLAY
#include "fw_semihost.h"
#endif

struct ethosu_driver {
    int reserved;
};

typedef struct {
    uint32_t region, offset, bytes;
} fw_npu_place;

typedef struct {
    uint32_t cmd_bytes, weights_bytes, scratch_bytes, scratch_fast_bytes, n_outputs;
    fw_npu_place outputs[FW_NPU_MAX_OUTPUTS];
} fw_npu_region_expect;

static const fw_npu_region_expect fw_expect[] = FW_NPU_EXPECT;
static struct ethosu_driver fw_driver;
static const char *fw_error = "";
static int fw_invokes;

const char *fw_ethosu_standin_error(void)
{
    return fw_error;
}

int fw_ethosu_standin_invokes(void)
{
    return fw_invokes;
}

struct ethosu_driver *ethosu_reserve_driver(void)
{
    if (fw_driver.reserved) {
        return NULL;
    }
    fw_driver.reserved = 1;
    return &fw_driver;
}

void ethosu_release_driver(struct ethosu_driver *drv)
{
    if (drv == &fw_driver) {
        fw_driver.reserved = 0;
    }
}

static int fw_fail(const char *why)
{
    fw_error = why;
    return -1;
}

/** Walk the driver actions of a COP1 payload; check the config word and the command stream's placement. */
static int fw_check_payload(const uint32_t *words, uint32_t n_words)
{
    uint32_t i = 1u;
    int streams = 0;
    if (words[0] != FW_COP1) {
        return fw_fail("ethosu stand-in: the payload does not start with the COP1 fourcc\n");
    }
    while (i < n_words) {
        const uint32_t tag = words[i];
        const uint32_t command = tag & 0xFFu;
        if (command == FW_DA_CONFIG) {
            if (i + 2u >= n_words) {
                return fw_fail("ethosu stand-in: the config action runs past the payload\n");
            }
            if ((words[i + 1u] >> 28) != (uint32_t)FW_NPU_PRODUCT) {
                return fw_fail("ethosu stand-in: the command stream was compiled for another Ethos-U product\n");
            }
            if ((words[i + 1u] & 0xFu) != (uint32_t)FW_NPU_MACS_LOG2) {
                return fw_fail("ethosu stand-in: the command stream was compiled for another MAC count\n");
            }
            i += 3u;
        } else if (command == FW_DA_CMD_STREAM) {
            const uint32_t length = (((tag >> 8) & 0xFFu) << 16) | (tag >> 16);
            if (((uintptr_t)&words[i + 1u] & 15u) != 0u) {
                return fw_fail("ethosu stand-in: the command stream is not 16-byte aligned\n");
            }
            if (length == 0u || length > n_words - i - 1u) {
                return fw_fail("ethosu stand-in: the command stream length does not match the payload size\n");
            }
            i += 1u + length;
            streams++;
        } else if (command == FW_DA_NOP) {
            i += 1u;
        } else {
            return fw_fail("ethosu stand-in: unknown driver action in the payload\n");
        }
    }
    if (streams != 1) {
        return fw_fail("ethosu stand-in: the payload must hold exactly one command stream\n");
    }
    return 0;
}

#ifdef FW_NPU_REPLAY
/** Write the region's outputs from the host file npu_replay.bin (the host reference's outputs of the same region
 * call, in call order), so the CPU layers after it compute what the host build computes. */
static int fw_replay_outputs(const fw_npu_region_expect *e, const uint64_t *base, const size_t *size, int n)
{
    static int handle = -1;
    uint32_t k;
    if (handle < 0) {
        handle = fw_open("npu_replay.bin", FW_MODE_RB);
        if (handle < 0) {
            return fw_fail("ethosu stand-in: cannot open npu_replay.bin\n");
        }
    }
    for (k = 0; k < e->n_outputs; k++) {
        const fw_npu_place *o = &e->outputs[k];
        if ((int)o->region >= n || (size_t)o->offset + o->bytes > size[o->region]) {
            return fw_fail("ethosu stand-in: a region output lies outside its base-address region\n");
        }
        if (fw_read(handle, (void *)(uintptr_t)(base[o->region] + o->offset), o->bytes) != 0u) {
            return fw_fail("ethosu stand-in: npu_replay.bin ends before this region call\n");
        }
    }
    return 0;
}
#endif

/** The base addresses and sizes against fw_expect; the regions are invoked in schedule order, once each per
 * inference, so call number fw_invokes is region fw_invokes % count (two regions may share a command stream length).
 * *found is the entry. */
static int fw_check_regions(uint32_t cmd_bytes, const uint64_t *base, const size_t *size, int n,
                            const fw_npu_region_expect **found)
{
    const fw_npu_region_expect *e;
    int i;
    if (n < FW_FIXED_REGIONS || n > FW_MAX_REGIONS) {
        return fw_fail("ethosu stand-in: num_base_addr must be 3..8 (weights, scratch, fast scratch, I/O)\n");
    }
    for (i = 0; i < n; i++) {
        if ((base[i] & 15u) != 0u) {
            return fw_fail("ethosu stand-in: a base address is not 16-byte aligned\n");
        }
    }
    e = &fw_expect[(size_t)fw_invokes % (sizeof fw_expect / sizeof fw_expect[0])];
    if (e->cmd_bytes != cmd_bytes) {
        return fw_fail("ethosu stand-in: the command stream length differs from the region due at this call\n");
    }
    if (size[0] != e->weights_bytes || base[0] == 0u) {
        return fw_fail("ethosu stand-in: region 0 (weights) size differs from Vela's\n");
    }
    if (size[1] < e->scratch_bytes || (e->scratch_bytes != 0u && base[1] == 0u)) {
        return fw_fail("ethosu stand-in: region 1 (scratch) is smaller than Vela's scratch\n");
    }
    if (size[2] < e->scratch_fast_bytes || (e->scratch_fast_bytes != 0u && base[2] == 0u)) {
        return fw_fail("ethosu stand-in: region 2 (fast scratch) is smaller than Vela's fast scratch\n");
    }
    if (e->scratch_fast_bytes != 0u && base[1] < base[2] + size[2] && base[2] < base[1] + size[1]) {
        return fw_fail("ethosu stand-in: scratch and fast scratch overlap\n");
    }
    *found = e;
    return 0;
}

int ethosu_invoke_v3(struct ethosu_driver *drv, const void *custom_data_ptr, const int custom_data_size,
                     uint64_t *const base_addr, const size_t *base_addr_size, const int num_base_addr,
                     void *user_arg)
{
    const fw_npu_region_expect *expect = NULL;
    (void)user_arg;
    fw_error = "";
    if (drv != &fw_driver || !fw_driver.reserved) {
        return fw_fail("ethosu stand-in: invoke without a reserved driver\n");
    }
    if (custom_data_ptr == NULL || custom_data_size <= 0 || (custom_data_size & 3) != 0) {
        return fw_fail("ethosu stand-in: the payload length is not a positive multiple of 4\n");
    }
    if (((uintptr_t)custom_data_ptr & 15u) != 0u) {
        return fw_fail("ethosu stand-in: the command stream payload is not 16-byte aligned\n");
    }
    if (base_addr == NULL || base_addr_size == NULL) {
        return fw_fail("ethosu stand-in: no base addresses\n");
    }
    if (fw_check_payload((const uint32_t *)custom_data_ptr, (uint32_t)custom_data_size / 4u) != 0 ||
        fw_check_regions((uint32_t)custom_data_size, base_addr, base_addr_size, num_base_addr, &expect) != 0) {
        return -1;
    }
#ifdef FW_NPU_REPLAY
    if (fw_replay_outputs(expect, base_addr, base_addr_size, num_base_addr) != 0) {
        return -1;
    }
#else
    (void)expect;
#endif
    fw_invokes++;
    return 0;
}
