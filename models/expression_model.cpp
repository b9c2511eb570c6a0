#include "models/expression_model.hpp"

#include <stdexcept>
#include <utility>

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

}  // namespace backsweep
