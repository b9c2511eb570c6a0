#pragma once
// The stencil operators of grid models at one point, and their exact transposes:
//
//   lap(u)          sum over axes of (u[i-1] - 2 u[i] + u[i+1]) / h^2
//   bilap(u)        lap(lap(u)): the same discrete Laplacian applied twice, walls included
//                   (beyond a Dirichlet wall lap(u) is 0 as u is: u = u'' = 0 there)
//   d(axis, u)      (u[i+1] - u[i-1]) / (2 h), central
//   div_grad(k, u)  sum over axes of (k[i+1/2] (u[i+1] - u[i]) - k[i-1/2] (u[i] - u[i-1])) / h^2,
//                   with face values k[i+1/2] = (k[i] + k[i+1]) / 2: conservative, and
//                   symmetric in u, so implicit diffusion keeps a symmetric Jacobian.
//
// Values read a point's neighbours (GridAxis::below / above decide the walls). Transposes
// come two ways: gathered at one point (namespace stencils: what one thread a point
// computes, on the host or a device, for the built-in models), or scattered from one
// point back to exactly the points its value read (Stencil::transpose, for models defined
// by equations), so reverse mode through a stencil costs what the stencil costs.
#include <cstddef>

#include "models/grid.hpp"
#include "platform/host_device.hpp"

namespace backsweep {

namespace stencils {

// A field at a neighbour: 0 beyond a Dirichlet wall. Field: a pointer, or anything
// indexed like one (a product of fields, computed where it is read).
BACKSWEEP_EXEC_CHECK_DISABLE
template <class T, class Field>
BACKSWEEP_HOST_DEVICE T value_at(const Field& u, Neighbour n) {
  return n.wall ? T(0) : T(u[n.index]);
}

// lap(u) at `point`, which lies at `at`. The Laplacian is symmetric on every wall (a
// Neumann mirror included), so it is its own transpose.
BACKSWEEP_EXEC_CHECK_DISABLE
template <class T, class Field>
BACKSWEEP_HOST_DEVICE T laplacian(const GridAxes& grid, std::size_t point, const GridPosition& at, const Field& u) {
  T sum(0);
BACKSWEEP_UNROLL
  for (int a = 0; a < GridAxes::kMax; ++a) {
    if (a >= grid.count) continue;
    const GridAxis& x = grid.axis[a];
    sum += (value_at<T>(u, x.below(point, at[a])) - T(2) * T(u[point]) + value_at<T>(u, x.above(point, at[a]))) *
           T(x.inverse_h2);
  }
  return sum;
}

// Where the neighbour of a point at `at` lies along axis a, below (direction -1) or
// above: across a periodic wrap at the far end, beyond a mirror at the point itself.
BACKSWEEP_HOST_DEVICE inline GridPosition neighbour_position(const GridAxis& x, GridPosition at, int a, int direction) {
  const std::size_t i = at[a];
  const bool inside = direction < 0 ? i > 0 : i + 1 < x.size;
  if (inside) at[a] = direction < 0 ? i - 1 : i + 1;
  else if (x.boundary == Boundary::periodic) at[a] = direction < 0 ? x.size - 1 : 0;
  return at;
}

// bilap(u) at `point`: lap() of the field lap(u), read at the point's neighbours as lap()
// reads u. A product of the symmetric Laplacian with itself, so symmetric too.
BACKSWEEP_EXEC_CHECK_DISABLE
template <class T, class Field>
BACKSWEEP_HOST_DEVICE T bilaplacian(const GridAxes& grid, std::size_t point, const GridPosition& at, const Field& u) {
  const auto lap_at = [&](Neighbour n, const GridPosition& where) {
    return n.wall ? T(0) : laplacian<T>(grid, n.index, where, u);
  };
  const T centre = laplacian<T>(grid, point, at, u);
  T sum(0);
BACKSWEEP_UNROLL
  for (int a = 0; a < GridAxes::kMax; ++a) {
    if (a >= grid.count) continue;
    const GridAxis& x = grid.axis[a];
    sum += (lap_at(x.below(point, at[a]), neighbour_position(x, at, a, -1)) - T(2) * centre +
            lap_at(x.above(point, at[a]), neighbour_position(x, at, a, +1))) *
           T(x.inverse_h2);
  }
  return sum;
}

// d(axis, u) at `point`.
BACKSWEEP_EXEC_CHECK_DISABLE
template <class T>
BACKSWEEP_HOST_DEVICE T derivative(const GridAxes& grid, std::size_t point, const GridPosition& at, int axis,
                                   const T* u) {
  const GridAxis& x = grid.axis[axis];
  return (value_at<T>(u, x.above(point, at[axis])) - value_at<T>(u, x.below(point, at[axis]))) *
         T(x.half_inverse_h);
}

// (d(axis, .))ᵀ lambda at `point`: the points whose `above` is this one, less those whose
// `below` is. Inside the axis, and across a periodic wrap, those are the neighbours below
// and above; a Dirichlet wall adds nothing; beyond a Neumann mirror the point is its own
// neighbour (so the central difference is not antisymmetric there).
BACKSWEEP_HOST_DEVICE inline double derivative_transpose(const GridAxes& grid, std::size_t point,
                                                         const GridPosition& at, int axis, const double* lambda) {
  const GridAxis& x = grid.axis[axis];
  const std::size_t i = at[axis];
  const bool periodic = x.boundary == Boundary::periodic, mirror = x.boundary == Boundary::neumann;
  double from_below = i > 0 || periodic ? lambda[x.below(point, i).index] : 0.0;
  double from_above = i + 1 < x.size || periodic ? lambda[x.above(point, i).index] : 0.0;
  if (mirror && i + 1 == x.size) from_below += lambda[point];
  if (mirror && i == 0) from_above += lambda[point];
  return (from_below - from_above) * x.half_inverse_h;
}

// div_grad(k, u) at `point`. Symmetric in u on every wall: its transpose in u is
// div_grad(k, lambda).
BACKSWEEP_EXEC_CHECK_DISABLE
template <class T>
BACKSWEEP_HOST_DEVICE T div_grad(const GridAxes& grid, std::size_t point, const GridPosition& at, const T* k,
                                 const T* u) {
  T sum(0);
BACKSWEEP_UNROLL
  for (int a = 0; a < GridAxes::kMax; ++a) {
    if (a >= grid.count) continue;
    const GridAxis& x = grid.axis[a];
    const Neighbour lo = x.below(point, at[a]), hi = x.above(point, at[a]);
    const T k_lo = (k[point] + k[lo.index]) * T(0.5), k_hi = (k[point] + k[hi.index]) * T(0.5);
    sum += (k_hi * (value_at<T>(u, hi) - u[point]) - k_lo * (u[point] - value_at<T>(u, lo))) * T(x.inverse_h2);
  }
  return sum;
}

// One face's part of div_grad_by_coefficient, below.
BACKSWEEP_HOST_DEVICE inline double face_by_coefficient(const GridAxis& x, std::size_t point, Neighbour n,
                                                        const double* u, const double* lambda) {
  const double share = n.wall ? 1.0 : 0.5;
  return share * (lambda[point] - value_at<double>(lambda, n)) * (value_at<double>(u, n) - u[point]) * x.inverse_h2;
}

// d/dk[point] of sum over j of lambda[j] div_grad(k, u)[j]. Each face's k is the mean of
// the points on its two sides (so each side takes half of (lambda difference) times
// (u difference)), or, at a Dirichlet wall, the point's own k (all of it; u and lambda are
// 0 beyond the wall). Beyond a Neumann mirror u does not change: nothing.
BACKSWEEP_HOST_DEVICE inline double div_grad_by_coefficient(const GridAxes& grid, std::size_t point,
                                                            const GridPosition& at, const double* u,
                                                            const double* lambda) {
  double sum = 0.0;
BACKSWEEP_UNROLL
  for (int a = 0; a < GridAxes::kMax; ++a) {
    if (a >= grid.count) continue;
    const GridAxis& x = grid.axis[a];
    sum += face_by_coefficient(x, point, x.below(point, at[a]), u, lambda);
    sum += face_by_coefficient(x, point, x.above(point, at[a]), u, lambda);
  }
  return sum;
}

}  // namespace stencils

enum class StencilKind : unsigned char { laplacian, derivative, div_grad, bilaplacian };

struct Stencil {
  StencilKind kind;
  std::size_t axis = 0;  // of a derivative, in array order

