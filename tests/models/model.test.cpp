#include "models/model.hpp"

#include <doctest/doctest.h>

#include "models/builtin/registry.hpp"

namespace {
struct DynamicDecay {
  std::size_t n;
  std::size_t state_size() const { return n; }
  std::size_t param_size() const { return 1; }
  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    for (std::size_t i = 0; i < n; ++i) dydt[i] = -p[0] * y[i];
  }
};
// Written for double only: it cannot give derivatives, so it is not a Model.
struct DoubleOnly {
  static constexpr std::size_t n_state = 1, n_param = 1;
  void operator()(double, const double* y, const double* p, double* dydt) const {
    dydt[0] = -p[0] * y[0];
  }
};
struct NoSizes {
  template <class T>
  void operator()(T, const T* y, const T*, T* dydt) const { dydt[0] = y[0]; }
};
}  // namespace

// The concept names what is missing; these are the cases users hit.
static_assert(backsweep::Model<backsweep::models::Lorenz63>);
static_assert(backsweep::Model<DynamicDecay>);
static_assert(!backsweep::Model<DoubleOnly>);
static_assert(!backsweep::RightHandSideFor<DoubleOnly, backsweep::Dual<double, 1>>);
static_assert(!backsweep::Model<NoSizes>);
static_assert(!backsweep::DeclaresItsSizes<NoSizes>);

TEST_CASE("sizes come from static members or member functions") {
  CHECK(backsweep::state_size(backsweep::models::Lorenz63{}) == 3);
  CHECK(backsweep::param_size(backsweep::models::LotkaVolterra{}) == 4);
  CHECK(backsweep::state_size(DynamicDecay{7}) == 7);
  CHECK(backsweep::static_state_size<DynamicDecay> == 0);
  CHECK(backsweep::static_state_size<backsweep::models::VanDerPol> == 2);
}

TEST_CASE("built-in models are found by name") {
  for (std::string_view name : backsweep::models::builtin_model_names) {
    std::string_view seen;
    CHECK(backsweep::models::visit_builtin_model(name, [&](const auto& m) { seen = m.name; }));
    CHECK(seen == name);
  }
  CHECK_FALSE(backsweep::models::visit_builtin_model("lorenz96", [](const auto&) {}));
}
