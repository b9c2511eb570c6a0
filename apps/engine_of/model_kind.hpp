#pragma once
// The model kind this translation unit compiles the engine's entries for: ModelKinds'
// element BACKSWEEP_MODEL_KIND (apps/CMakeLists.txt compiles each file once per kind).
// Its steppers, on the model and on the model with a running cost, on doubles and on the
// tangents' lanes, are compiled once per method family, in explicit_steppers.cpp (the
// running cost's and the tangents' in explicit_cost_steppers.cpp and
// explicit_tangent_steppers.cpp) and implicit_steppers.cpp; the entries'
// files only declare them.
#include <memory>
#include <tuple>

#include "io/assembly/config_objective.hpp"
#include "io/assembly/visit_model.hpp"
#include "models/derivatives.hpp"
#include "models/sparse_jacobian.hpp"
#include "solvers/stepper_factory.hpp"

#ifndef BACKSWEEP_MODEL_KIND
#error "apps/engine_of/*.cpp are compiled once per model kind, with BACKSWEEP_MODEL_KIND set"
#endif

namespace backsweep::apps {
static_assert(std::tuple_size_v<ModelKinds> == 2, "apps/CMakeLists.txt compiles these files once per model kind: count them there");
using ModelKind = std::tuple_element_t<BACKSWEEP_MODEL_KIND, ModelKinds>;
using ModelKindWithCost = WithQuadrature<ModelKind, ConfigRunning>;
using TangentLanes = Dual<double, kDerivativeLanes>;
}  // namespace backsweep::apps

// `extern` (declared) or nothing (instantiated), on doubles (T = double) or the forward
// tangents' lanes (T = Dual<double, kDerivativeLanes>).
#define BACKSWEEP_KIND_EXPLICIT_STEPPERS(extern_or_not, M, T)                                          \
  extern_or_not template std::unique_ptr<backsweep::ErasedStepper<M, T, backsweep::CpuAlgebra>>        \
  backsweep::make_explicit_stepper<T, backsweep::CpuAlgebra, M>(const M&, const backsweep::ButcherTableau&, \
                                                                const backsweep::TimeEvents*);
#define BACKSWEEP_KIND_IMPLICIT_STEPPERS(extern_or_not, M, T)                                          \
  extern_or_not template std::unique_ptr<backsweep::ErasedStepper<M, T, backsweep::CpuAlgebra>>        \
  backsweep::make_implicit_stepper<T, backsweep::CpuAlgebra, M>(                                        \
      const M&, const backsweep::ButcherTableau&, const backsweep::NewtonOptions&, const backsweep::TimeEvents*);
// Every (model, scalar) pair of the kind, for one of the macros above.
#define BACKSWEEP_KIND_STEPPERS(steppers, extern_or_not)                                     \
  steppers(extern_or_not, backsweep::apps::ModelKind, double)                                \
  steppers(extern_or_not, backsweep::apps::ModelKindWithCost, double)                        \
  steppers(extern_or_not, backsweep::apps::ModelKind, backsweep::apps::TangentLanes)         \
  steppers(extern_or_not, backsweep::apps::ModelKindWithCost, backsweep::apps::TangentLanes)
// The derivatives of the held models and of the kind itself, with and without a running
// cost (their colourings' Dual passes, CVODES's sparse Jacobian), compiled in derivatives.cpp.
extern template class backsweep::Derivatives<backsweep::apps::ModelKind, double>;
extern template class backsweep::SparseJacobian<backsweep::apps::ModelKind, double>;
extern template class backsweep::SparseJacobian<backsweep::apps::ModelKindWithCost, double>;
BACKSWEEP_KIND_STEPPERS(BACKSWEEP_KIND_EXPLICIT_STEPPERS, extern)
BACKSWEEP_KIND_STEPPERS(BACKSWEEP_KIND_IMPLICIT_STEPPERS, extern)