  // The value at `point` (position `at`) of u (and of the coefficient k for div_grad).
  template <class T>
  T apply(const Grid& grid, std::size_t point, const GridPosition& at, const T* u, const T* k) const {
    const GridAxes& axes = grid.stencil_axes();
    switch (kind) {
      case StencilKind::laplacian: return stencils::laplacian<T>(axes, point, at, u);
      case StencilKind::derivative: return stencils::derivative(axes, point, at, int(axis), u);
      case StencilKind::bilaplacian: return stencils::bilaplacian<T>(axes, point, at, u);
      case StencilKind::div_grad: break;
    }
    return stencils::div_grad(axes, point, at, k, u);
  }

  // Adds g times the derivative of apply() at `point` with respect to u into u_adjoint,
  // and with respect to k into k_adjoint (div_grad); either may be null (not wanted).
  template <class V>
  void transpose(const Grid& grid, std::size_t point, const GridPosition& at,
                 const V* u, const V* k, const V& g, V* u_adjoint, V* k_adjoint) const {
    const auto add = [&](const Neighbour& n, const V& amount) {
      if (!n.wall && u_adjoint) u_adjoint[n.index] += amount;
    };
    // Row `from` of the Laplacian, times `weight`, into u_adjoint.
    const auto laplacian_row = [&](std::size_t from, const GridPosition& where, const V& weight) {
      for (std::size_t a = 0; a < grid.axes(); ++a) {
        const V scaled = weight * V(grid.stencil_axes().axis[a].inverse_h2);
        add(grid.below(from, where[a], a), scaled);
        add(grid.above(from, where[a], a), scaled);
        add({from, false}, V(-2) * scaled);
      }
    };
    if (kind == StencilKind::bilaplacian) {  // the rows of lap() that lap() read at the point
      const GridAxes& axes = grid.stencil_axes();
      for (std::size_t a = 0; a < grid.axes(); ++a) {
        const GridAxis& x = axes.axis[a];
        const V scaled = g * V(x.inverse_h2);
        if (const Neighbour lo = x.below(point, at[a]); !lo.wall)
          laplacian_row(lo.index, stencils::neighbour_position(x, at, int(a), -1), scaled);
        if (const Neighbour hi = x.above(point, at[a]); !hi.wall)
          laplacian_row(hi.index, stencils::neighbour_position(x, at, int(a), +1), scaled);
        laplacian_row(point, at, V(-2) * scaled);
      }
      return;
    }
    if (kind == StencilKind::laplacian) {
      laplacian_row(point, at, g);
      return;
    }
    if (kind == StencilKind::derivative) {
      const V scaled = g * V(0.5 / grid.spacing(axis));
      add(grid.above(point, at[axis], axis), scaled);
      add(grid.below(point, at[axis], axis), -scaled);
      return;
    }
    for (std::size_t a = 0; a < grid.axes(); ++a) {
      const V scaled = g * V(1.0 / (grid.spacing(a) * grid.spacing(a)));
      const Neighbour lo = grid.below(point, at[a], a), hi = grid.above(point, at[a], a);
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
