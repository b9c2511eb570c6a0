// bench/backend_grid_models.bench.cpp built by nvcc: the CUDA backend against the CPU's.
#include "bench/backend_grid_models.bench.cpp"
