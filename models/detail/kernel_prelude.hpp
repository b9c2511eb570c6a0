#pragma once
// The text every generated grid kernel (field_kernel_source.hpp) starts with.

namespace backsweep::detail {

// What every grid kernel shares: the call's layout, a point's neighbours along one axis,
// and powers as the interpreter takes them (constant_arithmetic.hpp).
inline constexpr const char* kKernelPrelude = R"(
namespace {
#ifndef BS_INLINE
#define BS_INLINE inline __attribute__((always_inline))
#endif
// A neighbour along one axis, as stencils.hpp's GridAxis finds it: at `off` from the point
// (0 beyond a wall); `wall`: a Dirichlet wall (the field is 0 there); `exists`: a point
// there reads this one back (inside, or across a periodic wrap); `mirror`: beyond a Neumann
// wall (the point is its own neighbour).
struct Side { long off; bool wall, exists, mirror; };
BS_INLINE Side side_of(const bs_axis& x, long i, bool above) {
  if (!above && i > 0) return {-x.stride, false, true, false};
  if (above && i + 1 < x.size) return {x.stride, false, true, false};
  switch (x.boundary) {
    case 0: return {(above ? -1 : 1) * (x.size - 1) * x.stride, false, true, false};
    case 1: return {0, true, false, false};
    default: return {0, false, false, true};
  }
}
// A value read at a neighbour, 0 beyond a Dirichlet wall (read either way, so loops
// vectorise). W: the point may lie at a wall; points that do not are compiled without
// the tests, which GCC cannot vectorise.
template <bool W> BS_INLINE double wv(double v, const Side& s) { return W && s.wall ? 0.0 : v; }
// v where the neighbour exists (or lies beyond a mirror), else 0.
template <bool W> BS_INLINE double when(bool b, double v) { return !W || b ? v : 0.0; }
template <bool W> BS_INLINE double unless(bool b, double v) { return W && b ? v : 0.0; }
// A face's share of its coefficient: all of it at a Dirichlet wall, else half.
template <bool W> BS_INLINE double share(const Side& s) { return W && s.wall ? 1.0 : 0.5; }
// Whether any outer axis of a row meets a wall (periodic wraps do not count).
BS_INLINE bool at_wall(const Side* lo, const Side* hi, int outer) {
  bool any = false;
  for (int a = 0; a < outer; ++a) any = any || !lo[a].exists || !hi[a].exists || lo[a].wall || hi[a].wall;
  return any;
}
BS_INLINE double bs_integer_power(double x, double e) {
  if (e == 0) return 1.0;
  double r = x;
  for (int k = 1; k < int(std::abs(e)); ++k) r = r * x;
  return e < 0 ? 1.0 / r : r;
}
BS_INLINE double bs_power(double x, double y) {
  if (y == std::round(y) && std::abs(y) <= 16) return bs_integer_power(x, y);
  return std::pow(x, y);
}
}  // namespace
)";

}  // namespace backsweep::detail
