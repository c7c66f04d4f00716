/* The simulator recognises these functions by their ELF symbol and reads the layer index from r0 on entry; their
 * own instructions are counted but cost no cycles there. noinline/noipa keep one real call per marker. */
#include "fw_profile.h"

__attribute__((noinline, noipa)) void fw_profile_begin(unsigned index)
{
    __asm__ volatile("" : : "r"(index));
}

__attribute__((noinline, noipa)) void fw_profile_end(unsigned index)
{
    __asm__ volatile("" : : "r"(index));
}
