# BACKSWEEP_CUDA: the Thrust backend built for CUDA with nvcc (gpu/), on when nvcc is
# found. The language is enabled here, at the top, so every folder can build CUDA.
find_program(BACKSWEEP_NVCC nvcc PATHS /usr/local/cuda/bin)
set(cuda_default OFF)
if(BACKSWEEP_NVCC AND NOT BACKSWEEP_SANITIZE)
  set(cuda_default ON)
endif()
option(BACKSWEEP_CUDA "Build the Thrust backend for CUDA with nvcc" ${cuda_default})
if(BACKSWEEP_CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    set(CMAKE_CUDA_COMPILER ${BACKSWEEP_NVCC})
  endif()
  # No GPU is needed to compile: Hopper (H100) unless the caller names another, or native.
  if(NOT CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
  enable_language(CUDA)
  # CMake 3.25 does not know nvcc's flag for C++20 (the engine's dialect): teach it.
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()
