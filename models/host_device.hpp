#pragma once
// BACKSWEEP_HOST_DEVICE marks functions that must run both on the host and inside
// CUDA kernels (models, Dual arithmetic, steppers). It is empty for host compilers.
#if defined(__CUDACC__)
#define BACKSWEEP_HOST_DEVICE __host__ __device__
#else
#define BACKSWEEP_HOST_DEVICE
#endif

// Forces inlining of the few functions on the stepping hot path, where the compiler's
// own heuristics give up on large tableaux (measured in bench/rk4_lorenz).
#if defined(__GNUC__)
#define BACKSWEEP_INLINE inline __attribute__((always_inline))
#else
#define BACKSWEEP_INLINE inline
#endif

// Asks for a short loop (over Runge-Kutta stages) to be unrolled; after inlining its
// bounds are known and small. nvcc spells the pragma differently from GCC.
#if defined(__CUDACC__)
#define BACKSWEEP_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__clang__)
#define BACKSWEEP_UNROLL _Pragma("GCC unroll 8")
#else
#define BACKSWEEP_UNROLL
#endif
