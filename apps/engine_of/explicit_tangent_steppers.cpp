// The model kind's explicit steppers on the tangents' lanes (model_kind.hpp), compiled
// here once for every entry.
#include "apps/engine_of/model_kind.hpp"
BACKSWEEP_KIND_EXPLICIT_STEPPERS(, backsweep::apps::ModelKind, backsweep::apps::TangentLanes)
BACKSWEEP_KIND_EXPLICIT_STEPPERS(, backsweep::apps::ModelKindWithCost, backsweep::apps::TangentLanes)
