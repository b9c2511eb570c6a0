#include "models/program_source.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace backsweep::detail {

std::string double_literal(double value) {
  if (std::isnan(value)) return "__builtin_nan(\"\")";
  if (std::isinf(value)) return value > 0 ? "__builtin_inf()" : "(-__builtin_inf())";
  char text[40];
  std::snprintf(text, sizeof text, "%a", value);
  return value < 0 ? "(" + std::string(text) + ")" : std::string(text);
}

namespace {

std::string value_name(std::size_t op) { return "v" + std::to_string(op); }
std::string adjoint_name(std::size_t op) { return "g" + std::to_string(op); }

// x^e for a small integer e, as integer_power() multiplies it out.
std::string integer_power(const std::string& x, double exponent) {
  if (exponent == 0) return "1.0";
  std::string product = x;
  for (int k = 1; k < int(std::abs(exponent)); ++k) product = "(" + product + " * " + x + ")";
  return exponent < 0 ? "(1.0 / " + product + ")" : product;
}

std::string power_constant(const std::string& x, double c) {
  if (is_small_integer(c)) return integer_power(x, c);
  return "std::pow(" + x + ", " + double_literal(c) + ")";
}

// d/dx x^c along power_constant()'s path (power_constant_slope()).
std::string power_constant_slope(const std::string& x, double c) {
  if (is_small_integer(c)) return c == 0 ? "0.0" : "(" + integer_power(x, c - 1) + " * " + double_literal(c) + ")";
  return "(std::pow(" + x + ", " + double_literal(c - 1) + ") * " + double_literal(c) + ")";
}

}  // namespace

std::string ProgramSource::run(const ExpressionProgram& program,
                               const std::function<std::string(std::uint32_t)>& output) const {
  if (program.taped.size() != program.ops.size()) throw std::logic_error("ProgramSource needs a linked program");
  std::string text;
  for (std::size_t i = 0; i < program.ops.size(); ++i) {
    const ExpressionOp& op = program.ops[i];
    const TapedOperands& at = program.taped[i];
    const auto operand = [&](std::uint8_t source, std::uint32_t index, std::uint32_t taped) {
      return source == kRegisters ? value_name(taped) : variable(source - 1, index);
    };
    const std::string a = operand(op.a_source, op.a, at.a), b = operand(op.b_source, op.b, at.b);
    const std::string c = op.code == ExpressionCode::select ? operand(op.c_source, op.c, at.c) : "";
    const std::string k = double_literal(op.value);
    const auto call = [&](const char* function) { return std::string("std::") + function + "(" + a + ")"; };
    const auto truth = [](const std::string& condition) { return "(" + condition + " ? 1.0 : 0.0)"; };
    std::string e;
    switch (op.code) {
      case ExpressionCode::add: e = a + " + " + b; break;
      case ExpressionCode::subtract: e = a + " - " + b; break;
      case ExpressionCode::multiply: e = a + " * " + b; break;
      case ExpressionCode::divide: e = a + " / " + b; break;
      case ExpressionCode::power: e = "bs_power(" + a + ", " + b + ")"; break;
      case ExpressionCode::min: e = "!(" + b + " < " + a + ") ? " + a + " : " + b; break;
      case ExpressionCode::max: e = "!(" + a + " < " + b + ") ? " + a + " : " + b; break;
      case ExpressionCode::atan2: e = "std::atan2(" + a + ", " + b + ")"; break;
      case ExpressionCode::less: e = truth(a + " < " + b); break;
      case ExpressionCode::less_equal: e = truth(a + " <= " + b); break;
      case ExpressionCode::equal: e = truth(a + " == " + b); break;
      case ExpressionCode::not_equal: e = truth(a + " != " + b); break;
      case ExpressionCode::logical_and: e = truth(a + " != 0.0 && " + b + " != 0.0"); break;
      case ExpressionCode::logical_or: e = truth(a + " != 0.0 || " + b + " != 0.0"); break;
      case ExpressionCode::select: e = c + " != 0.0 ? " + a + " : " + b; break;
      case ExpressionCode::sum_range:
        e = variable(op.a_source - 1, op.a);
        for (std::uint32_t j = 1; j < std::uint32_t(op.value); ++j) e = "(" + e + " + " + variable(op.a_source - 1, op.a + j) + ")";
        break;
      case ExpressionCode::add_constant: e = a + " + " + k; break;
      case ExpressionCode::subtract_constant: e = a + " + " + double_literal(-op.value); break;
      case ExpressionCode::multiply_constant: e = a + " * " + k; break;
      case ExpressionCode::divide_constant: e = a + " / " + k; break;
      case ExpressionCode::power_constant: e = power_constant(a, op.value); break;
      case ExpressionCode::constant_subtract: e = k + " - " + a; break;
      case ExpressionCode::constant_divide: e = k + " / " + a; break;
      case ExpressionCode::negate: e = "-" + a; break;
      case ExpressionCode::exp: e = call("exp"); break;
      case ExpressionCode::log: e = call("log"); break;
      case ExpressionCode::log10: e = call("log10"); break;
      case ExpressionCode::sqrt: e = call("sqrt"); break;
      case ExpressionCode::sin: e = call("sin"); break;
      case ExpressionCode::cos: e = call("cos"); break;
      case ExpressionCode::tan: e = call("tan"); break;
      case ExpressionCode::tanh: e = call("tanh"); break;
      case ExpressionCode::abs: e = call("abs"); break;
      case ExpressionCode::atan: e = call("atan"); break;
      case ExpressionCode::asin: e = call("asin"); break;
      case ExpressionCode::acos: e = call("acos"); break;
      case ExpressionCode::sinh: e = call("sinh"); break;
      case ExpressionCode::cosh: e = call("cosh"); break;
      case ExpressionCode::erf: e = call("erf"); break;
      case ExpressionCode::copy: e = a; break;
      case ExpressionCode::copy_constant: e = k; break;
    }
    text += "const double " + value_name(i) + " = " + e + ";\n";
    if (op.target == kOutputs && output) {
      const std::string to = output(op.dst);
      if (!to.empty()) text += to + " = " + value_name(i) + ";\n";
    }
  }
  return text;
}

