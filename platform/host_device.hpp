#pragma once
// BACKSWEEP_HOST_DEVICE marks functions that must run both on the host and inside
// CUDA kernels (models, Dual arithmetic, steppers). It is empty for host compilers.
#if defined(__CUDACC__)
#define BACKSWEEP_HOST_DEVICE __host__ __device__
#else
#define BACKSWEEP_HOST_DEVICE
#endif

// For templates that run inside a kernel for some arguments (a per-thread algebra, a
// device model) and call host code for others (a std::vector, a config model): nvcc then
// checks the calls only where a kernel instantiates them (Thrust's exec-check-disable).
//   BACKSWEEP_EXEC_CHECK_DISABLE  before a function template, ahead of `template <...>`;
//   BACKSWEEP_HOST_DEVICE_TEMPLATE  the pragma and the marks, for a class template's member.
#if defined(__CUDACC__)
#define BACKSWEEP_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#define BACKSWEEP_HOST_DEVICE_TEMPLATE _Pragma("nv_exec_check_disable") __host__ __device__
#else
#define BACKSWEEP_EXEC_CHECK_DISABLE
#define BACKSWEEP_HOST_DEVICE_TEMPLATE
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
