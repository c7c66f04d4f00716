/* Arm semihosting calls (BKPT 0xAB) used by the mcucomp test firmware: file I/O on the host and exit status.
 * QEMU implements them with -semihosting-config enable=on,target=native. */
#ifndef FW_SEMIHOST_H
#define FW_SEMIHOST_H

#include <stddef.h>

/* Exit codes the firmware reports through SYS_EXIT_EXTENDED; mcucomp.target.run reads them back. */
#define FW_EXIT_OK 0
#define FW_EXIT_IO 10
#define FW_EXIT_RUN 11
#define FW_EXIT_FAULT 12

/* SYS_OPEN modes (ISO C fopen strings "rb" and "wb"). */
#define FW_MODE_RB 1
#define FW_MODE_WB 5

/** Open a host file; returns a handle, or -1. */
int fw_open(const char *path, int mode);
/** Read n bytes; returns how many bytes were NOT read (0 on success). */
size_t fw_read(int handle, void *buf, size_t n);
/** Write n bytes; returns how many bytes were NOT written (0 on success). */
size_t fw_write(int handle, const void *buf, size_t n);
/** Close a host file. */
void fw_close(int handle);
/** Print a NUL-terminated string on the host console. */
void fw_print(const char *text);
/** Print how many bytes of the painted stack were used (fw_startup.c). */
void fw_report_stack(void);
/** Stop the emulator with this exit status. */
void fw_exit(int status) __attribute__((noreturn));

#endif
