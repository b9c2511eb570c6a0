#include "models/field_equations.hpp"

#include <algorithm>
#include <stdexcept>

namespace backsweep {

namespace {

std::string listed(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text.empty() ? "none" : text;
}

}  // namespace

ExpressionScope FieldEquations::point_scope(const std::vector<std::string>& scalars,
                                            const std::vector<std::string>& constant_names,
                                            const std::vector<double>& constant_values) {
  ExpressionScope scope;
  scope.add_segment({"t"});
  scope.add_segment(fields_);
  scope.add_segment(scalars);
  scope.add_segment(parameter_fields_);
  scope.add_segment({});  // the operators' values, as they are met
  std::vector<std::string> coordinates;
  for (std::size_t a = 0; a < grid_.axes(); ++a) coordinates.emplace_back(Grid::axis_name(grid_.axes(), a));
  scope.add_segment(coordinates);
  for (std::size_t i = 0; i < constant_names.size(); ++i) scope.add_constant(constant_names[i], constant_values[i]);

  const auto operand = [this](std::string_view function, const std::string& name) {
    const auto find = [&](const std::vector<std::string>& names) {
      return std::uint32_t(std::find(names.begin(), names.end(), name) - names.begin());
    };
    if (const std::uint32_t f = find(fields_); f < fields_.size()) return FieldOperand{false, f};
    if (const std::uint32_t f = find(parameter_fields_); f < parameter_fields_.size()) return FieldOperand{true, f};
    throw std::invalid_argument(std::string(function) + "() applies to fields and parameter fields; '" + name +
                                "' is neither (fields: " + listed(fields_) +
                                "; parameter fields: " + listed(parameter_fields_) + ")");
  };
  scope.set_operators({std::begin(kOperatorNames), std::end(kOperatorNames)},
                      [this, operand](std::string_view function, const std::vector<std::string>& arguments) {
                        const bool div_grad = function == "div_grad";
                        const std::size_t arity = div_grad ? 2 : 1;
                        if (arguments.size() != arity)
                          throw std::invalid_argument(std::string(function) + "() takes " +
                                                      (div_grad ? "two fields (k, u)" : "one field") + ", not " +
                                                      std::to_string(arguments.size()));
                        FieldOperator o{{StencilKind::laplacian}, operand(function, arguments.back()), {false, 0}};
                        if (div_grad) {
                          o.stencil.kind = StencilKind::div_grad;
                          o.k = operand(function, arguments[0]);
                        } else if (function == "bilap") {
                          o.stencil.kind = StencilKind::bilaplacian;
                        } else if (function != "lap") {
                          const std::size_t from_x = function[1] == 'x' ? 0 : function[1] == 'y' ? 1 : 2;
                          if (from_x >= grid_.axes())
                            throw std::invalid_argument(std::string(function) + "() needs a grid with a " +
                                                        std::string(function.substr(1)) + " axis (this grid has " +
                                                        std::to_string(grid_.axes()) + ")");
                          o.stencil = {StencilKind::derivative, grid_.axes() - 1 - from_x};
                        }
                        auto found = std::find(operators_.begin(), operators_.end(), o);
                        if (found == operators_.end()) {
                          if (operators_.size() == kMaxPerPoint)
                            throw std::invalid_argument("the equations apply more than " +
                                                        std::to_string(kMaxPerPoint) + " different operators");
                          operators_.push_back(o);
                          found = operators_.end() - 1;
                        }
                        return ExpressionScope::Name{false, 4, std::uint32_t(found - operators_.begin()), 0.0};
                      });
  return scope;
}

detail::Dependence FieldEquations::input_dependence(std::size_t segment, std::uint32_t offset) const {
  using enum detail::Dependence;
  switch (segment) {  // the segments of point_scope()
    case 0: return time;
    case 1: return affine;
    case 4: {
      const FieldOperator& o = operators_.at(offset);
      const bool of_u = !o.u.parameter, of_k = o.stencil.kind == StencilKind::div_grad && !o.k.parameter;
      return of_u && of_k ? nonlinear : of_u || of_k ? affine : constant;
    }
    default: return constant;
  }
}

}  // namespace backsweep
