#include "models/program_emitter.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace backsweep::detail {

using Code = ExpressionCode;
using Op = ExpressionOp;

ProgramEmitter::Operand ProgramEmitter::variable(std::size_t segment, std::uint32_t offset) {
  use_segment(segment);
  return {Operand::variable, std::uint8_t(segment + 1), offset, 0.0};
}

ProgramEmitter::Operand ProgramEmitter::unary(Code code, const Operand& a) {
  if (a.kind == Operand::constant) return constant(fold(code, a.value));
  Op op{code};
  read_into(op, a);
  return emit(op, {a});
}

ProgramEmitter::Operand ProgramEmitter::binary(Code code, Operand a, Operand b) {
  if (a.kind == Operand::constant && b.kind == Operand::constant) return constant(fold(code, a.value, b.value));
  // `a op constant` and `constant op a` take the constant as an immediate; + and *
  // commute (bitwise, in IEEE arithmetic).
  const bool commutes = code == Code::add || code == Code::multiply;
  if (a.kind == Operand::constant && commutes) std::swap(a, b);
  if (b.kind == Operand::constant && code <= Code::power) {
    Op op{Code(int(Code::add_constant) + int(code) - int(Code::add))};
    read_into(op, a);
    op.value = b.value;
    return emit(op, {a});
  }
  if (a.kind == Operand::constant && (code == Code::subtract || code == Code::divide)) {
    Op op{code == Code::subtract ? Code::constant_subtract : Code::constant_divide};
    read_into(op, b);
    op.value = a.value;
    return emit(op, {b});
  }
  // min, max, atan2, pow with a constant: the constant goes through a register.
  a = to_register(a);
  b = to_register(b);
  Op op{code};
  op.a_source = a.source;
  op.a = a.index;
  op.b_source = b.source;
  op.b = b.index;
  return emit(op, {a, b});
}

ProgramEmitter::Operand ProgramEmitter::select(const Operand& condition, const Operand& when_true,
                                               const Operand& when_false) {
  const Operand a = to_register(when_true), b = to_register(when_false);
  Op op{Code::select};
  op.a_source = a.source;
  op.a = a.index;
  op.b_source = b.source;
  op.b = b.index;
  op.c_source = condition.source;
  op.c = condition.index;
  return emit(op, {condition, a, b});
}

ProgramEmitter::Operand ProgramEmitter::sum_range(std::size_t segment, std::uint32_t offset, std::size_t count) {
  use_segment(segment);
  Op op{Code::sum_range};
  op.a_source = std::uint8_t(segment + 1);
  op.a = offset;
  op.value = double(count);
  return emit(op, {});
}

ExpressionProgram ProgramEmitter::finish(const Operand& result) {
  // The value goes to output 0: from the instruction that computed it, or copied.
  if (result.kind == Operand::in_register) {
    program_.ops.back().target = kOutputs;
    program_.ops.back().dst = 0;
  } else {
    Op copy{result.kind == Operand::constant ? Code::copy_constant : Code::copy};
    copy.target = kOutputs;
    read_into(copy, result);
    program_.ops.push_back(copy);
  }
  program_.link();
  return std::move(program_);
}

ProgramEmitter::Operand ProgramEmitter::allocate_register() {
  if (registers_in_use_ == kRegisterCount) throw RegistersExhausted{};
  return {Operand::in_register, kRegisters, std::uint32_t(registers_in_use_++), 0.0};
}

void ProgramEmitter::release(const Operand& operand) {
  if (operand.kind == Operand::in_register) --registers_in_use_;
}

void ProgramEmitter::read_into(Op& op, const Operand& operand) {
  if (operand.kind == Operand::constant) {
    op.value = operand.value;
  } else {
    op.a_source = operand.source;
    op.a = operand.index;
  }
}

// Emits dst = op(operands) into a fresh register (the operands' registers are free
// again, so the result takes the lowest of them).
ProgramEmitter::Operand ProgramEmitter::emit(Op op, std::initializer_list<Operand> operands) {
  for (auto it = std::rbegin(operands); it != std::rend(operands); ++it) release(*it);
  const Operand result = allocate_register();
  op.dst = result.index;
  program_.ops.push_back(op);
  return result;
}

double ProgramEmitter::fold(Code code, double a, double b) {
  const double values[2] = {a, b};
  const double* segments[] = {values};
  ExpressionProgram program;
  program.segments = 1;
  program.ops.push_back({code, kOutputs, 1, 1, 0, 0, 1, 0.0});
  double result = 0.0;
  program.run(segments, &result);
  return result;
}

ProgramEmitter::Operand ProgramEmitter::to_register(const Operand& operand) {
  if (operand.kind != Operand::constant) return operand;
  Op copy{Code::copy_constant};
  copy.value = operand.value;
  return emit(copy, {});
}

void ProgramEmitter::use_segment(std::size_t segment) {
  program_.segments = std::max<std::size_t>(program_.segments, segment + 1);
}

}  // namespace backsweep::detail
