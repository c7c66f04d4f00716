"""Arm Ethos-U NPU offload: target configs (config.py), Vela in-process (vela.py), regions and their C call."""
