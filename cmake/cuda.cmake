# BACKSWEEP_CUDA: the Thrust backend built for CUDA with nvcc (gpu/), on when an nvcc of
# CUDA 12 or later is found (C++20), a GPU's driver is there to run it, and the sanitizers
# are off; -DBACKSWEEP_CUDA=ON builds it without a GPU (CI, a login node). The language is
# enabled here, at the top, so every folder can build CUDA.
find_program(BACKSWEEP_NVCC nvcc PATHS /usr/local/cuda/bin NO_DEFAULT_PATH)
find_program(BACKSWEEP_NVCC nvcc)
set(cuda_default OFF)
if(BACKSWEEP_NVCC AND NOT BACKSWEEP_SANITIZE)
  execute_process(COMMAND ${BACKSWEEP_NVCC} --version OUTPUT_VARIABLE nvcc_version ERROR_QUIET)
  # Without a GPU the backend cannot run, and nvcc adds 46 s to the program's build.
  if(nvcc_version MATCHES "release ([0-9]+)\\." AND CMAKE_MATCH_1 GREATER_EQUAL 12 AND EXISTS /dev/nvidiactl)
    set(cuda_default ON)
  endif()
endif()
option(BACKSWEEP_CUDA "Build the Thrust backend for CUDA with nvcc" ${cuda_default})
# The CUDA tests run on a GPU only: built where there is one (and by scripts/gpu_check.sh,
# which packs them for one). Without, a build with CUDA compiles the program's backend and
# the kernels' source, not them: their nvcc builds took 700 of CI's CPU seconds.
set(cuda_tests_default OFF)
if(BACKSWEEP_CUDA AND EXISTS /dev/nvidiactl)
  set(cuda_tests_default ON)
endif()
option(BACKSWEEP_CUDA_TESTS "Build the CUDA tests (they run on a GPU)" ${cuda_tests_default})
if(BACKSWEEP_CUDA AND BACKSWEEP_SANITIZE)
  message(STATUS "BACKSWEEP_CUDA is off in sanitizer builds")
  set(BACKSWEEP_CUDA OFF CACHE BOOL "Build the Thrust backend for CUDA with nvcc" FORCE)
endif()
if(BACKSWEEP_CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    if(NOT BACKSWEEP_NVCC)
      message(FATAL_ERROR "BACKSWEEP_CUDA is on but no nvcc was found (install the CUDA toolkit, 12 or later)")
    endif()
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