std::string ProgramSource::reverse(const ExpressionProgram& program,
                                   const std::function<std::string(std::uint32_t)>& output_adjoint,
                                   bool guarded) const {
  std::string text;
  for (std::size_t i = 0; i < program.ops.size(); ++i) {
    const ExpressionOp& op = program.ops[i];
    // -0.0, the sum's identity: the compiler drops `-0.0 + x` (not `0.0 + x`), and the
    // adjoints differ from the interpreter's at most in the sign of a zero adjoint.
    text += op.target == kRegisters ? "double " + adjoint_name(i) + " = -0.0;\n"
                                    : "const double " + adjoint_name(i) + " = " + output_adjoint(op.dst) + ";\n";
  }
  for (std::size_t i = program.ops.size(); i-- > 0;) {
    const ExpressionOp& op = program.ops[i];
    const TapedOperands& at = program.taped[i];
    const auto operand = [&](std::uint8_t source, std::uint32_t index, std::uint32_t taped) {
      return source == kRegisters ? value_name(taped) : variable(source - 1, index);
    };
    const auto adjoint_of = [&](std::uint8_t source, std::uint32_t index, std::uint32_t taped) {
      if (source == kRegisters) return adjoint_name(taped);
      return elsewhere && elsewhere(i, source - 1) ? std::string() : adjoint(source - 1, index);
    };
    const std::string a = operand(op.a_source, op.a, at.a), b = operand(op.b_source, op.b, at.b);
    const std::string ga = adjoint_of(op.a_source, op.a, at.a), gb = adjoint_of(op.b_source, op.b, at.b);
    const std::string g = adjoint_name(i), y = value_name(i), k = double_literal(op.value);
    std::string body;
    const auto to_a = [&](const std::string& amount) {
      if (!ga.empty()) body += ga + " += " + amount + ";\n";
    };
    const auto to_b = [&](const std::string& amount) {
      if (!gb.empty()) body += gb + " += " + amount + ";\n";
    };
    const auto branch = [&](const std::string& condition, auto&& then_add, auto&& else_add) {
      const std::string before = body;
      body.clear();
      then_add();
      const std::string taken = body;
      body.clear();
      else_add();
      body = before + "if (" + condition + ") {\n" + taken + "} else {\n" + body + "}\n";
    };
    switch (op.code) {
      case ExpressionCode::add: to_a(g); to_b(g); break;
      case ExpressionCode::subtract: to_a(g); to_b("-" + g); break;
      case ExpressionCode::multiply: to_a(g + " * " + b); to_b(g + " * " + a); break;
      case ExpressionCode::divide:
        body += "const double q" + std::to_string(i) + " = " + g + " / " + b + ";\n";
        to_a("q" + std::to_string(i));
        to_b("-(q" + std::to_string(i) + " * " + y + ")");
        break;
      case ExpressionCode::power:
        if (op.b_source == kRegisters && program.ops[at.b].code == ExpressionCode::copy_constant) {
          to_a(g + " * " + power_constant_slope(a, program.ops[at.b].value));
        } else {
          to_a(g + " * (" + b + " * std::pow(" + a + ", " + b + " - 1.0))");
          to_b(g + " * (" + y + " * std::log(" + a + "))");
        }
        break;
      case ExpressionCode::min: branch(b + " < " + a, [&] { to_b(g); }, [&] { to_a(g); }); break;
      case ExpressionCode::max: branch(a + " < " + b, [&] { to_b(g); }, [&] { to_a(g); }); break;
      case ExpressionCode::less:
      case ExpressionCode::less_equal:
      case ExpressionCode::equal:
      case ExpressionCode::not_equal:
      case ExpressionCode::logical_and:
      case ExpressionCode::logical_or:
      case ExpressionCode::copy_constant: break;
      case ExpressionCode::select:
        branch(operand(op.c_source, op.c, at.c) + " != 0.0", [&] { to_a(g); }, [&] { to_b(g); });
        break;
      case ExpressionCode::sum_range:
        for (std::uint32_t j = 0; j < std::uint32_t(op.value); ++j) {
          const std::string to = adjoint(op.a_source - 1, op.a + j);
          if (!to.empty()) body += to + " += " + g + ";\n";
        }
        break;
      case ExpressionCode::atan2: {
        const std::string inverse = "w" + std::to_string(i);
        body += "const double " + inverse + " = 1.0 / (" + b + " * " + b + " + " + a + " * " + a + ");\n";
        to_a(g + " * (" + b + " * " + inverse + ")");
        to_b("-(" + g + " * (" + a + " * " + inverse + "))");
        break;
      }
      case ExpressionCode::add_constant:
      case ExpressionCode::subtract_constant:
      case ExpressionCode::copy: to_a(g); break;
      case ExpressionCode::multiply_constant: to_a(g + " * " + k); break;
      case ExpressionCode::divide_constant: to_a(g + " / " + k); break;
      case ExpressionCode::power_constant: to_a(g + " * " + power_constant_slope(a, op.value)); break;
      case ExpressionCode::constant_subtract:
      case ExpressionCode::negate: to_a("-" + g); break;
      case ExpressionCode::constant_divide: to_a("-(" + g + " * " + y + ") / " + a); break;
      case ExpressionCode::exp: to_a(g + " * " + y); break;
      case ExpressionCode::log: to_a(g + " / " + a); break;
      case ExpressionCode::log10: to_a(g + " / (" + a + " * " + double_literal(std::log(10.0)) + ")"); break;
      case ExpressionCode::sqrt: to_a(g + " * (0.5 / " + y + ")"); break;
      case ExpressionCode::sin: to_a(g + " * std::cos(" + a + ")"); break;
      case ExpressionCode::cos: to_a("-(" + g + " * std::sin(" + a + "))"); break;
      case ExpressionCode::tan: to_a(g + " * (1.0 + " + y + " * " + y + ")"); break;
      case ExpressionCode::tanh: to_a(g + " * (1.0 - " + y + " * " + y + ")"); break;
      case ExpressionCode::abs: to_a("(" + a + " < 0.0 ? -" + g + " : " + g + ")"); break;
      case ExpressionCode::atan: to_a(g + " / (1.0 + " + a + " * " + a + ")"); break;
      case ExpressionCode::asin: to_a(g + " / std::sqrt(1.0 - " + a + " * " + a + ")"); break;
      case ExpressionCode::acos: to_a("-(" + g + " / std::sqrt(1.0 - " + a + " * " + a + "))"); break;
      case ExpressionCode::sinh: to_a(g + " * std::cosh(" + a + ")"); break;
      case ExpressionCode::cosh: to_a(g + " * std::sinh(" + a + ")"); break;
      case ExpressionCode::erf:
        to_a(g + " * (std::exp(-(" + a + " * " + a + ")) * " + double_literal(1.1283791670955126) + ")");
        break;
    }
    if (!body.empty()) text += guarded ? "if (" + g + " != 0.0) {\n" + body + "}\n" : "{\n" + body + "}\n";
  }
  return text;
}

}  // namespace backsweep::detail
