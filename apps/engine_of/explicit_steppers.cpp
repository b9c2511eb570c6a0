// The model kind's explicit steppers on doubles (model_kind.hpp), compiled here once for
// every entry; those of the kind with a running cost in explicit_cost_steppers.cpp, those
// on the tangents' lanes in explicit_tangent_steppers.cpp (in one file, the built-in
// ODEs' fixed-size steppers took 66 s).
#include "apps/engine_of/model_kind.hpp"
BACKSWEEP_KIND_EXPLICIT_STEPPERS(, backsweep::apps::ModelKind, double)
