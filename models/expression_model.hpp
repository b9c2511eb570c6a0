#pragma once
// ExpressionModel: a right-hand side given as one expression per state, as a config file
// defines it ("beta*S*I - gamma*I"), and a Model like the C++ ones: the equations run
// generically over the scalar, so Dual derivatives, adjoints, tangents and Jacobians
// work on it unchanged. Its sizes are known at run time only.
//
// The equations run as one fused program reading t, y and p where they lie: a call
// allocates nothing and copies nothing. vjp() differentiates it in reverse mode.
//
// On a grid (FieldEquations), the states are fields and the equations hold at every
// point: the same program runs point by point, with stencil operators.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "models/compiled_kernel.hpp"
#include "models/expression.hpp"
#include "models/field_equations.hpp"
#include "models/sparsity.hpp"

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

// The same for a grid model: t, the fields as fields (u[3, 4], sum(u), mean(u)), the
// scalar parameters, the parameter fields (likewise) and the constants, in the layout of
// FieldEquations (segment 1: every field at every point; 2: the scalars, then the
// parameter fields).
ExpressionScope model_scope(const GridLayout& fields, const std::vector<std::string>& parameters,
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

  // A PDE on a grid: equations[f] is d(field f)/dt at a point, parsed in
  // fields.point_scope(); `parameters` are the scalar ones. Throws std::invalid_argument
  // when there is not one equation per field, or more than FieldEquations::kMaxPerPoint
  // fields or parameter fields.
  ExpressionModel(FieldEquations fields, std::vector<std::string> parameters, std::vector<Expression> equations);
  // Parses equations[f] on the grid; an ExpressionError names the field.
  static ExpressionModel parse(FieldEquations fields, std::vector<std::string> parameters,
                               const std::vector<std::string>& equations,
                               const std::vector<NamedConstant>& constants = {});

  // The state's and parameters' sizes: on a grid, fields and parameter fields count once
  // per point.
  std::size_t state_size() const { return fields_ ? fields_->state_size() : state_names_.size(); }
  std::size_t param_size() const { return fields_ ? fields_->param_size() : param_names_.size(); }
  // The grid's fields and operators, or null for an ODE.
  const FieldEquations* fields() const { return fields_.get(); }
  const std::vector<std::string>& state_names() const { return state_names_; }
  const std::vector<std::string>& param_names() const { return param_names_; }
  const std::vector<Expression>& equations() const { return equations_; }
  // The equations as one linked program (what the interpreter runs and kernels are built from).
  const detail::ExpressionProgram& program() const { return program_; }

  // The pattern of df/d[y, p] as the equations are written: every input that either
  // branch of an if(), min or max reads, and on a grid each operator's stencil
  // footprint. It holds at every (t, y, p), so implicit methods may factor sparse
  // Newton matrices on it (KLU) for PDEs on grids and large reaction networks.
  SparsityPattern sparsity() const;
  // Whether df/dy depends on neither t nor y (on the parameters alone), as the equations
  // are written: a linear PDE's, div_grad(k, u) - c*u. Implicit steppers then take it and
  // build its preconditioner once (solvers/stage_matrices.hpp).
  bool jacobian_constant() const { return jacobian_constant_; }

  // From now on the equations' values and VJPs on doubles run as native code built by the
  // system compiler (compiled_kernel.hpp), on a grid on `threads` threads; other scalars
  // (Dual) keep the interpreter, the reference the kernels are tested against. Throws
  // NativeLibraryError where no kernel can be built (the model is then unchanged).
  void compile(const CompilerOptions& options, int threads = 1);
  // The native kernels, or null where the interpreter runs.
  const CompiledKernel* compiled() const { return compiled_.get(); }

  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    if constexpr (std::is_same_v<T, double>)
      if (compiled_) return compiled_->rhs(t, y, p, dydt);
    if (fields_) return fields_->run(program_, t, y, p, dydt);
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
    if constexpr (std::is_same_v<V, double>)
      if (compiled_) return compiled_->vjp(tape.values, t, y, p, lambda, vjp_y, vjp_p);
    if (fields_) return fields_->vjp(program_, tape.values, t, y, p, lambda, vjp_y, vjp_p);
    const V* segments[] = {&t, y, p};
    tape.values.resize(program_.ops.size());
    program_.run_taping(segments, static_cast<V*>(nullptr), tape.values.data());
    std::fill(vjp_y, vjp_y + state_size(), V(0));
    if (vjp_p) std::fill(vjp_p, vjp_p + param_size(), V(0));
    V* const adjoints[] = {nullptr, vjp_y, vjp_p};  // t's is not wanted
    program_.reverse(segments, tape.values.data(), lambda, adjoints);
  }

 private:
  std::vector<std::string> state_names_, param_names_;  // on a grid: the fields, the scalars
  std::vector<Expression> equations_;
  std::shared_ptr<const FieldEquations> fields_;
  std::shared_ptr<const CompiledKernel> compiled_;
  detail::ExpressionProgram program_;  // every equation, the last step of each writing dy_i/dt
  bool jacobian_constant_ = false;
};

}  // namespace backsweep
