"""conv2d_f32's paths in Python, one module per path as the runtime has one C file per path: the cost terms of each
path's C loops (mcucomp/ops/conv2d_f32.py picks the path and calls them)."""
