"""Micro-benchmarks: tiny Thumb sequences whose cycle counts follow by hand from the timing tables' TRM entries.

M4 = Cortex-M4 TRM (Arm DDI 0439B) Table 3-1 / FPU Table 7-1; M0+ = Cortex-M0+ TRM (Arm DDI 0484C) Table 3-1.
M7 FP = mcucomp/perf/timing/cortex-m7.toml (LLVM ARMScheduleM7.td and STM32H743 measurements): one FP instruction per
cycle; VFMA result 3 cycles after issue into the next MAC's accumulator, 5 otherwise; VADD/VMUL 3; VLDR 1 (0.5
cycle issue, 1 in the 3 cycles after a MAC); VLDM ceil(N/2), and VLDM/VADD wait until 4 cycles after a MAC's issue.
M7 integer approximation: ALU 0.5, direct branch 1 whether taken or not.
P (pipeline refill after a taken branch) = 1 for a direct branch, 2 for a register target, +1 when the target is
a 32-bit instruction that is not word aligned (mcucomp/perf/timing/cortex-m4.toml header)."""

import pytest

from mcucomp.perf.memory import DataCache
from microbench import run_snippet

N = 10  # loop iterations


def loop(body: str, setup: str = "mov.w") -> str:
    """body repeated N times by a `subs r7, #1; bne` loop; r7 = N set before it by `setup` (1 cycle; the 32-bit
    mov.w makes the loop start word aligned, ARMv6-M has only the 16-bit movs)."""
    return f"    {setup} r7, #{N}\nloop:\n{body}\n    subs r7, #1\n    bne loop\n"


@pytest.mark.parametrize("core", ["cortex-m4", "cortex-m33"])
def test_independent_ldr_loop_pipelines(core):
    """4 independent LDRs: 2 + 1 + 1 + 1 (neighbouring loads pipeline, M4 Table 3-1 note); subs 1; bne taken 1+P
    (P = 1) = 2, not taken the last time 1. Total 1 + N*(5+1+2) - 1. The M33 table assumes the M4's timings."""
    sim = run_snippet(loop("    ldr r1, [r0]\n    ldr r2, [r0, #4]\n    ldr r3, [r0, #8]\n    ldr r4, [r0, #12]"),
                      core=core)
    assert sim.cycles == 1 + N * 8 - 1
    assert sim.instructions == 1 + N * 6


@pytest.mark.parametrize("pad", [508, 509, 510, 511, 512])
def test_loads_pipeline_across_the_emulators_1kb_block_boundary(pad):
    """pad 16-bit MOVs (1 cycle each) put four independent LDRs before, across and after CODE_BASE + 1 KB, where
    the emulator ends its translation blocks: still 2 + 1 + 1 + 1 (one straight line on the core)."""
    sim = run_snippet(f"    .rept {pad}\n    mov r8, r8\n    .endr\n"
                      "    ldr r1, [r0]\n    ldr r2, [r0, #4]\n    ldr r3, [r0, #8]\n    ldr r4, [r0, #12]")
    assert sim.cycles == pad + 5


def test_dependent_ldr_does_not_pipeline():
    """ldr r1,[r0]; ldr r2,[r0, r1]: the second load's address needs the first load's result, so no pipelining:
    2 + 2."""
    sim = run_snippet("    ldr r1, [r0]\n    ldr r2, [r0, r1]")
    assert sim.cycles == 4


def test_str_after_ldr_pipelines_but_nothing_after_str():
    """ldr; str; ldr: the STR follows a load, 1 cycle; nothing pipelines after a store: 2 + 1 + 2."""
    sim = run_snippet("    ldr r1, [r0]\n    str r2, [r0, #4]\n    ldr r3, [r0, #8]")
    assert sim.cycles == 5


@pytest.mark.parametrize("core", ["cortex-m4", "cortex-m33"])
def test_smlad_loop(core):
    """2 SMLAD (1 cycle each, M4 Table 3-1 'SMLAD 1'); subs 1; bne 2 taken (the word-aligned 32-bit SMLAD target
    needs no extra fetch). Total 1 + N*5 - 1."""
    sim = run_snippet(loop("    smlad r0, r1, r2, r0\n    smlad r3, r4, r5, r3"), core=core)
    assert sim.cycles == 1 + N * 5 - 1


