/* Semihosting: r0 = operation, r1 = pointer to the argument block, result in r0. */
#include "fw_semihost.h"

#include <stdint.h>
#include <string.h>

#define SYS_OPEN 0x01u
#define SYS_CLOSE 0x02u
#define SYS_WRITE0 0x04u
#define SYS_WRITE 0x05u
#define SYS_READ 0x06u
#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

static uintptr_t fw_semihost(uintptr_t op, const void *args)
{
    register uintptr_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = args;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

int fw_open(const char *path, int mode)
{
    uintptr_t args[3] = {(uintptr_t)path, (uintptr_t)mode, (uintptr_t)strlen(path)};
    return (int)fw_semihost(SYS_OPEN, args);
}

size_t fw_read(int handle, void *buf, size_t n)
{
    uintptr_t args[3] = {(uintptr_t)handle, (uintptr_t)buf, (uintptr_t)n};
    return (size_t)fw_semihost(SYS_READ, args);
}

size_t fw_write(int handle, const void *buf, size_t n)
{
    uintptr_t args[3] = {(uintptr_t)handle, (uintptr_t)buf, (uintptr_t)n};
    return (size_t)fw_semihost(SYS_WRITE, args);
}

void fw_close(int handle)
{
    uintptr_t args[1] = {(uintptr_t)handle};
    (void)fw_semihost(SYS_CLOSE, args);
}

void fw_print(const char *text)
{
    (void)fw_semihost(SYS_WRITE0, text);
}

void fw_exit(int status)
{
    uintptr_t args[2] = {ADP_STOPPED_APPLICATION_EXIT, (uintptr_t)status};
    for (;;) {
        (void)fw_semihost(SYS_EXIT_EXTENDED, args);
    }
}
