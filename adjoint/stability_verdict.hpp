#pragma once
// The monitor's verdict with the stiffness probe's: an explicit method whose steps were
// held by stability grows its adjoint (or tangent) by the method's own amplification, so
// the verdict becomes `stiff`, with the remedy; fixed steps beyond the stability limit
// fail the gradient as unstable. Shared by the adjoint and the tangent.
#include <cstdio>
#include <string>
#include <string_view>

#include "adjoint/gradient_problem.hpp"

namespace backsweep::detail {

template <class T>
void add_stiffness_verdict(GradientResult<T>& result, std::string_view method, const IntegrateOptions& options) {
  GradientDiagnostics& d = result.diagnostics;
  if (d.stiffness && d.stiffness->unstable() && options.step > 0.0) {
    if (result.ok()) {
      result.status = IntegrateStatus::unstable;
      result.message = describe_instability(*d.stiffness, method, options.step);
    } else {  // a blow-up's NaN: why
      result.message += "; " + describe_instability(*d.stiffness, method, options.step);
    }
  }
  if (!d.monitor || !d.stiffness || !d.stiffness->stiff()) return;
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2g", d.stiffness->ratio);
  d.monitor->explanation = "Stiff: the steps were held by the stability of the explicit method " +
                           std::string(method) + " (h rho(J) at " + ratio +
                           " of its stability limit, as a median over the steps), not by accuracy; "
                           "the growth is the method's, not chaos. Use an implicit method "
                           "(sdirk4, esdirk3, cvodes_bdf). " + d.monitor->explanation;
  d.monitor->verdict = GrowthVerdict::stiff;
}

}  // namespace backsweep::detail
