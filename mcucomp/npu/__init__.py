"""NPU offload (Arm Ethos-U through Vela): one module per stage."""
