#pragma once
// ExpressionModel: a right-hand side given as one expression per state, as a config file
// defines it ("beta*S*I - gamma*I"), and a Model like the C++ ones: the equations run
// generically over the scalar, so Dual derivatives, adjoints, tangents and Jacobians
// work on it unchanged. Its sizes are known at run time only.
//
// The equations run as one fused program reading t, y and p where they lie: a call
// allocates nothing and copies nothing. vjp() differentiates it in reverse mode.
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "models/expression.hpp"

namespace backsweep {

struct NamedConstant {
  std::string name;
  double value;
};

// The names an expression of (t, y, p) may use: t, the states, the parameters and the
// constants. Right-hand sides and objective terms are parsed in it, and evaluate_at()
// and ExpressionModel evaluate in its layout (segment 0: t, 1: y, 2: p).
// Throws std::invalid_argument for a name declared twice or reserved (ExpressionScope).
ExpressionScope model_scope(const std::vector<std::string>& states,
                            const std::vector<std::string>& parameters,
                            const std::vector<NamedConstant>& constants = {});

// The value at (t, y, p) of an expression parsed in model_scope().
template <class T>
T evaluate_at(const Expression& expression, const T& t, const T* y, const T* p) {
  const T* segments[] = {&t, y, p};
  return expression.evaluate_segments(segments);
}

class ExpressionModel {
 public:
  // equations[i] is dy_i/dt, parsed in model_scope(states, parameters, ...). Throws
  // std::invalid_argument when there is not one equation per state.
  ExpressionModel(std::vector<std::string> states, std::vector<std::string> parameters,
                  std::vector<Expression> equations);

  // Parses equations[i] as dy_i/dt. An ExpressionError keeps the column inside that
  // equation and names its state.
  static ExpressionModel parse(std::vector<std::string> states, std::vector<std::string> parameters,
                               const std::vector<std::string>& equations,
                               const std::vector<NamedConstant>& constants = {});

  std::size_t state_size() const { return state_names_.size(); }
  std::size_t param_size() const { return param_names_.size(); }
  const std::vector<std::string>& state_names() const { return state_names_; }
  const std::vector<std::string>& param_names() const { return param_names_; }
  const std::vector<Expression>& equations() const { return equations_; }

  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    const T* segments[] = {&t, y, p};
    program_.run(segments, dydt);
  }

  // Workspace of a reverse-mode VJP: the tape of one program run, one value per
  // instruction. Sized on first use.
  template <class V>
  struct Tape {
    std::vector<V> values;
  };

  // vjp_y = lambdaᵀ df/dy and vjp_p = lambdaᵀ df/dp (overwritten; vjp_p may be null),
  // in one taped run of the program and one reverse pass: a small constant times one
  // right-hand side, where Dual lanes cost O(n) of them. V is double, or Dual<double, 1>
  // for Hessian-vector products (forward over reverse). Allocates nothing after the
  // first call with a given tape. Agrees with the Dual-derived VJP to round-off; see
  // ExpressionProgram::reverse() for the points where they may differ (NaN partials).
  // WARNING: vjp_y and vjp_p are zeroed first, so they must not alias y, p or lambda.
  template <class V>
  void vjp(Tape<V>& tape, V t, const V* y, const V* p, const V* lambda, V* vjp_y,
           V* vjp_p) const {
    const V* segments[] = {&t, y, p};
    tape.values.resize(program_.ops.size());
    program_.run_taping(segments, static_cast<V*>(nullptr), tape.values.data());
    std::fill(vjp_y, vjp_y + state_size(), V(0));
    if (vjp_p) std::fill(vjp_p, vjp_p + param_size(), V(0));
    V* const adjoints[] = {nullptr, vjp_y, vjp_p};  // t's is not wanted
    program_.reverse(segments, tape.values.data(), lambda, adjoints);
  }

 private:
  std::vector<std::string> state_names_, param_names_;
  std::vector<Expression> equations_;
  detail::ExpressionProgram program_;  // every equation, the last step of each writing dy_i/dt
};

}  // namespace backsweep
