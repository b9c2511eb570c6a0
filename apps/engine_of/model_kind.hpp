#pragma once
// The model kind this translation unit compiles the engine's entries for: ModelKinds'
// element BACKSWEEP_MODEL_KIND (apps/CMakeLists.txt compiles each file once per kind).
#include <tuple>

#include "io/assembly/visit_model.hpp"

#ifndef BACKSWEEP_MODEL_KIND
#error "apps/engine_of/*.cpp are compiled once per model kind, with BACKSWEEP_MODEL_KIND set"
#endif

namespace backsweep::apps {
static_assert(std::tuple_size_v<ModelKinds> == 2, "apps/CMakeLists.txt compiles these files once per model kind: count them there");
using ModelKind = std::tuple_element_t<BACKSWEEP_MODEL_KIND, ModelKinds>;
}  // namespace backsweep::apps
