/* Types shared by hooks.c and its cffi declaration in mcucomp/perf/sim.py (which reads this file, so it holds only
 * what cffi's cdef accepts: integer #defines, typedefs, prototypes). */

/* A block's FP operand interlocks (mcucomp/perf/timing.py, FpTiming); register n = Sn; times in cycles. */
typedef struct {
    uint32_t reads;                 /* registers the block reads before writing them */
    uint32_t acc_reads;             /* of those, first read as a multiply-accumulate's accumulator */
    uint32_t writes;                /* registers the block writes */
    float read_at[32];      /* issue offset of that first read from the block's start */
    float ready[32];        /* the written value is ready for any use, relative to the block's end */
    float ready_acc[32];    /* ... for use as an accumulator */
    float gap_at;                   /* first instruction barred after a MAC, offset from the start; < 0: none */
    float mac_at;                   /* the last MAC's issue relative to the block's end (has_mac) */
    uint32_t has_mac;
    float mac_gap;                  /* barred for mac_gap + 1 cycles after a MAC's issue */
    uint32_t n_window;              /* instructions before the block's first MAC that cost more in that window */
    float window_at[4];             /* their issue offsets from the block's start */
    float window_extra[4];          /* and their extra cycles there */
} mc_fp;

typedef struct {
    uint32_t address;
    uint32_t size;
    uint32_t instructions;
    int32_t action;       /* >= 0: call state->action(action) when the block starts */
    uint32_t fall;        /* fall-through address */
    uint32_t used;
    double cycles;        /* static cost, last instruction not taken */
    double taken_extra;   /* added when the next block does not start at fall */
    double misaligned;    /* added to the previous block's taken_extra when this block is a branch target */
    uint32_t head_ls;     /* the first instruction is a load or store that pipelines after a load (cores that do) */
    uint32_t tail_load;   /* the last instruction is a single load */
    uint64_t head_reads;  /* registers the first instruction reads, bit (capstone id % 64) */
    uint64_t tail_writes; /* registers the last instruction writes, as head_reads */
    mc_fp *fp;            /* FP interlocks (cores whose table has FP latencies), or NULL */
} mc_block;

typedef struct {
    uint32_t base;
    uint32_t end;         /* exclusive */
    uint32_t wait_states;
} mc_flash;

#define MC_MAX_FLASH 4

typedef struct {
    double cycles;
    double stalls;
    uint64_t instructions;
    uint32_t fall;
    double pending;
    uint32_t tail_load;   /* the last block's tail_load and tail_writes (a fall-through may split a run of loads) */
    uint64_t tail_writes;
    mc_block *slots;      /* open-addressing table, mask + 1 entries */
    uint32_t mask;
    uint32_t used;
    mc_block scratch;     /* when the table is 3/4 full: decode every time (correct, slow) */
    void (*decode)(uint32_t address, uint32_t size, mc_block *out);
    void (*action)(int32_t action);
    mc_flash flash[MC_MAX_FLASH];
    uint32_t n_flash;
    uint32_t sets;        /* data cache geometry; ways == 0: no cache */
    uint32_t ways;
    uint32_t line_shift;
    uint32_t *tags;       /* sets * ways */
    uint64_t *stamps;     /* 0 = empty way; otherwise last use */
    uint64_t clock;
    double fp_ready[32];      /* when each FP register's value is ready (absolute cycles) */
    double fp_ready_acc[32];  /* ... as an accumulator */
    double mac_at;                    /* the last multiply-accumulate's issue (absolute cycles) */
} mc_state;

void mc_block_hook(void *uc, uint64_t address, uint32_t size, void *user_data);
void mc_flash_read_hook(void *uc, int type, uint64_t address, int size, int64_t value, void *user_data);

