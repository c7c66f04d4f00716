/* Types shared by hooks.c and its cffi declaration in mcucomp/perf/sim.py (which reads this file, so it holds only
 * what cffi's cdef accepts: integer #defines, typedefs, prototypes). */
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
} mc_state;

void mc_block_hook(void *uc, uint64_t address, uint32_t size, void *user_data);
void mc_flash_read_hook(void *uc, int type, uint64_t address, int size, int64_t value, void *user_data);

