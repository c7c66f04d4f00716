"""The boards the on-target tests run on: one per QEMU core."""

#: M4 (nucleo-l4r5zi, an386), M7 (disco-f746ng, an500), M33 (nucleo-u575zi, an505), M55 (corstone-300, an547):
#: the DSP extension and an FPU; M0+ (nucleo-g0b1re, an385): ARMv6-M, no FPU.
CORE_BOARDS = ["nucleo-l4r5zi", "disco-f746ng", "nucleo-u575zi", "corstone-300", "nucleo-g0b1re"]
#: The boards of CORE_BOARDS whose cores have the DSP extension and an FPU.
DSP_BOARDS = CORE_BOARDS[:4]


def check_stack_bound(result) -> None:
    """The fit check's stack figure is a bound that holds and is tight: at or above the stack high-water mark QEMU's
    painted stack showed (mcucomp.target.verify.OnTargetResult), and at most 1.25 times it plus 256 B."""
    water, bound = result.stack_high_water, result.stack_estimate
    assert water is not None, result.detail
    assert water <= bound <= 1.25 * water + 256, f"{result.board}: stack high-water {water} B, bound {bound} B"
