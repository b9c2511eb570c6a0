// bench/backend_gray_scott.bench.cpp built by nvcc: the CUDA backend against the CPU's.
#include "bench/backend_gray_scott.bench.cpp"
