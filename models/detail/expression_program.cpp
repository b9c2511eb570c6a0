#include "models/detail/expression_program.hpp"

#include <algorithm>

namespace backsweep::detail {

bool reads_a(ExpressionCode code) { return code != ExpressionCode::copy_constant; }

bool reads_b(ExpressionCode code) { return code <= ExpressionCode::max; }

void ExpressionProgram::append(const ExpressionProgram& other, std::uint32_t output) {
  ops.insert(ops.end(), other.ops.begin(), other.ops.end());
  if (!other.ops.empty()) ops.back().dst = output;
  segments = std::max(segments, other.segments);
}

}  // namespace backsweep::detail
