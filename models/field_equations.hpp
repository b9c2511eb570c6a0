#pragma once
// FieldEquations: what turns the equations of a config model into a PDE on a grid (the
// method of lines). Each equation is written for one point ("D1*lap(u) - u*v^2") and
// compiled once, like an ODE's; the stencil operators in it become variables of that
// point, computed by tight stencil loops before the program runs there. Reverse mode
// runs the program's reverse at each point, then scatters the operators' adjoints
// through their exact transposes: a VJP in O(n), with no Jacobian.
//
// Layouts as GridLayout's. At a point, the program reads segments: 0 t, 1 the fields there, 2 the scalar
// parameters, 3 the parameter fields there, 4 the operators' values there, 5 the
// coordinates (one per axis, array order).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "models/detail/dependency_tracer.hpp"
#include "models/expression_program.hpp"
#include "models/expression.hpp"
#include "models/grid.hpp"
#include "models/grid_layout.hpp"
#include "models/state_dependence.hpp"
#include "models/stencil.hpp"

namespace backsweep {

struct FieldOperand {
  bool parameter;      // a parameter field, else a field of the state
  std::uint32_t index;  // which one
  bool operator==(const FieldOperand&) const = default;
};

// One operator applied in the equations: stencil(u), or div_grad(k, u).
struct FieldOperator {
  Stencil stencil;
  FieldOperand u, k;  // k only for div_grad
  bool operator==(const FieldOperator& other) const {
    return stencil.kind == other.stencil.kind && stencil.axis == other.stencil.axis && u == other.u &&
           (stencil.kind != StencilKind::div_grad || k == other.k);
  }
};

class FieldEquations : public GridLayout {
 public:
  // Most fields, parameter fields and operators one point's program may read.
  static constexpr std::size_t kMaxPerPoint = 32;
  static constexpr const char* kOperatorNames[] = {"lap", "bilap", "dx", "dy", "dz", "div_grad"};

  FieldEquations(Grid grid, std::vector<std::string> fields, std::vector<std::string> parameter_fields,
                 std::size_t scalar_parameters)
      : GridLayout(std::move(grid), std::move(fields), std::move(parameter_fields), scalar_parameters) {}

  const std::vector<FieldOperator>& operators() const { return operators_; }

  // The names one point's equations may use, in the segments above: the fields and
  // parameter fields as variables of the point, the scalars, the constants, the axes'
  // coordinates, and the operators, each new application of which this object records.
  // The scope refers to this object: parse with it while this object lives.
  ExpressionScope point_scope(const std::vector<std::string>& scalars, const std::vector<std::string>& constant_names,
                              const std::vector<double>& constant_values);

  // How the value a point's program reads at (segment, offset) depends on t and the
  // state: a field is affine in it, an operator on a field too (div_grad(k, u) of two
  // fields is not), a parameter or coordinate is constant.
  detail::Dependence input_dependence(std::size_t segment, std::uint32_t offset) const;

  // dydt = f(t, y, p) at every point, by `program` (one output per field).
  template <class T>
  void run(const detail::ExpressionProgram& program, T t, const T* y, const T* p, T* dydt) const {
    const std::size_t n = grid_.points(), nf = fields_.size();
    std::array<T, kMaxPerPoint> here, parameters_here, operators_here, out;
    std::array<T, Grid::kMaxAxes> coordinates;
    const T* segments[] = {&t, here.data(), p, parameters_here.data(), operators_here.data(), coordinates.data()};
    for (std::size_t point = 0; point < n; ++point) {
      [[maybe_unused]] std::uint32_t mark = 0;
      if constexpr (std::is_same_v<T, detail::DependencyTracer>) mark = y[0].tape ? y[0].tape->next_id() : 0;
      inputs_at(point, grid_.position(point), y, p, here.data(), parameters_here.data(), operators_here.data(),
                coordinates.data());
      program.run(segments, out.data());
      if constexpr (std::is_same_v<T, detail::DependencyTracer>) keep_outputs(y[0].tape, out.data(), nf, mark);
      for (std::size_t f = 0; f < nf; ++f) dydt[f * n + point] = out[f];
    }
  }

