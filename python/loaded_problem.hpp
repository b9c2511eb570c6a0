#pragma once
// backsweep._core.load and LoadedProblem (loaded_problem.cpp): PEtab problems read once,
// evaluated at any parameters.
#include <nanobind/nanobind.h>

namespace backsweep::python {

void bind_loaded_problem(nanobind::module_& module);

}  // namespace backsweep::python
