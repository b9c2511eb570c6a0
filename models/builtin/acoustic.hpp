#pragma once
// The acoustic wave equation with a velocity field c(x), on a grid of 1 to 3 axes (2-D
// for seismic imaging), as a first-order system in the pressure p and its rate q:
//   p_t = q,   q_t = c^2 lap(p) + s(t) / V  at the source point,
// with V the grid's cell volume and s(t) a Ricker wavelet (the second derivative of a
// Gaussian: peak frequency f0, centred at t0). The state is p then q; the parameters are
// the field c, one value per grid point (what a full-waveform inversion recovers).
// Receivers are the pressure at grid points: y[point], read by an objective's
// observation terms at the sampling times.
//
// A hand-written kernel: one pass for the right-hand side; the VJP scatters c^2 λ_q back
// through the Laplacian (its exact transpose) and gathers dJ/dc = 2 c lap(p) λ_q.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <string_view>
#include <utility>

#include "models/grid.hpp"
#include "models/sparsity.hpp"
#include "models/stencil.hpp"

namespace backsweep::models {

// The Ricker wavelet (1 - 2 (pi f0 (t - t0))^2) exp(-(pi f0 (t - t0))^2).
template <class T>
T ricker(T t, double f0, double t0) {
  using std::exp;
  const T a = std::numbers::pi * f0 * (t - t0), a2 = a * a;
  return (T(1) - T(2) * a2) * exp(-a2);
}

struct AcousticSource {
  std::size_t point = 0;  // grid point, array order
  double f0 = 5.0, t0 = 0.25, amplitude = 1.0;
};

class Acoustic {
 public:
  static constexpr std::string_view name = "acoustic";

  Acoustic(Grid grid, AcousticSource source) : grid_(std::move(grid)), source_(source) {
    cell_volume_ = 1.0;
    for (std::size_t a = 0; a < grid_.axes(); ++a) cell_volume_ *= grid_.spacing(a);
  }

  const Grid& grid() const { return grid_; }
  const AcousticSource& source() const { return source_; }
  std::size_t state_size() const { return 2 * grid_.points(); }
  std::size_t param_size() const { return grid_.points(); }  // c at every point

  // The stencils' footprints: implicit methods factor sparse Newton matrices on them.
  SparsityPattern sparsity() const { return traced_sparsity(*this); }

  template <class T>
  void operator()(T t, const T* y, const T* c, T* dydt) const {
    const std::size_t n = grid_.points();
    const T* p = y;
    const T* q = y + n;
    std::copy_n(q, n, dydt);
    for_each_point(grid_, [&](std::size_t point, const auto& at) {
      dydt[n + point] = c[point] * c[point] * kLaplacian.apply(grid_, point, at, p, p);
    });
    dydt[n + source_.point] += T(source_.amplitude / cell_volume_) * ricker(t, source_.f0, source_.t0);
  }

  // lambdaᵀ df/dy and lambdaᵀ df/dc (vjp_c may be null); the source depends on neither.
  void vjp(double, const double* y, const double* c, const double* lambda, double* vjp_y, double* vjp_c) const {
    const std::size_t n = grid_.points();
    const double* p = y;
    const double* lambda_q = lambda + n;
    std::fill_n(vjp_y, n, 0.0);
    std::copy_n(lambda, n, vjp_y + n);  // p_t = q
    for_each_point(grid_, [&](std::size_t point, const auto& at) {
      const double g = lambda_q[point];
      kLaplacian.transpose(grid_, point, at, p, p, c[point] * c[point] * g, vjp_y, static_cast<double*>(nullptr));
      if (vjp_c) vjp_c[point] = 2.0 * c[point] * g * kLaplacian.apply(grid_, point, at, p, p);
    });
  }

 private:
  static constexpr Stencil kLaplacian{StencilKind::laplacian};
  Grid grid_;
  AcousticSource source_;
  double cell_volume_;
};

}  // namespace backsweep::models