  // vjp_y = lambdaᵀ df/dy, vjp_p = lambdaᵀ df/dp (zeroed first; vjp_p may be null): at
  // each point a taped run and its reverse, then the operators' transposes.
  template <class V>
  void vjp(const detail::ExpressionProgram& program, std::vector<V>& tape, V t, const V* y, const V* p,
           const V* lambda, V* vjp_y, V* vjp_p) const {
    const std::size_t n = grid_.points(), nf = fields_.size(), npf = parameter_fields_.size();
    std::fill(vjp_y, vjp_y + state_size(), V(0));
    if (vjp_p) std::fill(vjp_p, vjp_p + param_size(), V(0));
    tape.resize(program.ops.size());
    std::array<V, kMaxPerPoint> here, parameters_here, operators_here, lambda_here;
    std::array<V, kMaxPerPoint> here_adjoint, parameters_adjoint, operators_adjoint;
    std::array<V, Grid::kMaxAxes> coordinates;
    const V* segments[] = {&t, here.data(), p, parameters_here.data(), operators_here.data(), coordinates.data()};
    V* adjoints[] = {nullptr, here_adjoint.data(), vjp_p, vjp_p ? parameters_adjoint.data() : nullptr,
                     operators_adjoint.data(), nullptr};
    for (std::size_t point = 0; point < n; ++point) {
      const auto at = grid_.position(point);
      inputs_at(point, at, y, p, here.data(), parameters_here.data(), operators_here.data(), coordinates.data());
      program.run_taping(segments, static_cast<V*>(nullptr), tape.data());
      for (std::size_t f = 0; f < nf; ++f) lambda_here[f] = lambda[f * n + point];
      std::fill(here_adjoint.begin(), here_adjoint.begin() + nf, V(0));
      std::fill(parameters_adjoint.begin(), parameters_adjoint.begin() + npf, V(0));
      std::fill(operators_adjoint.begin(), operators_adjoint.begin() + operators_.size(), V(0));
      program.reverse(segments, tape.data(), lambda_here.data(), adjoints);
      for (std::size_t f = 0; f < nf; ++f) vjp_y[f * n + point] += here_adjoint[f];
      if (vjp_p)
        for (std::size_t f = 0; f < npf; ++f) vjp_p[scalars_ + f * n + point] += parameters_adjoint[f];
      for (std::size_t s = 0; s < operators_.size(); ++s) {
        if (detail::is_exact_zero(operators_adjoint[s])) continue;
        const FieldOperator& o = operators_[s];
        V* const u_adjoint = adjoint_of(o.u, vjp_y, vjp_p);
        V* const k_adjoint = o.stencil.kind == StencilKind::div_grad ? adjoint_of(o.k, vjp_y, vjp_p) : nullptr;
        if (!u_adjoint && !k_adjoint) continue;  // only parameter fields, not wanted
        o.stencil.transpose(grid_, point, at, source(o.u, y, p), source(o.k, y, p), operators_adjoint[s],
                            u_adjoint, k_adjoint);
      }
    }
  }

 private:
  // A trace keeps a point's outputs' dependency sets, not those that made them.
  static void keep_outputs(detail::DependencyTape* tape, detail::DependencyTracer* out, std::size_t count,
                           std::uint32_t mark) {
    if (!tape) return;
    std::array<std::uint32_t, kMaxPerPoint> ids;
    for (std::size_t f = 0; f < count; ++f) ids[f] = out[f].set;
    tape->keep_only(mark, {ids.data(), count});
    for (std::size_t f = 0; f < count; ++f) out[f].set = ids[f];
  }
  template <class T>
  const T* source(const FieldOperand& operand, const T* y, const T* p) const {
    return operand.parameter ? p + scalars_ + operand.index * grid_.points() : y + operand.index * grid_.points();
  }
  template <class V>
  V* adjoint_of(const FieldOperand& operand, V* vjp_y, V* vjp_p) const {
    if (!operand.parameter) return vjp_y + operand.index * grid_.points();
    return vjp_p ? vjp_p + scalars_ + operand.index * grid_.points() : nullptr;
  }
  // What the program reads at `point` (position `at`): the fields and parameter fields
  // there, the operators' values there, its coordinates.
  template <class T>
  void inputs_at(std::size_t point, const std::array<std::size_t, Grid::kMaxAxes>& at, const T* y, const T* p,
                 T* here, T* parameters_here, T* operators_here, T* coordinates) const {
    const std::size_t n = grid_.points();
    for (std::size_t f = 0; f < fields_.size(); ++f) here[f] = y[f * n + point];
    for (std::size_t f = 0; f < parameter_fields_.size(); ++f) parameters_here[f] = p[scalars_ + f * n + point];
    for (std::size_t s = 0; s < operators_.size(); ++s) {
      const FieldOperator& o = operators_[s];
      operators_here[s] = o.stencil.apply(grid_, point, at, source(o.u, y, p), source(o.k, y, p));
    }
    for (std::size_t a = 0; a < grid_.axes(); ++a) coordinates[a] = T(grid_.coordinate(a, at[a]));
  }

  std::vector<FieldOperator> operators_;
};

}  // namespace backsweep
