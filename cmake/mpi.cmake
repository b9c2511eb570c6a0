# MPI (Debian's Open MPI): runs spread over ranks under mpirun (platform/mpi_ranks.cpp).
# On where CMake finds it; without it, or with it off, every run has one rank. Off under
# the sanitizers, whose leak reports Open MPI's own allocations would fill.
find_package(MPI COMPONENTS CXX QUIET)
set(mpi_default OFF)
if(MPI_CXX_FOUND AND NOT BACKSWEEP_SANITIZE)
  set(mpi_default ON)
endif()
option(BACKSWEEP_MPI "Build with MPI: runs spread over the ranks of mpirun" ${mpi_default})
if(BACKSWEEP_MPI AND NOT MPI_CXX_FOUND)
  message(FATAL_ERROR "BACKSWEEP_MPI needs MPI for C++ (Debian: libopenmpi-dev)")
endif()
