#pragma once
// gpu/ builds for two Thrust device systems, CUDA (nvcc) and OpenMP (the host compiler),
// and one program may hold both (the backsweep command's cuda and omp backends). Each
// build's definitions live in an inline namespace of its own, so the two never share a
// symbol; code names them backsweep::gpu::X either way.
#if defined(__CUDACC__)
#define BACKSWEEP_GPU_NAMESPACE backsweep::gpu::inline cuda_system
#else
#define BACKSWEEP_GPU_NAMESPACE backsweep::gpu::inline omp_system
#endif
