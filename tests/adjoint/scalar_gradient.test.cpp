// Gradients of objective terms by Dual chunks: on a large state, a term reading a few
// states is seeded on those columns only (found by a dependency trace), a term reading
// all of them falls back on every column; both against hand-derived gradients.
#include "adjoint/detail/scalar_gradient.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <type_traits>
#include <vector>

using namespace backsweep;

namespace {

constexpr std::size_t kStates = 2000, kParams = 3;

// y[3]^2 sin(p[1]) + exp(y[1500]) when y[7] > 0, else y[8] (a branch the trace follows).
struct FewStates {
  int* dual_calls;
  template <class T>
  T operator()(const T* y, const T* p) const {
    using std::exp;
    using std::sin;
    if constexpr (!std::is_same_v<T, detail::DependencyTracer>) ++*dual_calls;
    return y[3] * y[3] * sin(p[1]) + exp(y[1500]) + (y[7] > T(0) ? y[7] : y[8]);
  }
};

// sum_i y_i^2 p[0]: depends on everything, so the trace gives up.
struct AllStates {
  int* dual_calls;
  template <class T>
  T operator()(const T* y, const T* p) const {
    if constexpr (!std::is_same_v<T, detail::DependencyTracer>) ++*dual_calls;
    T sum(0);
    for (std::size_t i = 0; i < kStates; ++i) sum += y[i] * y[i];
    return sum * p[0];
  }
};

struct Point {
  std::vector<double> y = std::vector<double>(kStates), p{0.7, 0.4, -1.1};
  Point() {
    for (std::size_t i = 0; i < kStates; ++i) y[i] = std::sin(0.37 * double(i)) + 0.1;
  }
};

}  // namespace

TEST_CASE("a term reading a few of many states is seeded on those columns only") {
  const Point at;
  std::vector<double> grad_y(kStates, 9.0), grad_p(kParams, 9.0);  // stale values must go
  int calls = 0;
  detail::ScalarGradient<double> gradient(kStates, kParams);
  const double value = detail::terminal_gradient(FewStates{&calls}, gradient, at.y.data(), at.p.data(),
                                                 grad_y.data(), grad_p.data());
  const double* y = at.y.data();
  const double* p = at.p.data();
  const bool positive = y[7] > 0;
  CHECK(value == doctest::Approx(y[3] * y[3] * std::sin(p[1]) + std::exp(y[1500]) + (positive ? y[7] : y[8])));
  CHECK(calls == 1);  // four columns: one chunk of lanes
  for (std::size_t i = 0; i < kStates; ++i) {
    double expected = 0;
    if (i == 3) expected = 2 * y[3] * std::sin(p[1]);
    if (i == 1500) expected = std::exp(y[1500]);
    if (i == (positive ? 7u : 8u)) expected = 1;
    CHECK_MESSAGE(grad_y[i] == doctest::Approx(expected).epsilon(1e-15), "state ", i);
  }
  CHECK(grad_p[0] == 0);
  CHECK(grad_p[1] == doctest::Approx(y[3] * y[3] * std::cos(p[1])).epsilon(1e-15));
  CHECK(grad_p[2] == 0);
}

TEST_CASE("a term reading every state falls back on seeding every column") {
  const Point at;
  std::vector<double> grad_y(kStates), grad_p(kParams);
  int calls = 0;
  detail::ScalarGradient<double> gradient(kStates, kParams);
  const double value = detail::terminal_gradient(AllStates{&calls}, gradient, at.y.data(), at.p.data(),
                                                 grad_y.data(), grad_p.data());
  double squares = 0;
  for (double v : at.y) squares += v * v;
  CHECK(value == doctest::Approx(squares * at.p[0]).epsilon(1e-14));
  CHECK(calls == int((kStates + kParams + 7) / 8));
  for (std::size_t i = 0; i < kStates; ++i)
    CHECK_MESSAGE(grad_y[i] == doctest::Approx(2 * at.y[i] * at.p[0]).epsilon(1e-15), "state ", i);
  CHECK(grad_p[0] == doctest::Approx(squares).epsilon(1e-14));
  CHECK(grad_p[1] == 0);
  CHECK(grad_p[2] == 0);

  // Without grad_p, only the states are seeded.
  calls = 0;
  detail::terminal_gradient(AllStates{&calls}, gradient, at.y.data(), at.p.data(), grad_y.data(),
                            static_cast<double*>(nullptr));
  CHECK(calls == int(kStates / 8));
}
