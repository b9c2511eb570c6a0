// A whole solve on Dual numbers gives the exact derivative of the discrete solution
// (the forward tangent). It is checked here against central finite differences of the
// same fixed-step solve, for every built-in model, column by column (relative error).
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "models/builtin/registry.hpp"
#include "solvers/explicit_rk.hpp"
#include "solvers/integrate.hpp"

using namespace backsweep;

namespace {

struct Horizon {
  double end, step;
};
// Short enough not to be chaotic, small enough steps to be stable on Robertson.
template <class M>
Horizon horizon_for() {
  if constexpr (std::is_same_v<M, models::Robertson>) return {0.05, 2e-5};
  else if constexpr (std::is_same_v<M, models::Lorenz63>) return {1.0, 1e-3};
  else return {2.0, 1e-2};
}

template <class M, class T>
std::vector<T> solve(const M& model, const ButcherTableau& tableau, std::vector<T> y,
                     const std::vector<T>& p) {
  ExplicitRK<M, T> stepper(model, tableau);
  IntegrateOptions options;
  options.t1 = horizon_for<M>().end;
  options.step = horizon_for<M>().step;
  REQUIRE(integrate(stepper, y.data(), p.data(), options).ok());
  return y;
}

}  // namespace

TEST_CASE_TEMPLATE("Dual solve: dy(T)/dp and dy(T)/dy0 match central differences", M,
                   models::Lorenz63, models::VanDerPol, models::LotkaVolterra,
                   models::HarmonicOscillator, models::Robertson) {
  using D = Dual<double, M::n_state + M::n_param>;
  const M model;
  const std::vector<double> y0(M::default_initial.begin(), M::default_initial.end());
  const std::vector<double> p0(M::default_params.begin(), M::default_params.end());
  const std::size_t n = y0.size(), np = p0.size();

  for (const ButcherTableau* tableau : {&tableaux::rk4, &tableaux::dopri5}) {
    CAPTURE(tableau->name);
    std::vector<D> y(n), p(np);
    for (std::size_t i = 0; i < n; ++i) y[i] = D::variable(y0[i], int(i));
    for (std::size_t j = 0; j < np; ++j) p[j] = D::variable(p0[j], int(n + j));
    const std::vector<D> tangent = solve(model, *tableau, y, p);

    for (std::size_t column = 0; column < n + np; ++column) {
      CAPTURE(column);
      // Central differences with one Richardson extrapolation (O(h^4) truncation), at
      // relative steps 1e-2 ... 1e-6; the step whose estimate agrees best with the next
      // smaller one is used. This picks the step from the differences alone, and
      // resolves tiny sensitivities such as Robertson's dy/dk2 ~ 1e-12.
      const double x = column < n ? y0[column] : p0[column - n];
      auto central = [&](double step) {
        std::vector<double> yp = y0, ym = y0, pp = p0, pm = p0;
        (column < n ? yp[column] : pp[column - n]) += step;
        (column < n ? ym[column] : pm[column - n]) -= step;
        const auto plus = solve(model, *tableau, yp, pp), minus = solve(model, *tableau, ym, pm);
        std::vector<double> d(n);
        for (std::size_t i = 0; i < n; ++i) d[i] = (plus[i] - minus[i]) / (2 * step);
        return d;
      };
      std::vector<std::vector<double>> estimates;
      for (int k = 2; k <= 6; ++k) {
        const double h = std::pow(10.0, -k) * std::max(std::abs(x), 1e-3);
        const auto coarse = central(h), fine = central(h / 2);
        std::vector<double> d(n);
        for (std::size_t i = 0; i < n; ++i) d[i] = (4 * fine[i] - coarse[i]) / 3;
        estimates.push_back(d);
      }
      std::size_t best = 0;
      double best_spread = INFINITY;
      for (std::size_t k = 0; k + 1 < estimates.size(); ++k) {
        double spread = 0;
        for (std::size_t i = 0; i < n; ++i)
          spread = std::max(spread, std::abs(estimates[k][i] - estimates[k + 1][i]));
        if (spread < best_spread) best_spread = spread, best = k;
      }
      double difference = 0, size = 0;
      for (std::size_t i = 0; i < n; ++i) {
        difference = std::max(difference, std::abs(tangent[i].d[column] - estimates[best][i]));
        size = std::max(size, std::abs(tangent[i].d[column]));
      }
      CAPTURE(difference);
      CAPTURE(size);
      CHECK(difference <= 1e-7 * size);
    }
  }
}
