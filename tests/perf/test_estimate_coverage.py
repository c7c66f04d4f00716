"""Every kernel op and code path in the registry has fitted cycle coefficients on every core the estimator is
fitted for (mcucomp/perf/calibration.py CALIBRATION_BOARDS), so that no estimate falls back to the generic element
model. An op is left out only by its own declared properties (mcucomp/ops/base.py KernelOp): `cost_kernel` (it runs
another op's C and uses that op's coefficients, checked there), empty `cost_paths` (no code of its own),
`needs_npu` (only boards with that accelerator run it) or `unlowered_paths` (paths no lowering gives a node)."""

from __future__ import annotations

import json

import pytest

from mcucomp.boards import load_board
from mcucomp.ops import REGISTRY
from mcucomp.perf.calibration import CALIBRATION_BOARDS
from mcucomp.perf.estimate import COEFFICIENT_DIR, GENERIC, path_key


def _paths(core: str) -> dict:
    """The fitted paths of a core."""
    return json.loads((COEFFICIENT_DIR / f"{core}.json").read_text())["paths"]


def _runs_on(op, core: str) -> bool:
    """Whether the core's calibration board can run the op."""
    npu = load_board(CALIBRATION_BOARDS[core]).get("npu")
    return not op.needs_npu or (npu is not None and npu["accelerator"].startswith(op.needs_npu))


@pytest.mark.parametrize("core", sorted(CALIBRATION_BOARDS))
def test_every_kernel_path_is_fitted(core):
    """Each declared path of each op the core runs has coefficients and term ranges."""
    paths = _paths(core)
    missing = [path_key(name, path) for name, op in sorted(REGISTRY.items()) if _runs_on(op, core)
               for path in op.cost_paths if path not in op.unlowered_paths and path_key(name, path) not in paths]
    assert not missing, (f"{len(missing)} kernel paths have no fitted {core} coefficients (add calibration models "
                         f"that run them to mcucomp/perf/calibration.py and refit): " + ", ".join(missing))
    assert all(entry["ranges"] for entry in paths.values())


def test_unlowered_paths_are_declared_paths():
    """A path an op calls unlowered is one of its declared paths, and says why no lowering gives it."""
    for name, op in REGISTRY.items():
        for path, why in op.unlowered_paths.items():
            assert path in op.cost_paths and why, f"{name}.{path}"


def test_shared_kernels_and_views_are_declared():
    """An op that uses another op's coefficients names a registry op and declares no paths of its own; an op with
    no paths either runs another op's C or is a view."""
    for name, op in REGISTRY.items():
        if op.cost_kernel:
            assert op.cost_kernel in REGISTRY and not op.cost_paths, name
            assert REGISTRY[op.cost_kernel].cost_paths, name


@pytest.mark.parametrize("core", sorted(CALIBRATION_BOARDS))
def test_fitted_paths_are_declared(core):
    """Every path the calibration set reached is one its op declares (cost_paths lists what cost_terms returns)."""
    stray = []
    for key in _paths(core):
        if key != GENERIC:
            op, path = key.split(".", 1)
            if path not in REGISTRY[op].cost_paths:
                stray.append(key)
    assert not stray, f"fitted paths that their op does not declare in cost_paths: {stray}"
