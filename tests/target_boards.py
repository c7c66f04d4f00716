"""The boards the on-target tests run on: one per QEMU core."""

#: M4 (nucleo-l4r5zi, an386), M7 (disco-f746ng, an500), M33 (nucleo-u575zi, an505), M55 (corstone-300, an547):
#: the DSP extension and an FPU; M0+ (nucleo-g0b1re, an385): ARMv6-M, no FPU.
CORE_BOARDS = ["nucleo-l4r5zi", "disco-f746ng", "nucleo-u575zi", "corstone-300", "nucleo-g0b1re"]
#: The boards of CORE_BOARDS whose cores have the DSP extension and an FPU.
DSP_BOARDS = CORE_BOARDS[:4]
