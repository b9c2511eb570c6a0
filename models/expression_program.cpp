#include "models/expression_program.hpp"

#include <algorithm>
#include <cassert>
#include <limits>

namespace backsweep::detail {

bool reads_a(ExpressionCode code) { return code != ExpressionCode::copy_constant; }

bool reads_b(ExpressionCode code) { return code <= ExpressionCode::select; }

bool carries_adjoint(ExpressionCode code) {
  return code != ExpressionCode::copy_constant && (code < ExpressionCode::less || code > ExpressionCode::logical_or);
}

void ExpressionProgram::link(std::size_t first) {
  constexpr auto kUnwritten = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t last_writer[kRegisterCount];
  std::fill(std::begin(last_writer), std::end(last_writer), kUnwritten);
  const auto on_tape = [&](std::uint8_t source, std::uint32_t index) {
    if (source != kRegisters) return index;
    assert(last_writer[index] != kUnwritten && "a register is read before it is written");
    return last_writer[index];
  };
  taped.resize(ops.size());
  for (std::size_t i = first; i < ops.size(); ++i) {
    const ExpressionOp& op = ops[i];
    // reverse() resolves unread operands too: source 0 keeps them on the tape.
    assert((reads_a(op.code) || op.a_source == kRegisters) &&
           (reads_b(op.code) || op.b_source == kRegisters) && (reads_c(op.code) || op.c_source == kRegisters));
    // A sum_range reads variables only: its first one is where its segment keeps it.
    assert(op.code != ExpressionCode::sum_range || op.a_source != kRegisters);
    taped[i] = {reads_a(op.code) ? on_tape(op.a_source, op.a) : 0u,
                reads_b(op.code) ? on_tape(op.b_source, op.b) : 0u,
                reads_c(op.code) ? on_tape(op.c_source, op.c) : 0u};
    if (op.target == kRegisters) last_writer[op.dst] = std::uint32_t(i);
  }
}

void ExpressionProgram::append(const ExpressionProgram& other, std::uint32_t output) {
  const std::size_t first = ops.size();
  ops.insert(ops.end(), other.ops.begin(), other.ops.end());
  if (!other.ops.empty()) ops.back().dst = output;
  segments = std::max(segments, other.segments);
  link(taped.size() == first ? first : 0);  // an unlinked program is linked whole
}

BACKSWEEP_PROGRAM_SCALARS()

}  // namespace backsweep::detail
