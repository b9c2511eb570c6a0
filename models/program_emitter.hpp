#pragma once
// ProgramEmitter: builds the three-address program of an expression (expression_program.hpp)
// from the operations the parser (expression.cpp) reads, in reading order. An operation on
// constants alone is folded now, exactly as evaluation would compute it; a constant
// operand becomes an op's immediate where the op takes one; intermediate results live in
// registers used as a stack, so an operation's result takes the lowest of its operands'.
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "models/expression_program.hpp"

namespace backsweep::detail {

class ProgramEmitter {
 public:
  // What an operation applies to: a constant, a variable where the caller keeps it, or a
  // register holding an intermediate result.
  struct Operand {
    enum Kind { constant, variable, in_register } kind;
    std::uint8_t source = 0;
    std::uint32_t index = 0;
    double value = 0.0;
  };
  // Thrown when an expression needs more than kRegisterCount registers at once.
  struct RegistersExhausted {};

  static Operand constant(double value) { return {Operand::constant, 0, 0, value}; }
  // Variable `offset` of the caller's segment `segment`.
  Operand variable(std::size_t segment, std::uint32_t offset);

  Operand unary(ExpressionCode code, const Operand& a);
  Operand binary(ExpressionCode code, Operand a, Operand b);
  // if(condition, a, b) on a condition that is not constant.
  Operand select(const Operand& condition, const Operand& a, const Operand& b);
  // The sum of `count` variables of `segment` from `offset`.
  Operand sum_range(std::size_t segment, std::uint32_t offset, std::size_t count);

  // The program with `result` as its output 0.
  ExpressionProgram finish(const Operand& result);

 private:
  Operand allocate_register();
  void release(const Operand& operand);
  static void read_into(ExpressionOp& op, const Operand& operand);
  Operand emit(ExpressionOp op, std::initializer_list<Operand> operands);
  static double fold(ExpressionCode code, double a, double b = 0.0);
  Operand to_register(const Operand& operand);
  void use_segment(std::size_t segment);

  ExpressionProgram program_;
  std::size_t registers_in_use_ = 0;
};

}  // namespace backsweep::detail
