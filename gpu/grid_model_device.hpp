#pragma once
// A built-in grid model (heat, advection–diffusion, acoustic: models/builtin/) with its
// right-hand side and VJP as device kernels, one thread a grid point, for the engine on
// ThrustAlgebra: the fields, parameter fields included, stay on the device for the whole
// forward and backward sweep. Each thread runs the host model's own point kernel
// (M::PointKernel), so the fields agree bitwise with the host model's on the OpenMP
// backend. Scalar parameters' dJ/dp are sums over the grid by x rows, as the host model
// sums them (ThrustAlgebra::row_sums: bitwise on the OpenMP system, to rounding on CUDA).
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

#include "gpu/grid_view.hpp"
#include "gpu/system.hpp"
#include "gpu/thrust_algebra.hpp"
#include "models/grid.hpp"

namespace BACKSWEEP_GPU_NAMESPACE {

template <class M>
class DeviceGridModel {
 public:
  using Kernel = typename M::PointKernel;
  static constexpr std::string_view name = M::name;
  // Scalar parameters (dJ/dp summed over the grid), or a parameter field (one a point).
  static constexpr bool kScalarParameters =
      requires(const Kernel& k, std::size_t point, const GridPosition& at, const double* v) {
        k.parameter_terms(point, at, v, v);
      };

  explicit DeviceGridModel(M model)
      : model_(std::move(model)), kernel_(model_.kernel()), positions_(model_.grid()) {}

  const Grid& grid() const { return model_.grid(); }
  std::size_t state_size() const { return model_.state_size(); }
  std::size_t param_size() const { return model_.param_size(); }

  // y, p and dydt in memory the device reads (the engine keeps p there). Values only
  // (T = double): tangents of fields are taken on the host model.
  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    static_assert(std::is_same_v<T, double>, "the device kernels compute values only");
    ThrustAlgebra::for_each(grid().points(), Rate{positions_, kernel_, t, y, p, dydt});
  }

  // lambdaᵀ df/dy and lambdaᵀ df/dp (when vjp_p is given).
  void vjp(double, const double* y, const double* p, const double* lambda, double* vjp_y, double* vjp_p) const {
    const std::size_t points = grid().points();
    ThrustAlgebra::for_each(points, Vjp{positions_, kernel_, y, p, lambda, vjp_y, kScalarParameters ? nullptr : vjp_p});
    if constexpr (kScalarParameters) {
      if (!vjp_p) return;
      const std::size_t row = grid().size(grid().axes() - 1);
      const auto sums =
          ThrustAlgebra::row_sums<M::kMaxParams>(points, row, ParameterTerms{positions_, kernel_, y, lambda});
      for (std::size_t j = 0; j < param_size(); ++j) vjp_p[j] = sums.value[j];
    }
  }

  // Kernel functors are public: CUDA names a kernel's functor type outside the class.
  struct Rate {
    GridPositions position;
    Kernel kernel;
    double t;
    const double *y, *p;
    double* dydt;
    BACKSWEEP_HOST_DEVICE void operator()(std::size_t point) const {
      kernel.rate(point, position(point), t, y, p, dydt);
    }
  };

  struct Vjp {
    GridPositions position;
    Kernel kernel;
    const double *y, *p, *lambda;
    double *vjp_y, *vjp_p;
    BACKSWEEP_HOST_DEVICE void operator()(std::size_t point) const {
      kernel.vjp(point, position(point), y, p, lambda, vjp_y, vjp_p);
    }
  };

  struct ParameterTerms {
    GridPositions position;
    Kernel kernel;
    const double *y, *lambda;
    BACKSWEEP_HOST_DEVICE auto operator()(std::size_t point) const {
      const auto terms = kernel.parameter_terms(point, position(point), y, lambda);
      Sums<M::kMaxParams> sums;
      for (int j = 0; j < M::kMaxParams; ++j) sums.value[j] = terms[j];
      return sums;
    }
  };

 private:
  M model_;
  Kernel kernel_;
  GridPositions positions_;
};

}  // namespace BACKSWEEP_GPU_NAMESPACE
