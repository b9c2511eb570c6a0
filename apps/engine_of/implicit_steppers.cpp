// The model kind's implicit steppers (model_kind.hpp), compiled here once for every entry.
#include "apps/engine_of/model_kind.hpp"
BACKSWEEP_KIND_STEPPERS(BACKSWEEP_KIND_IMPLICIT_STEPPERS, )
