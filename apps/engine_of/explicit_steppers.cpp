// The model kind's explicit steppers (model_kind.hpp), compiled here once for every entry.
#include "apps/engine_of/model_kind.hpp"
BACKSWEEP_KIND_STEPPERS(BACKSWEEP_KIND_EXPLICIT_STEPPERS, )
