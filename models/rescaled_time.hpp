#pragma once
// RescaledTime: dz/ds = h f(a + s h, z, p) for s in [0, 1], a Model whose parameters are
// (p, a, h). One step of size 1 of it is a step of size h from time a of f, with the start
// a and the size h parameters like any other: its reverse gives their adjoints, its Dual
// replay their tangents. That is what a step ending on an event time that moves with p
// (or with the state) needs (solvers/floating_events.hpp).
#include <cstddef>
#include <vector>

#include "models/derivatives.hpp"
#include "models/dual.hpp"
#include "models/model.hpp"

namespace backsweep {

template <Model M>
class RescaledTime {
 public:
  explicit RescaledTime(const M& model)
      : model_(model), n_(backsweep::state_size(model)), np_(backsweep::param_size(model)), derivatives_(model) {}
  RescaledTime(const M&&) = delete;  // refers to the model: it must outlive this

  std::size_t state_size() const { return n_; }
  std::size_t param_size() const { return np_ + 2; }
  const M& model() const { return model_; }

  template <class T>
  void operator()(T s, const T* y, const T* q, T* dydt) const {
    const T h = q[np_ + 1];
    model_(q[np_] + s * h, y, q, dydt);
    for (std::size_t i = 0; i < n_; ++i) dydt[i] = h * dydt[i];
  }

  // v's products with d/dz and d/d(p, a, h): the model's own VJP times h, and for a and
  // h, vᵀf and vᵀf_t from one Dual evaluation of f seeded in t.
  void vjp(double s, const double* y, const double* q, const double* v, double* vjp_y, double* vjp_q) const {
    const double h = q[np_ + 1], t = q[np_] + s * h;
    derivatives_.vjp(t, y, q, v, vjp_y, vjp_q);
    for (std::size_t i = 0; i < n_; ++i) vjp_y[i] *= h;
    for (std::size_t j = 0; j < np_; ++j) vjp_q[j] *= h;
    using D = Dual<double, 1>;
    y_.assign(y, y + n_);
    p_.assign(q, q + np_);
    f_.resize(n_);
    model_(D::variable(t, 0), y_.data(), p_.data(), f_.data());
    double vf = 0.0, vf_t = 0.0;
    for (std::size_t i = 0; i < n_; ++i) {
      vf += v[i] * f_[i].v;
      vf_t += v[i] * f_[i].d[0];
    }
    vjp_q[np_] = h * vf_t;
    vjp_q[np_ + 1] = vf + s * h * vf_t;
  }

 private:
  const M& model_;
  std::size_t n_, np_;
  mutable Derivatives<M> derivatives_;
  mutable std::vector<Dual<double, 1>> y_, p_, f_;
};

}  // namespace backsweep
