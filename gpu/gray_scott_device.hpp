#pragma once
// Gray–Scott (models/builtin/gray_scott.hpp) with its right-hand side and VJP as device
// kernels, one thread a grid point, for the engine on ThrustAlgebra: the fields stay on
// the device for the whole forward and backward sweep. Each point computes what the host
// kernel computes, in the same order, so the field results agree bitwise with it on the
// OpenMP backend. dJ/dp are summed by x rows in the host kernel's four lanes
// (ThrustAlgebra::row_sums), bitwise the host's on OpenMP, to rounding on CUDA.
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

#include "gpu/grid_view.hpp"
#include "gpu/system.hpp"
#include "gpu/thrust_algebra.hpp"
#include "models/builtin/gray_scott.hpp"

namespace BACKSWEEP_GPU_NAMESPACE {

class DeviceGrayScott {
 public:
  static constexpr std::string_view name = "gray_scott";
  static constexpr auto field_names = models::GrayScott::field_names;
  static constexpr auto param_names = models::GrayScott::param_names;
  static constexpr auto default_params = models::GrayScott::default_params;

  explicit DeviceGrayScott(Grid grid) : grid_(std::move(grid)), view_(grid_) {}

  const Grid& grid() const { return grid_; }
  std::size_t state_size() const { return 2 * grid_.points(); }
  std::size_t param_size() const { return 4; }

  // y and dydt in device memory; p where the host reads it (its four values go to the
  // kernel by value). Values only (T = double): tangents of fields are taken on the host
  // model.
  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    static_assert(std::is_same_v<T, double>, "the device kernels compute values only");
    ThrustAlgebra::for_each(view_.points, Rhs{view_, y, dydt, p[0], p[1], p[2], p[2] + p[3]});
  }

  // lambdaᵀ df/dy (device) and lambdaᵀ df/dp (host, written when vjp_p is given).
  void vjp(double, const double* y, const double* p, const double* lambda, double* vjp_y,
           double* vjp_p) const {
    ThrustAlgebra::for_each(view_.points, Vjp{view_, y, lambda, vjp_y, p[0], p[1], p[2], p[2] + p[3]});
    if (!vjp_p) return;
    const std::size_t row = grid_.size(grid_.axes() - 1);
    const Sums<4> s = ThrustAlgebra::row_sums<4, 4>(view_.points, row, ParameterTerms{view_, y, lambda});
    for (int k = 0; k < 4; ++k) vjp_p[k] = s.value[k];
  }

  // Kernel functors are public: CUDA names a kernel's functor type outside the class.
  struct Rhs {
    GridView grid;
    const double* y;
    double* dydt;
    double d1, d2, gamma, decay;
    BACKSWEEP_HOST_DEVICE void operator()(std::size_t j) const {
      const std::size_t n = grid.points;
      const double u = y[j], v = y[n + j];
      const double uvv = u * v * v;
      const GridView::Position at = grid.position(j);
      dydt[j] = d1 * grid.laplacian(y, j, at) - uvv + gamma * (1.0 - u);
      dydt[n + j] = d2 * grid.laplacian(y + n, j, at) + uvv - decay * v;
    }
  };

  struct Vjp {
    GridView grid;
    const double *y, *lambda;
    double* vjp_y;
    double d1, d2, gamma, decay;
    BACKSWEEP_HOST_DEVICE void operator()(std::size_t j) const {
      const std::size_t n = grid.points;
      const double u = y[j], v = y[n + j], lu = lambda[j], lv = lambda[n + j];
      const double vv = v * v, uv2 = 2.0 * u * v;
      const GridView::Position at = grid.position(j);
      vjp_y[j] = d1 * grid.laplacian(lambda, j, at) - lu * (vv + gamma) + lv * vv;
      vjp_y[n + j] = d2 * grid.laplacian(lambda + n, j, at) + (lv - lu) * uv2 - lv * decay;
    }
  };

  // The point's terms of dJ/d(D1, D2, gamma, kappa); the Laplacian is symmetric, so
  // Σ λ lap(u) = Σ u lap(λ).
  struct ParameterTerms {
    GridView grid;
    const double *y, *lambda;
    BACKSWEEP_HOST_DEVICE Sums<4> operator()(std::size_t j) const {
      const std::size_t n = grid.points;
      const double u = y[j], v = y[n + j], lu = lambda[j], lv = lambda[n + j];
      const GridView::Position at = grid.position(j);
      return {{u * grid.laplacian(lambda, j, at), v * grid.laplacian(lambda + n, j, at),
               lu * (1.0 - u) - lv * v, -(lv * v)}};
    }
  };

 private:
  Grid grid_;
  GridView view_;
};

}  // namespace BACKSWEEP_GPU_NAMESPACE
