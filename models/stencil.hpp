#pragma once
// The stencil operators of grid models, at one point, and their exact transposes: the
// forward value reads a point's neighbours (Grid::below / above decide the walls), the
// transpose scatters an adjoint back to exactly the points the value read, so reverse
// mode through a stencil costs what the stencil costs.
//
//   lap(u)          sum over axes of (u[i-1] - 2 u[i] + u[i+1]) / h^2
//   d(axis, u)      (u[i+1] - u[i-1]) / (2 h), central
//   div_grad(k, u)  sum over axes of (k[i+1/2] (u[i+1] - u[i]) - k[i-1/2] (u[i] - u[i-1])) / h^2,
//                   with face values k[i+1/2] = (k[i] + k[i+1]) / 2: conservative, and
//                   symmetric in u, so implicit diffusion keeps a symmetric Jacobian.
#include <array>
#include <cstddef>

#include "models/grid.hpp"

namespace backsweep {

enum class StencilKind : unsigned char { laplacian, derivative, div_grad };

struct Stencil {
  StencilKind kind;
  std::size_t axis = 0;  // of a derivative, in array order

  // The value at `point` (position `at`) of u (and of the coefficient k for div_grad).
  template <class T>
  T apply(const Grid& grid, std::size_t point, const std::array<std::size_t, Grid::kMaxAxes>& at,
          const T* u, const T* k) const {
    const auto value = [&](const Neighbour& n) { return n.wall ? T(0) : u[n.index]; };
    if (kind == StencilKind::derivative) {
      const double scale = 0.5 / grid.spacing(axis);
      return (value(grid.above(point, at[axis], axis)) - value(grid.below(point, at[axis], axis))) * T(scale);
    }
    T sum(0);
    for (std::size_t a = 0; a < grid.axes(); ++a) {
      const double inverse_h2 = 1.0 / (grid.spacing(a) * grid.spacing(a));
      const Neighbour lo = grid.below(point, at[a], a), hi = grid.above(point, at[a], a);
      if (kind == StencilKind::laplacian) {
        sum += (value(lo) - T(2) * u[point] + value(hi)) * T(inverse_h2);
      } else {
        const T k_lo = (k[point] + k[lo.index]) * T(0.5), k_hi = (k[point] + k[hi.index]) * T(0.5);
        sum += (k_hi * (value(hi) - u[point]) - k_lo * (u[point] - value(lo))) * T(inverse_h2);
      }
    }
    return sum;
  }

  // Adds g times the derivative of apply() at `point` with respect to u into u_adjoint,
  // and with respect to k into k_adjoint (div_grad); either may be null (not wanted).
  template <class V>
  void transpose(const Grid& grid, std::size_t point, const std::array<std::size_t, Grid::kMaxAxes>& at,
                 const V* u, const V* k, const V& g, V* u_adjoint, V* k_adjoint) const {
    const auto add = [&](const Neighbour& n, const V& amount) {
      if (!n.wall && u_adjoint) u_adjoint[n.index] += amount;
    };
    if (kind == StencilKind::derivative) {
      const V scaled = g * V(0.5 / grid.spacing(axis));
      add(grid.above(point, at[axis], axis), scaled);
      add(grid.below(point, at[axis], axis), -scaled);
      return;
    }
    for (std::size_t a = 0; a < grid.axes(); ++a) {
      const V scaled = g * V(1.0 / (grid.spacing(a) * grid.spacing(a)));
      const Neighbour lo = grid.below(point, at[a], a), hi = grid.above(point, at[a], a);
      if (kind == StencilKind::laplacian) {
        add(lo, scaled);
        add(hi, scaled);
        add({point, false}, V(-2) * scaled);
        continue;
      }
      const auto value = [&](const Neighbour& n) { return n.wall ? V(0) : u[n.index]; };
      const V k_lo = (k[point] + k[lo.index]) * V(0.5), k_hi = (k[point] + k[hi.index]) * V(0.5);
      add(hi, scaled * k_hi);
      add(lo, scaled * k_lo);
      add({point, false}, -(scaled * (k_hi + k_lo)));
      if (k_adjoint) {
        const V flux_hi = scaled * (value(hi) - u[point]) * V(0.5);
        const V flux_lo = scaled * (u[point] - value(lo)) * V(0.5);
        k_adjoint[point] += flux_hi - flux_lo;
        k_adjoint[hi.index] += flux_hi;
        k_adjoint[lo.index] -= flux_lo;
      }
    }
  }
};

}  // namespace backsweep
