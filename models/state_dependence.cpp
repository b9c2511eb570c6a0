#include "models/state_dependence.hpp"

#include <algorithm>
#include <array>

namespace backsweep::detail {
namespace {

using enum Dependence;

Dependence widest(Dependence a, Dependence b) { return std::max(a, b); }

// A function of values of kinds a and b that is not affine in them (a product, exp, a
// comparison): it keeps no state in it affine.
Dependence curved(Dependence a, Dependence b = constant) {
  const Dependence w = widest(a, b);
  return w <= time ? w : nonlinear;
}

Dependence of_op(ExpressionCode code, Dependence a, Dependence b, Dependence c, double value) {
  switch (code) {
    case ExpressionCode::add:
    case ExpressionCode::subtract: return widest(a, b);
    case ExpressionCode::multiply:  // a constant factor keeps a kind; a time-varying one on y does not
      return a == constant ? b : b == constant ? a : curved(a, b);
    case ExpressionCode::divide: return b == constant ? a : curved(a, b);
    case ExpressionCode::select: return c == constant ? widest(a, b) : curved(widest(a, b), c);
    case ExpressionCode::add_constant:
    case ExpressionCode::subtract_constant:
    case ExpressionCode::multiply_constant:
    case ExpressionCode::divide_constant:
    case ExpressionCode::constant_subtract:
    case ExpressionCode::negate:
    case ExpressionCode::copy: return a;
    case ExpressionCode::power_constant: return value == 1.0 ? a : curved(a);
    case ExpressionCode::copy_constant: return constant;
    default:  // functions, comparisons, min, max, powers: curved in every operand read
      return curved(reads_a(code) ? a : constant, reads_b(code) ? b : constant);
  }
}

}  // namespace

Dependence output_dependence(const ExpressionProgram& program,
                             const std::function<Dependence(std::size_t segment, std::uint32_t offset)>& input) {
  std::array<Dependence, kRegisterCount> registers{};
  const auto read = [&](std::uint8_t source, std::uint32_t index) {
    return source == kRegisters ? registers[index] : input(source - 1u, index);
  };
  Dependence outputs = constant;
  for (const ExpressionOp& op : program.ops) {
    Dependence result;
    if (op.code == ExpressionCode::sum_range) {
      result = constant;
      for (std::uint32_t k = 0; k < std::uint32_t(op.value); ++k) result = widest(result, read(op.a_source, op.a + k));
    } else {
      result = of_op(op.code, reads_a(op.code) ? read(op.a_source, op.a) : constant,
                     reads_b(op.code) ? read(op.b_source, op.b) : constant,
                     reads_c(op.code) ? read(op.c_source, op.c) : constant, op.value);
    }
    if (op.target == kRegisters) registers[op.dst] = result;
    else outputs = widest(outputs, result);
  }
  return outputs;
}

}  // namespace backsweep::detail
