"""gemm_f32's packed paths in Python, one module per path as the runtime has one C file per path, and the row-block
packing they share with rnn_f32 (runtime_c/kernels/matvec_f32.h): the cost terms of their loops."""
