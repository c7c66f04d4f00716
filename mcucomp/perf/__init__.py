"""Cycles: the instruction-level Cortex-M cycle simulator (sim.py, timing tables in timing/) and `mcucomp profile`
(profile.py); the estimator that needs no toolchain lives in estimate.py."""
