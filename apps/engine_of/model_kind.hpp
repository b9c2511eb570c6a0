#pragma once
// The model kind this translation unit compiles the engine's entries for: ModelKinds'
// element BACKSWEEP_MODEL_KIND (apps/CMakeLists.txt compiles each file once per kind).
// Its steppers, on the model and on the model with a running cost, are compiled once per
// method family, in explicit_steppers.cpp and implicit_steppers.cpp; the entries' files
// only declare them.
#include <memory>
#include <tuple>

#include "io/assembly/config_objective.hpp"
#include "io/assembly/visit_model.hpp"
#include "solvers/stepper_factory.hpp"

#ifndef BACKSWEEP_MODEL_KIND
#error "apps/engine_of/*.cpp are compiled once per model kind, with BACKSWEEP_MODEL_KIND set"
#endif

namespace backsweep::apps {
static_assert(std::tuple_size_v<ModelKinds> == 2, "apps/CMakeLists.txt compiles these files once per model kind: count them there");
using ModelKind = std::tuple_element_t<BACKSWEEP_MODEL_KIND, ModelKinds>;
using ModelKindWithCost = WithQuadrature<ModelKind, ConfigRunning>;
}  // namespace backsweep::apps

// `extern` (declared) or nothing (instantiated).
#define BACKSWEEP_KIND_EXPLICIT_STEPPERS(extern_or_not, M)                                              \
  extern_or_not template std::unique_ptr<backsweep::AnyStepper<M, double, backsweep::CpuAlgebra>>       \
  backsweep::make_explicit_stepper<double, backsweep::CpuAlgebra, M>(const M&, const backsweep::ButcherTableau&, \
                                                                     const backsweep::TimeEvents*);
#define BACKSWEEP_KIND_IMPLICIT_STEPPERS(extern_or_not, M)                                              \
  extern_or_not template std::unique_ptr<backsweep::AnyStepper<M, double, backsweep::CpuAlgebra>>       \
  backsweep::make_implicit_stepper<double, backsweep::CpuAlgebra, M>(                                    \
      const M&, const backsweep::ButcherTableau&, const backsweep::NewtonOptions&, const backsweep::TimeEvents*);
BACKSWEEP_KIND_EXPLICIT_STEPPERS(extern, backsweep::apps::ModelKind)
BACKSWEEP_KIND_EXPLICIT_STEPPERS(extern, backsweep::apps::ModelKindWithCost)
BACKSWEEP_KIND_IMPLICIT_STEPPERS(extern, backsweep::apps::ModelKind)
BACKSWEEP_KIND_IMPLICIT_STEPPERS(extern, backsweep::apps::ModelKindWithCost)