def test_taken_branch_loop():
    """Empty loop: subs 1 + bne taken 1+P = 3 per iteration, the last bne not taken 1."""
    sim = run_snippet(loop(""))
    assert sim.cycles == 1 + N * 3 - 1


def test_misaligned_32bit_branch_target_costs_one_more():
    """The same loop whose first instruction is a 32-bit `add.w` at an address = 2 mod 4: P = 2 (two fetches),
    so add.w 1 + subs 1 + bne 3 per taken iteration."""
    aligned = run_snippet(loop("    add.w r1, r1, #1"))
    misaligned = run_snippet("    nop\n" + loop("    add.w r1, r1, #1"))
    assert aligned.cycles == 1 + N * 4 - 1
    assert misaligned.cycles == 1 + 1 + N * 5 - 2


def test_vdiv_sequence():
    """4 VDIV.F32 at 14 cycles each (M4 FPU Table 7-1) and one VSQRT (14)."""
    sim = run_snippet("    vdiv.f32 s0, s1, s2\n    vdiv.f32 s3, s4, s5\n    vdiv.f32 s6, s7, s8\n"
                      "    vdiv.f32 s9, s10, s11\n    vsqrt.f32 s12, s13")
    assert sim.cycles == 5 * 14


def test_fpu_multiply_accumulate_and_moves():
    """VMLA.F32 3, VFMA.F32 3, VADD.F32 1, VMOV core->S 2, VLDR 2 (FPU Table 7-1)."""
    sim = run_snippet("    vmla.f32 s0, s1, s2\n    vfma.f32 s3, s4, s5\n    vadd.f32 s6, s7, s8\n"
                      "    vmov s9, r1\n    vldr s10, [r0]")
    assert sim.cycles == 3 + 3 + 1 + 2 + 2


@pytest.mark.parametrize("core, cycles", [("cortex-m4", 3 + 3 + 2 + 1), ("cortex-m7", 1 + 1 + 0.5 + 0.5)])
def test_double_register_vldr_vstr(core, cycles):
    """VLDR.64 and VSTR.64: 3 each on the M4 (FPU Table 7-1 'single double 3'), not pipelined (two words, like
    LDRD), so the next VLDR.32 is not pipelined either (2), the one after it is (1). M7: 1 each, single issue, then
    two VLDR.32 dual-issue (0.5 + 0.5)."""
    source = "    vldr d3, [r0]\n    vstr d3, [r0, #8]\n    vldr s1, [r0]\n    vldr s2, [r0, #4]"
    assert run_snippet(source, core=core).cycles == cycles


def test_ldm_stm_push_pop():
    """LDM/STM/PUSH/POP 1+N (M4 Table 3-1): ldmia 4 regs 5, stmia 4 regs 5, push 5 regs 6, pop 5 regs 6."""
    sim = run_snippet("    ldmia r0, {r1-r4}\n    stmia r0!, {r1-r4}\n    push {r4-r7, lr}\n    pop {r4-r7, r12}",
                      registers={"sp": 0x2000_8000})
    assert sim.cycles == 5 + 5 + 6 + 6


@pytest.mark.parametrize("dividend, divisor, cycles", [
    (100, 7, 2 + 2),              # quotient 14: 4 bits -> 2 + ceil(10*4/32) = 4
    (0xFFFF_FFFF, 1, 12),         # 32-bit quotient: the TRM maximum, 12
    (5, 9, 2),                    # quotient 0: early termination at the TRM minimum, 2
])
def test_udiv_operand_dependent(dividend, divisor, cycles):
    """UDIV 2-12 (M4 Table 3-1), interpolated in the quotient's significant bits (cortex-m4.toml, divide)."""
    sim = run_snippet("    udiv r3, r1, r2", registers={"r1": dividend, "r2": divisor})
    assert sim.cycles == cycles
    assert sim.reg("r3") == dividend // divisor


