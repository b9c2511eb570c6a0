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
// A hand-written kernel at one point (PointKernel), run over the grid here and by one
// device thread a point in gpu/: one pass for the right-hand side; the VJP gathers the
// Laplacian of c^2 λ_q (the Laplacian is its own transpose) and dJ/dc = 2 c lap(p) λ_q.
#include <cmath>
#include <cstddef>
#include <numbers>
#include <string_view>
#include <utility>

#include "models/grid.hpp"
#include "models/grid_layout.hpp"
#include "models/sparsity.hpp"
#include "models/stencil.hpp"

namespace backsweep::models {

// The Ricker wavelet (1 - 2 (pi f0 (t - t0))^2) exp(-(pi f0 (t - t0))^2).
BACKSWEEP_EXEC_CHECK_DISABLE
template <class T>
BACKSWEEP_HOST_DEVICE T ricker(T t, double f0, double t0) {
  using std::exp;
  const T a = double{std::numbers::pi} * f0 * (t - t0), a2 = a * a;
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
  static GridKernelParts parts(const Grid& grid) { return {GridLayout(grid, {"p", "q"}, {"c"}, 0), {}, {}}; }

  const Grid& grid() const { return grid_; }
  const AcousticSource& source() const { return source_; }
  std::size_t state_size() const { return 2 * grid_.points(); }
  std::size_t param_size() const { return grid_.points(); }  // c at every point

  // The stencils' footprints: implicit methods factor sparse Newton matrices on them.
  SparsityPattern sparsity() const { return traced_sparsity(*this); }

  // The right-hand side and VJP at one point (what one device thread computes).
  struct PointKernel {
    GridAxes grid;
    std::size_t points, source;
    double f0, t0, source_scale;  // the wavelet's, and its amplitude over the cell volume

    BACKSWEEP_EXEC_CHECK_DISABLE
    template <class T>
    BACKSWEEP_HOST_DEVICE void rate(std::size_t point, const GridPosition& at, T t, const T* y, const T* c,
                                    T* dydt) const {
      dydt[point] = y[points + point];  // p_t = q
      T q_rate = c[point] * c[point] * stencils::laplacian<T>(grid, point, at, y);
      if (point == source) q_rate += T(source_scale) * ricker(t, f0, t0);
      dydt[points + point] = q_rate;
    }
    // lambdaᵀ df/dy and lambdaᵀ df/dc (vjp_c may be null); the source depends on neither.
    BACKSWEEP_HOST_DEVICE void vjp(std::size_t point, const GridPosition& at, const double* y, const double* c,
                                   const double* lambda, double* vjp_y, double* vjp_c) const {
      const double* lambda_q = lambda + points;
      vjp_y[point] = stencils::laplacian<double>(grid, point, at, SquareTimes{c, lambda_q});
      vjp_y[points + point] = lambda[point];
      if (vjp_c) vjp_c[point] = 2.0 * c[point] * lambda_q[point] * stencils::laplacian<double>(grid, point, at, y);
    }
    // c^2 v, read where the Laplacian reads it.
    struct SquareTimes {
      const double *c, *v;
      BACKSWEEP_HOST_DEVICE double operator[](std::size_t j) const { return c[j] * c[j] * v[j]; }
    };
  };
  // The source is where the frame owns its point (npos elsewhere: no point matches it).
  PointKernel kernel_on(const KernelFrame& frame) const {
    return {frame.axes, frame.axes.points(), frame.local(source_.point), source_.f0, source_.t0,
            source_.amplitude / cell_volume_};
  }
  PointKernel kernel() const { return kernel_on(grid_.frame()); }

  template <class T>
  void operator()(T t, const T* y, const T* c, T* dydt) const {
    const PointKernel at_point = kernel();
    for_each_point(grid_, [&](std::size_t point, const auto& at) { at_point.rate(point, at, t, y, c, dydt); });
  }

  void vjp(double, const double* y, const double* c, const double* lambda, double* vjp_y, double* vjp_c) const {
    const PointKernel at_point = kernel();
    for_each_point(grid_, [&](std::size_t point, const auto& at) {
      at_point.vjp(point, at, y, c, lambda, vjp_y, vjp_c);
    });
  }

 private:
  Grid grid_;
  AcousticSource source_;
  double cell_volume_;
};

}  // namespace backsweep::models
