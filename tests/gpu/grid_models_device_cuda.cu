// tests/gpu/grid_models_device.test.cpp built by nvcc for CUDA: a translation unit of
// test_gpu_thrust_backend_cuda (thrust_backend_cuda.cu), compiled beside the others.
#include "tests/gpu/grid_models_device.test.cpp"
