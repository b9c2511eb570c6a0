#include "io/config/detail/sbml_math.hpp"

#include <charconv>
#include <cmath>
#include <numbers>
#include <vector>

LIBSBML_CPP_NAMESPACE_USE

namespace backsweep::detail {

std::string number_text(double value) {
  if (std::isnan(value)) return "(0/0)";
  if (std::isinf(value)) return value > 0 ? "(1/0)" : "(-1/0)";
  char digits[32];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;  // shortest round trip
  std::string text(digits, end);
  return value < 0 ? "(" + text + ")" : text;
}

namespace {

// The SBML functions of one argument the syntax writes as a formula of it.
const std::map<ASTNodeType_t, std::string>& one_argument() {
  static const std::map<ASTNodeType_t, std::string> functions = {
      {AST_FUNCTION_ABS, "abs(#)"},   {AST_FUNCTION_EXP, "exp(#)"},    {AST_FUNCTION_LN, "log(#)"},
      {AST_FUNCTION_SIN, "sin(#)"},   {AST_FUNCTION_COS, "cos(#)"},    {AST_FUNCTION_TAN, "tan(#)"},
      {AST_FUNCTION_SINH, "sinh(#)"}, {AST_FUNCTION_COSH, "cosh(#)"},  {AST_FUNCTION_TANH, "tanh(#)"},
      {AST_FUNCTION_ARCSIN, "asin(#)"}, {AST_FUNCTION_ARCCOS, "acos(#)"}, {AST_FUNCTION_ARCTAN, "atan(#)"},
      {AST_FUNCTION_SEC, "(1/cos(#))"}, {AST_FUNCTION_CSC, "(1/sin(#))"}, {AST_FUNCTION_COT, "(1/tan(#))"},
      {AST_FUNCTION_SECH, "(1/cosh(#))"}, {AST_FUNCTION_CSCH, "(1/sinh(#))"}, {AST_FUNCTION_COTH, "(1/tanh(#))"},
      {AST_FUNCTION_ARCSEC, "acos(1/(#))"}, {AST_FUNCTION_ARCCSC, "asin(1/(#))"},
      {AST_FUNCTION_ARCCOT, "atan(1/(#))"},
      {AST_FUNCTION_ARCSINH, "log((#) + sqrt((#)^2 + 1))"},
      {AST_FUNCTION_ARCCOSH, "log((#) + sqrt((#)^2 - 1))"},
      {AST_FUNCTION_ARCTANH, "(0.5*log((1 + (#))/(1 - (#))))"},
      {AST_FUNCTION_ARCSECH, "log((1 + sqrt(1 - (#)^2))/(#))"},
      {AST_FUNCTION_ARCCSCH, "log(1/(#) + sqrt(1/(#)^2 + 1))"},
      {AST_FUNCTION_ARCCOTH, "(0.5*log(((#) + 1)/((#) - 1)))"},
      {AST_LOGICAL_NOT, "((#) == 0)"}};
  return functions;
}

// `pattern` with each '#' replaced by `argument`.
std::string fill(const std::string& pattern, const std::string& argument) {
  std::string text;
  for (char c : pattern) text += c == '#' ? argument : std::string(1, c);
  return text;
}

const char* relation(ASTNodeType_t type) {
  switch (type) {
    case AST_RELATIONAL_EQ: return " == ";
    case AST_RELATIONAL_NEQ: return " != ";
    case AST_RELATIONAL_GT: return " > ";
    case AST_RELATIONAL_GEQ: return " >= ";
    case AST_RELATIONAL_LT: return " < ";
    case AST_RELATIONAL_LEQ: return " <= ";
    default: return nullptr;
  }
}

}  // namespace

std::string SbmlMathWriter::write(const ::ASTNode& node, const std::map<std::string, std::string>& local) const {
  const unsigned n = node.getNumChildren();
  std::vector<std::string> args;
  const auto children = [&] {
    for (unsigned i = 0; i < n; ++i) args.push_back(write(*node.getChild(i), local));
  };
  // a op b op c, in parentheses; `none` for no operands.
  const auto joined = [&](const char* op, const char* none) {
    children();
    if (args.empty()) return std::string(none);
    std::string text = "(" + args[0];
    for (std::size_t i = 1; i < args.size(); ++i) text += op + args[i];
    return text + ")";
  };
  const ASTNodeType_t type = node.getType();
  if (const auto it = one_argument().find(type); it != one_argument().end()) {
    if (n != 1) throw SbmlMathError(std::string(node.getName() ? node.getName() : "a function") + " takes one argument");
    return fill(it->second, write(*node.getChild(0), local));
  }
  if (const char* op = relation(type)) {  // a < b < c: each neighbouring pair holds
    children();
    if (args.size() < 2) throw SbmlMathError("a relation needs two operands");
    const bool ordering = type != AST_RELATIONAL_EQ && type != AST_RELATIONAL_NEQ;
    if (relation_ && ordering && args.size() == 2) {
      const Write in_place = [&](const ::ASTNode& part) { return write(part, local); };
      if (auto text = relation_(node, args[0], args[1], in_place)) return *text;
    }
    std::string text = "(";
    for (std::size_t i = 0; i + 1 < args.size(); ++i) text += (i ? " and (" : "(") + args[i] + op + args[i + 1] + ")";
    return text + ")";
  }
  switch (type) {
    case AST_INTEGER: return number_text(double(node.getInteger()));
    case AST_REAL:
    case AST_REAL_E: return number_text(node.getReal());
    case AST_RATIONAL: return "(" + number_text(double(node.getNumerator())) + "/" + number_text(double(node.getDenominator())) + ")";
    case AST_CONSTANT_E: return number_text(std::numbers::e);
    case AST_CONSTANT_PI: return number_text(std::numbers::pi);
    case AST_CONSTANT_TRUE: return "1";
    case AST_CONSTANT_FALSE: return "0";
    case AST_NAME_TIME: return "t";
    case AST_NAME_AVOGADRO: return number_text(6.02214076e23);
    case AST_NAME: {
      const std::string id = node.getName();
      if (const auto it = local.find(id); it != local.end()) return it->second;
      return symbol_(id);
    }
    case AST_PLUS: return joined(" + ", "0");
    case AST_TIMES: return joined("*", "1");
    case AST_MINUS:
      children();
      if (args.size() == 1) return "(-" + args[0] + ")";
      if (args.size() != 2) throw SbmlMathError("minus takes one or two operands");
      return "(" + args[0] + " - " + args[1] + ")";
    case AST_DIVIDE:
      children();
      if (args.size() != 2) throw SbmlMathError("divide takes two operands");
      return "(" + args[0] + "/" + args[1] + ")";
    case AST_POWER:
    case AST_FUNCTION_POWER:
      children();
      if (args.size() != 2) throw SbmlMathError("power takes two operands");
      return "((" + args[0] + ")^(" + args[1] + "))";
    case AST_FUNCTION_ROOT:  // root(x) or root(degree, x)
      children();
      if (args.size() == 1) return "sqrt(" + args[0] + ")";
      return "((" + args[1] + ")^(1/(" + args[0] + ")))";
    case AST_FUNCTION_LOG:  // log(x) is log10; log(base, x)
      children();
      if (args.size() == 1) return "log10(" + args[0] + ")";
      if (args[0] == "10") return "log10(" + args[1] + ")";
      return "(log(" + args[1] + ")/log(" + args[0] + "))";
    case AST_LOGICAL_AND: return joined(" and ", "1");
    case AST_LOGICAL_OR: return joined(" or ", "0");
    case AST_LOGICAL_XOR: {
      children();
      std::string text = "0";
      for (const auto& a : args) text = "((" + text + " != 0) != ((" + a + ") != 0))";
      return text;
    }
    case AST_LOGICAL_IMPLIES:
      children();
      if (args.size() != 2) throw SbmlMathError("implies takes two operands");
      return "((" + args[0] + ") == 0 or (" + args[1] + ") != 0)";
    case AST_FUNCTION_PIECEWISE: {  // value, condition, ..., otherwise: nested if()
      children();
      std::string text = args.size() % 2 ? args.back() : "0";
      for (std::size_t i = args.size() / 2; i-- > 0;)
        text = "if(" + args[2 * i + 1] + ", " + args[2 * i] + ", " + text + ")";
      return text;
    }
    case AST_FUNCTION: {  // a function definition's body, its arguments bound
      const ::FunctionDefinition* definition = model_.getFunctionDefinition(node.getName());
      if (!definition || !definition->getBody())
        throw SbmlMathError(std::string("'") + node.getName() + "' is not a function definition of the model");
      if (definition->getNumArguments() != n)
        throw SbmlMathError(std::string("function '") + node.getName() + "' takes " +
                            std::to_string(definition->getNumArguments()) + " arguments, not " + std::to_string(n));
      std::map<std::string, std::string> bound;
      for (unsigned i = 0; i < n; ++i)
        bound[definition->getArgument(i)->getName()] = "(" + write(*node.getChild(i), local) + ")";
      return "(" + write(*definition->getBody(), bound) + ")";  // the body sees its arguments only
    }
    case AST_FUNCTION_DELAY: throw SbmlMathError("delay() is not taken (delay differential equations)");
    case AST_FUNCTION_RATE_OF: throw SbmlMathError("rateOf() is not taken");
    case AST_FUNCTION_FLOOR:
    case AST_FUNCTION_CEILING:
    case AST_FUNCTION_FACTORIAL:
    case AST_FUNCTION_QUOTIENT:
    case AST_FUNCTION_REM:
      throw SbmlMathError(std::string(node.getName() ? node.getName() : "this function") +
                          "() is not taken: it has no derivative a gradient could use");
    default: break;
  }
  if (type == AST_FUNCTION_MIN || type == AST_FUNCTION_MAX) {
    if (args.empty()) children();
    if (args.empty()) throw SbmlMathError("min and max need an operand");
    const char* name = type == AST_FUNCTION_MIN ? "min(" : "max(";
    std::string text = args[0];
    for (std::size_t i = 1; i < args.size(); ++i) text = name + text + ", " + args[i] + ")";
    return text;
  }
  const char* name = node.getName();
  throw SbmlMathError(std::string("the MathML element ") + (name ? std::string("'") + name + "'" : "of type " + std::to_string(int(type))) +
                      " is not taken");
}

}  // namespace backsweep::detail
