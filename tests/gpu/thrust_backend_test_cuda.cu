// tests/gpu/thrust_backend.test.cpp built by nvcc for CUDA: a translation unit of
// test_gpu_thrust_backend_cuda (thrust_backend_cuda.cu), compiled beside the others.
#include "tests/gpu/thrust_backend.test.cpp"
