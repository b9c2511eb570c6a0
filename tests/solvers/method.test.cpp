#include "solvers/method.hpp"

#include <doctest/doctest.h>

#include "models/builtin/harmonic_oscillator.hpp"

using namespace backsweep;

TEST_CASE("every tableau is a method, found by its name") {
  for (const ButcherTableau* tableau : tableaux::all) {
    const Method* method = find_method(tableau->name);
    REQUIRE(method);
    CHECK(method->tableau == tableau);
    CHECK(method->traits().order == tableau->order);
    CHECK(method->adaptive() == tableau->adaptive());
  }
  CHECK(find_method("heun3")->tableau->b[1] == 0.0);
  CHECK(find_method("rk45") == nullptr);
}

TEST_CASE("with_stepper builds the method's stepper on the asked scalar") {
  const models::HarmonicOscillator model;
  const Method method = tableaux::rk4;
  const auto traits = with_stepper<Dual<double, 2>>(model, method, [](auto& stepper) {
    static_assert(std::is_same_v<typename std::remove_reference_t<decltype(stepper)>::scalar_type,
                                 Dual<double, 2>>);
    return stepper.traits();
  });
  CHECK(traits.name == "rk4");
  CHECK(traits.order == 4);
  CHECK_FALSE(traits.implicit);
}

TEST_CASE("what each family of methods can do, as the config layer asks it") {
  const Method rk4 = tableaux::rk4, sdirk = *find_method("sdirk2");
  const Method bdf = sundials_methods::cvodes_bdf, adams = sundials_methods::cvodes_adams;
  CHECK(rk4.is_explicit());
  CHECK(rk4.has_stepper());
  CHECK(rk4.takes_fixed_step());
  CHECK_FALSE(rk4.solves_linear_systems());
  CHECK_FALSE(sdirk.is_explicit());
  CHECK(sdirk.has_stepper());
  CHECK(sdirk.takes_fixed_step());
  CHECK(sdirk.solves_linear_systems());
  for (const Method& cvodes : {bdf, adams}) {
    CHECK_FALSE(cvodes.is_explicit());
    CHECK_FALSE(cvodes.has_stepper());
    CHECK_FALSE(cvodes.takes_fixed_step());
  }
  CHECK(bdf.solves_linear_systems());
  CHECK_FALSE(adams.solves_linear_systems());  // functional iteration
}