def test_flash_data_reads_through_the_data_cache():
    """64 byte loads walking 64 bytes of flash constants with 5 WS behind an 8 x 32 B cache: 2 line misses, 10
    stall cycles; without a cache every read pays 5. Zero-wait cycles are the same either way."""
    body = "    adr r1, table\n    movs r2, #64\nrd:\n    ldrb r3, [r1], #1\n    subs r2, #1\n    bne rd\n    b end\n" \
           "    .align 5\ntable:\n    .space 64\n"
    cached = run_snippet(body, wait_states=5, cache=DataCache(8, 32, 8, "test"))
    uncached = run_snippet(body, wait_states=5)
    assert cached.stall_cycles == 2 * 5
    assert uncached.stall_cycles == 64 * 5
    assert cached.cycles == uncached.cycles


def test_m0plus_loads_branches_and_multiply():
    """M0+ (DDI 0484C Table 3-1): LDR 2 each (no pipelining), MULS 1 (fast multiplier), subs 1, B<cond> taken 2 /
    not taken 1: per iteration 2+2+1+1+2; total 1 + N*8 - 1."""
    sim = run_snippet(loop("    ldr r1, [r0]\n    ldr r2, [r0, #4]\n    muls r1, r2, r1", setup="movs"),
                      core="cortex-m0plus")
    assert sim.cycles == 1 + N * 8 - 1


def test_m0plus_call_and_return():
    """M0+: BL 3, PUSH {r4, lr} 1+2, POP {r4, pc} 3+2, then movs 1 (the return lands on it)."""
    source = "    bl func\n    movs r1, #1\n    b end\nfunc:\n    push {r4, lr}\n    pop {r4, pc}\n"
    sim = run_snippet(source, core="cortex-m0plus", registers={"sp": 0x2000_8000})
    assert sim.cycles == 3 + 3 + 5 + 1 + 2  # the final `b end` is taken: 2


def test_m4_call_and_return():
    """M4: BL 1+P (P=1), PUSH 1+2, POP {r4, pc} 1+2+P (P=2, target from memory), movs 1, b 1+P (P=1)."""
    source = "    bl func\n    movs r1, #1\n    b end\nfunc:\n    push {r4, lr}\n    pop {r4, pc}\n"
    sim = run_snippet(source, registers={"sp": 0x2000_8000})
    assert sim.cycles == 2 + 3 + 5 + 1 + 2


M7 = "cortex-m7"


def test_m7_dependent_vfma_chain_waits_for_the_accumulator():
    """One VFMA per iteration into s0: mov.w 0.5; per iteration vfma 1 + subs 0.5 + bne 1 = 2.5, and every VFMA
    after the first reads s0 as its accumulator 3 cycles after the previous one issued, so it waits 0.5 across the
    loop's back edge: 3 per MAC. Total 0.5 + 2.5 + (N-1)*3."""
    sim = run_snippet(loop("    vfma.f32 s0, s1, s2"), core=M7)
    assert sim.cycles == 0.5 + 2.5 + (N - 1) * 3


def test_m7_four_independent_accumulators_issue_every_cycle():
    """Four VFMAs into s0..s3: 4 + subs 0.5 + bne 1 = 5.5 per iteration; s0 is next read 5.5 cycles after its VFMA
    issued (>= 3): no wait, 1 cycle per MAC. Total 0.5 + N*5.5. Straight-line, a chain of four VFMAs into s0 costs
    1 + 3*3 = 10 against 4 for four accumulators."""
    four = "    vfma.f32 s0, s8, s9\n    vfma.f32 s1, s8, s10\n    vfma.f32 s2, s8, s11\n    vfma.f32 s3, s8, s12"
    assert run_snippet(loop(four), core=M7).cycles == 0.5 + N * 5.5
    chain = "    vfma.f32 s0, s8, s9\n    vfma.f32 s0, s8, s10\n    vfma.f32 s0, s8, s11\n    vfma.f32 s0, s8, s12"
    assert run_snippet(chain, core=M7).cycles == 1 + 3 * 3
    assert run_snippet(four, core=M7).cycles == 4


