#pragma once
// The names the expression syntax reserves: its functions of one and two arguments, its
// constants and its keywords (expression.cpp parses them; ExpressionScope refuses them
// as declared names).
#include <numbers>
#include <utility>

#include "models/expression_program.hpp"

namespace backsweep::detail {

inline constexpr std::pair<const char*, ExpressionCode> kOneArgument[] = {
    {"exp", ExpressionCode::exp},   {"log", ExpressionCode::log},   {"log10", ExpressionCode::log10},
    {"sqrt", ExpressionCode::sqrt}, {"sin", ExpressionCode::sin},   {"cos", ExpressionCode::cos},
    {"tan", ExpressionCode::tan},   {"tanh", ExpressionCode::tanh}, {"abs", ExpressionCode::abs},
    {"atan", ExpressionCode::atan}, {"asin", ExpressionCode::asin}, {"acos", ExpressionCode::acos},
    {"sinh", ExpressionCode::sinh}, {"cosh", ExpressionCode::cosh}, {"erf", ExpressionCode::erf}};
inline constexpr std::pair<const char*, ExpressionCode> kTwoArguments[] = {
    {"min", ExpressionCode::min}, {"max", ExpressionCode::max}, {"pow", ExpressionCode::power},
    {"atan2", ExpressionCode::atan2}};
inline constexpr std::pair<const char*, double> kBuiltinConstants[] = {{"pi", std::numbers::pi},
                                                                       {"e", std::numbers::e}};
inline constexpr const char* kKeywords[] = {"if", "and", "or", "sum", "mean"};

}  // namespace backsweep::detail
