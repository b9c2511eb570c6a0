#include "adjoint/lyapunov_spectrum.hpp"

namespace backsweep {

double kaplan_yorke_dimension(const std::vector<double>& exponents) {
  double sum = 0.0;
  for (std::size_t j = 0; j < exponents.size(); ++j) {
    if (sum + exponents[j] < 0.0) return double(j) + sum / std::abs(exponents[j]);
    sum += exponents[j];
  }
  return double(exponents.size());
}

}  // namespace backsweep
