"""conv2d_f32's paths in Python, one module per path as the runtime has one C file per path: the C limits a path's
loops mirror and the cost terms of those loops (mcucomp/ops/conv2d_f32.py picks the path and calls them)."""
