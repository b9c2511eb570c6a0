#include "models/expression_model.hpp"

#include <stdexcept>
#include <utility>

#include "models/state_dependence.hpp"

namespace backsweep {

ExpressionScope model_scope(const std::vector<std::string>& states,
                            const std::vector<std::string>& parameters,
                            const std::vector<NamedConstant>& constants) {
  ExpressionScope scope;
  scope.add_segment({"t"});
  scope.add_segment(states);
  scope.add_segment(parameters);
  for (const NamedConstant& constant : constants) scope.add_constant(constant.name, constant.value);
  return scope;
}

ExpressionScope model_scope(const GridLayout& fields, const std::vector<std::string>& parameters,
                            const std::vector<NamedConstant>& constants) {
  ExpressionScope scope;
  scope.add_segment({"t"});
  scope.add_segment({});
  scope.add_segment(parameters);
  const std::size_t n = fields.grid().points();
  for (std::size_t f = 0; f < fields.fields().size(); ++f)
    scope.add_field(fields.fields()[f], {1, std::uint32_t(f * n), fields.grid().shape()});
  for (std::size_t f = 0; f < fields.parameter_fields().size(); ++f)
    scope.add_field(fields.parameter_fields()[f],
                    {2, std::uint32_t(parameters.size() + f * n), fields.grid().shape()});
  for (const NamedConstant& constant : constants) scope.add_constant(constant.name, constant.value);
  return scope;
}

ExpressionModel::ExpressionModel(std::vector<std::string> states,
                                 std::vector<std::string> parameters,
                                 std::vector<Expression> equations)
    : state_names_(std::move(states)),
      param_names_(std::move(parameters)),
      equations_(std::move(equations)) {
  if (equations_.size() != state_names_.size())
    throw std::invalid_argument("an expression model needs one equation per state");
  for (std::size_t i = 0; i < equations_.size(); ++i)
    program_.append(equations_[i].program(), std::uint32_t(i));
  // Segments: t, y, p.
  using detail::Dependence;
  static constexpr Dependence kInputs[] = {Dependence::time, Dependence::affine, Dependence::constant};
  jacobian_constant_ = detail::output_dependence(program_, [](std::size_t segment, std::uint32_t) {
                         return segment < 3 ? kInputs[segment] : Dependence::nonlinear;
                       }) <= Dependence::affine;
}

ExpressionModel ExpressionModel::parse(std::vector<std::string> states,
                                       std::vector<std::string> parameters,
                                       const std::vector<std::string>& equations,
                                       const std::vector<NamedConstant>& constants) {
  const ExpressionScope scope = model_scope(states, parameters, constants);
  std::vector<Expression> parsed;
  for (std::size_t i = 0; i < equations.size() && i < states.size(); ++i) {
    try {
      parsed.push_back(Expression::parse(equations[i], scope));
    } catch (const ExpressionError& error) {
      throw ExpressionError(error.column(), "equation of " + states[i] + ": " + error.what());
    }
  }
  if (equations.size() != states.size())
    throw std::invalid_argument("an expression model needs one equation per state");
  return ExpressionModel(std::move(states), std::move(parameters), std::move(parsed));
}

ExpressionModel::ExpressionModel(FieldEquations fields, std::vector<std::string> parameters,
                                 std::vector<Expression> equations)
    : state_names_(fields.fields()),
      param_names_(std::move(parameters)),
      equations_(std::move(equations)),
      fields_(std::make_shared<const FieldEquations>(std::move(fields))) {
  if (equations_.size() != state_names_.size())
    throw std::invalid_argument("a grid model needs one equation per field");
  if (fields_->fields().size() > FieldEquations::kMaxPerPoint ||
      fields_->parameter_fields().size() > FieldEquations::kMaxPerPoint)
    throw std::invalid_argument("a grid model has at most " + std::to_string(FieldEquations::kMaxPerPoint) +
                                " fields and as many parameter fields");
  for (std::size_t i = 0; i < equations_.size(); ++i)
    program_.append(equations_[i].program(), std::uint32_t(i));
  using detail::Dependence;
  jacobian_constant_ = detail::output_dependence(program_, [this](std::size_t segment, std::uint32_t offset) {
                         return fields_->input_dependence(segment, offset);
                       }) <= Dependence::affine;
}

ExpressionModel ExpressionModel::parse(FieldEquations fields, std::vector<std::string> parameters,
                                       const std::vector<std::string>& equations,
                                       const std::vector<NamedConstant>& constants) {
  std::vector<std::string> constant_names;
  std::vector<double> constant_values;
  for (const NamedConstant& constant : constants) {
    constant_names.push_back(constant.name);
    constant_values.push_back(constant.value);
  }
  std::vector<Expression> parsed;
  {
    const ExpressionScope scope = fields.point_scope(parameters, constant_names, constant_values);
    for (std::size_t i = 0; i < equations.size() && i < fields.fields().size(); ++i) {
      try {
        parsed.push_back(Expression::parse(equations[i], scope));
      } catch (const ExpressionError& error) {
        throw ExpressionError(error.column(), "equation of " + fields.fields()[i] + ": " + error.what());
      }
    }
  }  // the scope refers to `fields`: done with it before `fields` moves
  return ExpressionModel(std::move(fields), std::move(parameters), std::move(parsed));
}

// The program's branches carry both sides' dependencies (detail::branch): the point
// traced at does not matter.
SparsityPattern ExpressionModel::sparsity() const { return traced_sparsity(*this); }

void ExpressionModel::compile(const CompilerOptions& options, int threads) {
  if (fields_) compiled_ = std::make_shared<const CompiledFieldKernel>(*fields_, program_, options, threads);
  else compiled_ = std::make_shared<const CompiledOdeKernel>(program_, state_size(), param_size(), options);
}

}  // namespace backsweep
