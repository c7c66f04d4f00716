/* Unicorn callbacks of the mcucomp cycle simulator (mcucomp/perf/sim.py). They run for every executed basic block
 * and every data read from flash, millions of times per inference, so they are C: Python only decodes and prices
 * each block once (decode callback) and handles the layer markers (action callback). Host-only code. */
#include <stddef.h>
#include <stdint.h>

#include "hooks.h"

static mc_block *mc_find(mc_state *s, uint32_t address, uint32_t size)
{
    uint32_t i = ((address >> 1) * 2654435761u) & s->mask;
    for (;;) {
        mc_block *b = &s->slots[i];
        if (b->used && b->address == address && b->size == size) {
            return b;
        }
        if (!b->used) {
            if (s->used >= s->mask - (s->mask >> 2)) {
                b = &s->scratch;
            } else {
                s->used++;
            }
            b->used = 1;
            b->address = address;
            b->size = size;
            s->decode(address, size, b);
            return b;
        }
        i = (i + 1u) & s->mask;
    }
}

/* Cycles the block at start waits for FP results of earlier blocks (an in-order core stalls its first dependent
 * instruction, and with it the rest of the block), plus what its first loads/stores cost more when they issue in the
 * window after an earlier block's multiply-accumulate. */
static double mc_fp_stall(const mc_state *s, const mc_fp *f, double start)
{
    double stall = 0.0;
    for (uint32_t m = f->reads; m != 0; m &= m - 1u) {
        int r = __builtin_ctz(m);
        double ready = (f->acc_reads >> r & 1u) ? s->fp_ready_acc[r] : s->fp_ready[r];
        double wait = ready - (start + f->read_at[r]);
        if (wait > stall) {
            stall = wait;
        }
    }
    if (f->gap_at >= 0.0f) {
        double wait = s->mac_at + 1.0 + f->mac_gap - (start + f->gap_at);
        if (wait > stall) {
            stall = wait;
        }
    }
    for (uint32_t i = 0; i < f->n_window; ++i) {
        if (start + stall + f->window_at[i] < s->mac_at + 1.0 + f->mac_gap) {
            stall += f->window_extra[i];
        }
    }
    return stall;
}

static void mc_fp_retire(mc_state *s, const mc_fp *f, double end)
{
    for (uint32_t m = f->writes; m != 0; m &= m - 1u) {
        int r = __builtin_ctz(m);
        s->fp_ready[r] = end + f->ready[r];
        s->fp_ready_acc[r] = end + f->ready_acc[r];
    }
    if (f->has_mac) {
        s->mac_at = end + f->mac_at;
    }
}

void mc_block_hook(void *uc, uint64_t address, uint32_t size, void *user_data)
{
    mc_state *s = (mc_state *)user_data;
    mc_block *b = mc_find(s, (uint32_t)address, size);
    (void)uc;
    if ((uint32_t)address != s->fall) {
        s->cycles += s->pending + b->misaligned;
    } else if (s->tail_load && b->head_ls && !(s->tail_writes & b->head_reads)) {
        /* straight on across a block boundary the emulator made (a 1 KB page): the load pipelines as in one block */
        s->cycles -= 1.0;
    }
    s->tail_load = b->tail_load;
    s->tail_writes = b->tail_writes;
    if (b->fp != NULL) {
        s->cycles += mc_fp_stall(s, b->fp, s->cycles);
    }
    s->cycles += b->cycles;
    if (b->fp != NULL) {
        mc_fp_retire(s, b->fp, s->cycles);
    }
    s->instructions += b->instructions;
    s->fall = b->fall;
    s->pending = b->taken_extra;
    if (b->action >= 0) {
        s->action(b->action);
    }
}

void mc_flash_read_hook(void *uc, int type, uint64_t address, int size, int64_t value, void *user_data)
{
    mc_state *s = (mc_state *)user_data;
    uint32_t a = (uint32_t)address;
    uint32_t ws = 0;
    (void)uc;
    (void)type;
    (void)size;
    (void)value;
    for (uint32_t r = 0; r < s->n_flash; ++r) {
        if (a >= s->flash[r].base && a < s->flash[r].end) {
            ws = s->flash[r].wait_states;
        }
    }
    if (s->ways == 0) {
        s->stalls += ws;
        return;
    }
    uint32_t line = a >> s->line_shift;
    uint32_t *tags = s->tags + (size_t)(line % s->sets) * s->ways;
    uint64_t *stamps = s->stamps + (size_t)(line % s->sets) * s->ways;
    uint32_t victim = 0;
    s->clock++;
    for (uint32_t w = 0; w < s->ways; ++w) {
        if (stamps[w] != 0 && tags[w] == line) {
            stamps[w] = s->clock;
            return;
        }
        if (stamps[w] < stamps[victim]) {
            victim = w;
        }
    }
    s->stalls += ws;
    tags[victim] = line;
    stamps[victim] = s->clock;
}
