// bench/ensemble_lorenz.bench.cpp built by nvcc: the member sweep a GPU thread against the CPU backend.
#include "bench/ensemble_lorenz.bench.cpp"