def test_m7_vldr_pairs_but_not_beside_a_multiply_accumulate():
    """vldr s8; vldr s9 dual-issue (0.5 + 0.5); the VFMA reading s9 waits for its 1-cycle latency (issue at 1.5),
    1 cycle: 2.5. After a VFMA, two VLDRs in its 3-cycle window cost 1 each (no pairing): vfma 1 + 1 + 1 = 3."""
    assert run_snippet("    vldr s8, [r0]\n    vldr s9, [r0, #4]\n    vfma.f32 s0, s8, s9", core=M7).cycles == 2.5
    assert run_snippet("    vfma.f32 s0, s1, s2\n    vldr s8, [r0]\n    vldr s9, [r0, #4]", core=M7).cycles == 3
    assert run_snippet("    vldr s8, [r0]\n    vldr s9, [r0, #4]", core=M7).cycles == 1


def test_m7_vldm_moves_two_registers_per_cycle():
    """VLDM ceil(N/2) on the M7's 64-bit interface: {s0-s3} 2, {s4-s7} 2, {s8} 1, {s9-s11} 2 = 7 (the M4's 1+N:
    5 + 5 + 2 + 4 = 16)."""
    source = "    vldmia r0, {s0-s3}\n    vldmia r0, {s4-s7}\n    vldmia r0!, {s8}\n    vldmia r0, {s9-s11}"
    assert run_snippet(source, core=M7).cycles == 7
    assert run_snippet(source).cycles == 16


def test_m7_vldm_and_vadd_wait_three_cycles_after_a_multiply_accumulate():
    """vfma (issue 0) then vldmia {s4-s5}: barred until cycle 4, then 1: 5 (the other order: 1 + 1 = 2). vfma then an
    independent vadd: likewise 4 + 1 = 5."""
    assert run_snippet("    vfma.f32 s0, s1, s2\n    vldmia r0, {s4-s5}", core=M7).cycles == 5
    assert run_snippet("    vldmia r0, {s4-s5}\n    vfma.f32 s0, s1, s2", core=M7).cycles == 2
    assert run_snippet("    vfma.f32 s0, s1, s2\n    vadd.f32 s3, s4, s5", core=M7).cycles == 5


def test_m7_separate_multiply_then_add_waits_for_the_product():
    """vmul s3; vadd s0, s0, s3: the VADD waits for the product's 3-cycle latency: issue at 3, 4 in all (M4 table:
    1 + 1)."""
    source = "    vmul.f32 s3, s1, s2\n    vadd.f32 s0, s0, s3"
    assert run_snippet(source, core=M7).cycles == 4
    assert run_snippet(source).cycles == 2


def test_m7_gcc_dot_loop_with_post_incremented_loads():
    """GCC's fmaf dot loop: vldmia r0!,{s14} 1; vldmia r1!,{s15} 1; cmp 0.5; vfma 1 (its operands ready 1 cycle
    after the second VLDM: no wait); bne 1 = 4.5, the VFMA issuing 2 cycles before the block's end. The next
    iteration's VLDM waits until 4 cycles after that VFMA: 2 more, 6.5 per MAC. Total 0.5 + 4.5 + (N-1)*6.5."""
    body = "    vldmia.32 r0!, {s14}\n    vldmia.32 r1!, {s15}\n    cmp r0, r2\n    vfma.f32 s0, s14, s15"
    source = f"    add.w r2, r0, #{4 * N}\nloop:\n{body}\n    bne loop\n"
    sim = run_snippet(source, core=M7, registers={"r1": 0x2000_0080})
    assert sim.cycles == 0.5 + 4.5 + (N - 1) * 6.5


def test_m7_vldr_pairs_lost_behind_the_previous_iterations_mac():
    """vldr s8; vldr s9 (0.5 + 0.5); four VFMAs, the first waiting 0.5 for s9 (issue 1.5, 2.5, 3.5, 4.5); subs 0.5;
    bne 1: 7 per iteration, the last VFMA 2.5 cycles before the block's end. In the next iteration both VLDRs issue
    within 3 cycles after that VFMA, so they cannot pair: 1 each, 1 more per iteration. Total 0.5 + 7 + (N-1)*8."""
    body = ("    vldr s8, [r0]\n    vldr s9, [r0, #4]\n    vfma.f32 s0, s8, s9\n    vfma.f32 s1, s8, s9\n"
            "    vfma.f32 s2, s8, s9\n    vfma.f32 s3, s8, s9")
    assert run_snippet(loop(body), core=M7).cycles == 0.5 + 7 + (N - 1) * 8
