#pragma once
// BACKSWEEP_AVX2_CLONE: a function built twice, for baseline x86-64 and for AVX2, the
// loader picking one for the CPU it runs on (the build targets baseline x86-64). For
// loops over long vectors (grid models' kernels and scans), which run 1.5 to 2 times as
// fast with AVX2; `flatten` inlines what they call into each clone. Elsewhere it is empty.
#if defined(__x86_64__) && !defined(__clang__)
#define BACKSWEEP_AVX2_CLONE __attribute__((target_clones("avx2", "default"), flatten))
#else
#define BACKSWEEP_AVX2_CLONE
#endif
