/* Reset handler and vector table of the mcucomp test firmware: copy .data, zero .bss, enable the FPU (and
 * Helium) when the build uses it, run main, report its status and the stack high-water mark (the stack is
 * painted at reset). Any fault ends the run with FW_EXIT_FAULT. */
#include "fw_semihost.h"

#include <stdint.h>
#include <string.h>

extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[], __stack_bottom[],
    __stack_top[];
int main(void);
void fw_reset(void) __attribute__((noreturn));

static void fw_fault(void)
{
    fw_print("mcucomp firmware: processor fault\n");
    fw_exit(FW_EXIT_FAULT);
}

/* Initial stack pointer, reset, NMI, HardFault, MemManage, BusFault, UsageFault, SecureFault, 3 reserved, SVC,
 * DebugMon, reserved, PendSV, SysTick. */
__attribute__((section(".isr_vector"), used)) const uintptr_t fw_vectors[16] = {
    (uintptr_t)__stack_top, (uintptr_t)fw_reset, (uintptr_t)fw_fault, (uintptr_t)fw_fault,
    (uintptr_t)fw_fault, (uintptr_t)fw_fault, (uintptr_t)fw_fault, (uintptr_t)fw_fault,
    0u, 0u, 0u, (uintptr_t)fw_fault, (uintptr_t)fw_fault, 0u, (uintptr_t)fw_fault, (uintptr_t)fw_fault,
};

#define FW_STACK_PAINT 0xA5A5A5A5u
/* Bytes at the top of the stack the reset handler itself may be using while it paints the rest. */
#define FW_STACK_RESERVE 64u

void fw_report_stack(void)
{
    static const char digits[] = "0123456789";
    char text[64] = "mcucomp firmware: stack high-water ";
    const uint32_t *p = __stack_bottom;
    while (p < __stack_top && *p == FW_STACK_PAINT) {
        ++p;
    }
    uint32_t used = (uint32_t)((uintptr_t)__stack_top - (uintptr_t)p);
    char number[12];
    int n = 0;
    do {
        number[n++] = digits[used % 10u];
        used /= 10u;
    } while (used != 0u);
    size_t len = strlen(text);
    while (n > 0) {
        text[len++] = number[--n];
    }
    memcpy(text + len, " bytes\n", 8);
    fw_print(text);
}

void fw_reset(void)
{
    uint32_t *const paint_end = (uint32_t *)((uintptr_t)__stack_top - FW_STACK_RESERVE);
    for (uint32_t *p = __stack_bottom; p < paint_end; ++p) {
        *p = FW_STACK_PAINT;
    }
    const uint32_t *src = __data_load;
    for (uint32_t *dst = __data_start; dst < __data_end; ++dst) {
        *dst = *src++;
    }
    for (uint32_t *dst = __bss_start; dst < __bss_end; ++dst) {
        *dst = 0u;
    }
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
    /* CPACR: full access to CP10/CP11 (FPU and MVE), then make the change visible before any FP instruction. */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    int status = main();
    fw_report_stack();
    fw_exit(status);
}
