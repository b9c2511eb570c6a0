#pragma once
// Objectives J = g(y_N, p) + integral r(t, y, p) dt + sum_k l_k(y(t_k), p), each term a
// functor templated on the scalar type (its derivatives come from Dual numbers):
//   terminal     template <class T> T operator()(const T* y, const T* p) const
//   running      template <class T> T operator()(T t, const T* y, const T* p) const
//   observation  template <class T> T operator()(std::size_t k, const T* y, const T* p) const
//                (k indexes observation_times; the steps land on them exactly)
// and optionally an initial state that depends on the parameters:
//   initial      template <class T> void operator()(const T* p, T* y0) const
// (dJ/dp then includes the path through y0(p); dJ/dy0 is the sensitivity to a
// perturbation of that initial state).
// Leave a term as NoTerm to omit it.
#include <cstddef>
#include <type_traits>
#include <vector>

#include "models/model.hpp"

namespace backsweep {

struct NoTerm {};

template <class Terminal = NoTerm, class Running = NoTerm, class Observation = NoTerm,
          class Initial = NoTerm>
struct Objective {
  Terminal terminal{};
  Running running{};
  Observation observation{};
  std::vector<double> observation_times{};
  Initial initial{};

  static constexpr bool has_terminal = !std::is_same_v<Terminal, NoTerm>;
  static constexpr bool has_running = !std::is_same_v<Running, NoTerm>;
  static constexpr bool has_observation = !std::is_same_v<Observation, NoTerm>;
  static constexpr bool has_initial = !std::is_same_v<Initial, NoTerm>;
};

// The model with the running cost appended as one more state q' = r(t, y, p), q(t0) = 0,
// so the integral is integrated by the same Runge-Kutta method and its adjoint is exact.
template <Model M, class Running>
struct WithQuadrature {
  const M* model;
  const Running* running;

  std::size_t state_size() const { return backsweep::state_size(*model) + 1; }
  std::size_t param_size() const { return backsweep::param_size(*model); }

  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    (*model)(t, y, p, dydt);
    dydt[backsweep::state_size(*model)] = (*running)(t, y, p);
  }
};

}  // namespace backsweep
