// The model kind's derivatives (model_kind.hpp), compiled here once for every entry.
#include "apps/engine_of/model_kind.hpp"

template class backsweep::Derivatives<backsweep::apps::ModelKind, double>;
template class backsweep::SparseJacobian<backsweep::apps::ModelKind, double>;
template class backsweep::SparseJacobian<backsweep::apps::ModelKindWithCost, double>;
