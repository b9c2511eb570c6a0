// The explicit steppers on doubles of the model kind with a running cost (model_kind.hpp),
// compiled here once for every entry.
#include "apps/engine_of/model_kind.hpp"
BACKSWEEP_KIND_EXPLICIT_STEPPERS(, backsweep::apps::ModelKindWithCost, double)
