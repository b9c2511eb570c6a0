#include "models/operator_adjoints.hpp"

namespace backsweep::detail {

namespace {

// Sources of the segments (segment + 1; 0 is the registers).
constexpr std::uint8_t kScalarSource = 3, kOperatorSource = 5, kCoordinateSource = 6;

// Whether an operand at (source, index), `count` variables from it, is operator s.
bool is_operator(std::uint8_t source, std::uint32_t index, std::size_t count, std::size_t s) {
  return source == kOperatorSource && index <= s && s < index + count;
}

std::size_t width(const ExpressionOp& op) { return op.code == ExpressionCode::sum_range ? std::size_t(op.value) : 1; }

OperatorAdjoint analyse(const ExpressionProgram& program, std::size_t s) {
  const std::size_t n = program.ops.size();
  // flows[i]: op i's adjoint reaches operator s, through the operands its reverse adds into.
  std::vector<char> flows(n, 0), needed(n, 0);
  std::vector<std::size_t> readers;
  const auto edge = [&](std::size_t i, std::uint8_t source, std::uint32_t index, std::uint32_t taped) {
    return source == kRegisters ? flows[taped] != 0 : is_operator(source, index, width(program.ops[i]), s);
  };
  for (std::size_t i = 0; i < n; ++i) {
    const ExpressionOp& op = program.ops[i];
    const TapedOperands& at = program.taped[i];
    const bool a_reads = reads_a(op.code) && is_operator(op.a_source, op.a, width(op), s);
    const bool b_reads = reads_b(op.code) && is_operator(op.b_source, op.b, 1, s);
    const bool c_reads = reads_c(op.code) && is_operator(op.c_source, op.c, 1, s);
    if (a_reads || b_reads || c_reads) readers.push_back(i);
    flows[i] = carries_adjoint(op.code) && ((reads_a(op.code) && edge(i, op.a_source, op.a, at.a)) ||
                                    (reads_b(op.code) && edge(i, op.b_source, op.b, at.b)));
  }

  // The values those ops' partials read, then everything those values are computed from.
  bool local = true;
  const auto need = [&](std::uint8_t source, std::uint32_t taped) {
    if (source == kRegisters) needed[taped] = 1;
    else if (source == kOperatorSource || source == kCoordinateSource) local = false;
  };
  const auto need_operands = [&](std::size_t i) {
    const ExpressionOp& op = program.ops[i];
    const TapedOperands& at = program.taped[i];
    if (reads_a(op.code)) need(op.a_source, at.a);
    if (reads_b(op.code)) need(op.b_source, at.b);
    if (reads_c(op.code)) need(op.c_source, at.c);
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (!flows[i]) continue;
    const ExpressionOp& op = program.ops[i];
    const TapedOperands& at = program.taped[i];
    switch (op.code) {
      case ExpressionCode::add:
      case ExpressionCode::subtract:
      case ExpressionCode::sum_range:
      case ExpressionCode::add_constant:
      case ExpressionCode::subtract_constant:
      case ExpressionCode::copy:
      case ExpressionCode::multiply_constant:
      case ExpressionCode::divide_constant:
      case ExpressionCode::constant_subtract:
      case ExpressionCode::negate: break;  // constant partials
      case ExpressionCode::multiply:       // each operand's partial is the other operand
        if (edge(i, op.a_source, op.a, at.a)) need(op.b_source, at.b);
        if (edge(i, op.b_source, op.b, at.b)) need(op.a_source, at.a);
        break;
      case ExpressionCode::select: need(op.c_source, at.c); break;
      default:  // partials of the operands and of the result
        need_operands(i);
        needed[i] = 1;
    }
  }
  for (std::size_t i = n; i-- > 0;)
    if (needed[i]) need_operands(i);

  OperatorAdjoint result;
  result.local = local;
  if (readers.size() == 1) {
    const ExpressionOp& op = program.ops[readers[0]];
    const bool a_is = op.a_source == kOperatorSource && op.a == s, b_is = op.b_source == kOperatorSource && op.b == s;
    if (op.code == ExpressionCode::multiply && a_is != b_is && (a_is ? op.b_source : op.a_source) == kScalarSource)
      result.scaled = ScaledOperator{readers[0], a_is ? op.b : op.a};
  }
  return result;
}

}  // namespace

std::vector<OperatorAdjoint> operator_adjoints(const ExpressionProgram& program, std::size_t operators) {
  std::vector<OperatorAdjoint> result;
  for (std::size_t s = 0; s < operators; ++s) result.push_back(analyse(program, s));
  return result;
}

}  // namespace backsweep::detail
