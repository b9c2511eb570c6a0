#pragma once
// Regularisation of a parameter field estimated point by point: a fit of 10^3-10^6 values
// from a few sensors is ill-posed, and these terms choose among the fields that fit the
// data equally well. With V the cell volume and d_a k the forward difference of k along
// axis a divided by the spacing (0 across a wall),
//
//   R(k) = tikhonov/2 sum V (k - reference)^2          (small values)
//        + h1/2       sum V |d k|^2                    (smooth fields)
//        + tv         sum V sqrt(|d k|^2 + epsilon^2)  (piecewise-constant fields, sharp edges)
//
// sums over the grid points, differences along each axis to the neighbour above
// (periodic axes wrap).
#include <vector>

#include "models/grid.hpp"

namespace backsweep {

struct FieldRegularization {
  double tikhonov = 0.0, h1 = 0.0, tv = 0.0;
  double tv_epsilon = 1e-3;
  std::vector<double> reference;  // per point; empty: 0
  bool active() const { return tikhonov > 0.0 || h1 > 0.0 || tv > 0.0; }
};

// R(k), with dR/dk added to `gradient` (one entry per grid point).
double regularization(const Grid& grid, const FieldRegularization& weights, const double* k, double* gradient);

}  // namespace backsweep
