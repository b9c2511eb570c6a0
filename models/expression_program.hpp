#pragma once
// The compiled form of config expressions: three-address code ("r1 = x * r0") run
// generically over the scalar type (double, Dual, nested Dual).
//
// Operands are read where they lie: in the caller's arrays ("segments": t, the states,
// the parameters) at a (segment, offset) resolved when parsing, or in scratch registers.
// So evaluating copies no inputs, allocates nothing, and a typical right-hand side term
// ("beta*S*I") is one instruction per operator. Constants are immediate operands. A
// program may have several results: a model's equations run as one fused program, each
// equation's last instruction writing its dy_i/dt directly.
//
// Reverse mode: run_taping() keeps every instruction's result (the tape, one value per
// instruction), then reverse() walks the instructions backward once, taking the values
// its partials need from the tape, so a vector-Jacobian product costs a small constant
// times one run whatever the number of outputs.
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "models/constant_arithmetic.hpp"
#include "models/detail/dependency_tracer.hpp"
#include "models/dual.hpp"

namespace backsweep::detail {

enum class ExpressionCode : std::uint8_t {
  // dst = a op b (atan2: a is y, b is x)
  add, subtract, multiply, divide, power, min, max, atan2,
  // dst = 1 where a op b holds, else 0 (and, or: where a and/or b is not 0); no derivative
  less, less_equal, equal, not_equal, logical_and, logical_or,
  // dst = c != 0 ? a : b (if(c, a, b): the derivative follows the branch taken)
  select,
  // dst = a[0] + a[1] + ... + a[count - 1]: `count` (in `value`) variables of a segment from a
  sum_range,
  // dst = a op constant
  add_constant, subtract_constant, multiply_constant, divide_constant, power_constant,
  // dst = constant op a
  constant_subtract, constant_divide,
  // dst = f(a)
  negate, exp, log, log10, sqrt, sin, cos, tan, tanh, abs,
  atan, asin, acos, sinh, cosh, erf,
  // dst = a, dst = constant
  copy, copy_constant
};

// Where operands come from: source 0 is the registers, source s + 1 the caller's
// segment s. Where results go: target 0 is the registers, target 1 the outputs.
inline constexpr std::uint8_t kRegisters = 0, kOutputs = 1;
inline constexpr std::size_t kMaxSegments = 7;  // run() copies up to this many
// Registers a program may use; parsing refuses expressions that need more.
inline constexpr std::size_t kRegisterCount = 64;

// Operands an op does not read (b of a unary op, both of copy_constant, c of all but
// select) stay at source 0.
struct ExpressionOp {
  ExpressionCode code;
  std::uint8_t target = kRegisters;
  std::uint8_t a_source = 0, b_source = 0;
  std::uint32_t dst = 0, a = 0, b = 0;
  double value = 0.0;  // the constant operand
  std::uint8_t c_source = 0;  // select's condition
  std::uint32_t c = 0;
};

bool reads_a(ExpressionCode code);
bool reads_b(ExpressionCode code);
inline bool reads_c(ExpressionCode code) { return code == ExpressionCode::select; }
// Whether the op's reverse adds into its operands a and b (comparisons, and/or and
// constants have no partials; select adds into a or b, never into its condition).
bool carries_adjoint(ExpressionCode code);

// Where an op's operands lie on the tape (see ExpressionProgram::run_taping): a register
// operand is the result of the last op before it that wrote that register, so its index
// is that op's; a variable keeps its offset in its segment.
struct TapedOperands {
  std::uint32_t a = 0, b = 0, c = 0;
};

// The branch taken by if(), min and max. A DependencyTracer also takes the other
// branch's dependencies: a traced pattern then holds wherever the branches go.
template <class T>
T branch(bool take_a, const T& a, const T& b) {
  if constexpr (std::is_same_v<T, DependencyTracer>) {
    T taken = take_a ? a : b;
    return taken.depend_on(take_a ? b : a);
  } else {
    return take_a ? a : b;
  }
}

// 1 or 0 as a T: the value of a comparison.
template <class T>
T truth(bool holds) {
  return T(holds ? 1.0 : 0.0);
}

struct ExpressionProgram {
  std::vector<ExpressionOp> ops;
  std::size_t segments = 0;  // caller segments read: 0 .. segments - 1
  // taped[i]: where ops[i] finds its operands on the tape. link() fills it; run() does
  // not need it, run_taping() and reverse() do.
  std::vector<TapedOperands> taped;

  // Fills `taped` for ops [first, end). The ops from `first` on must read only registers
  // they write themselves: true of a parsed expression, so of programs appended from them.
  void link(std::size_t first = 0);

  // Appends `other`, its output 0 going to output `output` (its last instruction
  // writes it), and links the appended ops.
  void append(const ExpressionProgram& other, std::uint32_t output);

  // segments[s][i] is variable i of caller segment s; results go to outputs.
  template <class T>
  void run(const T* const* caller_segments, T* outputs) const {
    execute<false, T>(caller_segments, outputs, nullptr);
  }

  // What run() computes, bitwise, also keeping every op's result: tape[i] is the result
  // of ops[i] (tape has ops.size() entries). `outputs` may be null: the results are then
  // only on the tape. Needs link().
  template <class T>
  void run_taping(const T* const* caller_segments, T* outputs, T* tape) const {
    assert(taped.size() == ops.size() && "run_taping() needs link()");
    execute<true, T>(caller_segments, outputs, tape);
  }

  // Reverse mode after run_taping() at the same segments: adds to segment_adjoints[s][i]
  // the sum over outputs d of output_adjoints[d] * d(output d)/d(variable i of segment
  // s). A null segment_adjoints[s] is not wanted (t, usually). Allocates nothing; costs a
  // small constant times run().
  //
  // Registers are reused, so the adjoint of register r belongs to the value it holds: an
  // op writing r takes that adjoint and clears it before adding into its operands, and
  // reads of r after it (met first, walking backward) have already added theirs. Ops
  // whose adjoint is exactly zero are skipped, so NaN or infinite partials only show
  // where something flows; a NaN adjoint is not skipped. Branches (min, max, abs, the
  // integer-power path) follow what run() took. Like Dual's pow, the a^b log(a) term
  // of a^b is left out only where b is a constant (copy_constant): a variable exponent
  // at a negative base gives a NaN derivative in that exponent.
  //
  // WARNING: each output must be written by one op (true of parsed and appended
  // programs), and the tape must come from run_taping() at these segments.
  template <class T>
  void reverse(const T* const* caller_segments, const T* tape, const T* output_adjoints,
               T* const* segment_adjoints) const;

 private:
  // run() and run_taping(): taping reads register operands from the tape, where link()
  // says they lie, and writes each result there; otherwise registers are used. Not
  // inlined: inlined into a caller whose segment array is shorter than kMaxSegments,
  // GCC warns about the switch below (-Warray-bounds); the call costs nothing measurable.
  template <bool kTaping, class T>
  [[gnu::noinline]] void execute(const T* const* caller_segments, T* outputs, T* tape) const;
};

template <bool kTaping, class T>
void ExpressionProgram::execute(const T* const* caller_segments, T* outputs, T* tape) const {
  using std::abs, std::acos, std::asin, std::atan, std::atan2, std::cos, std::cosh,
      std::erf, std::exp, std::log, std::log10, std::sin, std::sinh, std::sqrt, std::tan,
      std::tanh;
  static_assert(std::is_trivially_destructible_v<T> && std::is_trivially_copyable_v<T>);
  // Raw storage: registers are written before they are read, and a Dual would
  // zero-fill itself on construction, which costs more than a small program.
  alignas(T) std::byte storage[kTaping ? 1 : kRegisterCount * sizeof(T)];
  T* const registers = reinterpret_cast<T*>(storage);
  const T* sources[kMaxSegments + 1];  // only those the program reads are set
  sources[kRegisters] = kTaping ? tape : registers;
  switch (segments) {  // a loop here becomes a call to memcpy, slower than the program
    case 7: sources[7] = caller_segments[6]; [[fallthrough]];
    case 6: sources[6] = caller_segments[5]; [[fallthrough]];
    case 5: sources[5] = caller_segments[4]; [[fallthrough]];
    case 4: sources[4] = caller_segments[3]; [[fallthrough]];
    case 3: sources[3] = caller_segments[2]; [[fallthrough]];
    case 2: sources[2] = caller_segments[1]; [[fallthrough]];
    case 1: sources[1] = caller_segments[0]; [[fallthrough]];
    default: break;
  }
  T* const targets[2] = {registers, outputs};
  const ExpressionOp* const program = ops.data();
  const TapedOperands* const where = taped.data();
  const std::size_t count = ops.size();
#define BACKSWEEP_DST (kTaping ? tape[i] : targets[op.target][op.dst])
#define BACKSWEEP_A sources[op.a_source][kTaping ? where[i].a : op.a]
#define BACKSWEEP_B sources[op.b_source][kTaping ? where[i].b : op.b]
#define BACKSWEEP_C sources[op.c_source][kTaping ? where[i].c : op.c]
  for (std::size_t i = 0; i < count; ++i) {
    const ExpressionOp& op = program[i];
    switch (op.code) {
      case ExpressionCode::add: BACKSWEEP_DST = BACKSWEEP_A + BACKSWEEP_B; break;
      case ExpressionCode::subtract: BACKSWEEP_DST = BACKSWEEP_A - BACKSWEEP_B; break;
      case ExpressionCode::multiply: BACKSWEEP_DST = BACKSWEEP_A * BACKSWEEP_B; break;
      case ExpressionCode::divide: BACKSWEEP_DST = BACKSWEEP_A / BACKSWEEP_B; break;
      case ExpressionCode::power: BACKSWEEP_DST = power(BACKSWEEP_A, BACKSWEEP_B); break;
      case ExpressionCode::min: BACKSWEEP_DST = branch(!(BACKSWEEP_B < BACKSWEEP_A), BACKSWEEP_A, BACKSWEEP_B); break;
      case ExpressionCode::max: BACKSWEEP_DST = branch(!(BACKSWEEP_A < BACKSWEEP_B), BACKSWEEP_A, BACKSWEEP_B); break;
      case ExpressionCode::atan2: BACKSWEEP_DST = atan2(BACKSWEEP_A, BACKSWEEP_B); break;
      case ExpressionCode::less: BACKSWEEP_DST = truth<T>(value_of(BACKSWEEP_A) < value_of(BACKSWEEP_B)); break;
      case ExpressionCode::less_equal: BACKSWEEP_DST = truth<T>(value_of(BACKSWEEP_A) <= value_of(BACKSWEEP_B)); break;
      case ExpressionCode::equal: BACKSWEEP_DST = truth<T>(value_of(BACKSWEEP_A) == value_of(BACKSWEEP_B)); break;
      case ExpressionCode::not_equal: BACKSWEEP_DST = truth<T>(value_of(BACKSWEEP_A) != value_of(BACKSWEEP_B)); break;
      case ExpressionCode::logical_and:
        BACKSWEEP_DST = truth<T>(value_of(BACKSWEEP_A) != 0 && value_of(BACKSWEEP_B) != 0);
        break;
      case ExpressionCode::logical_or:
        BACKSWEEP_DST = truth<T>(value_of(BACKSWEEP_A) != 0 || value_of(BACKSWEEP_B) != 0);
        break;
      case ExpressionCode::select: BACKSWEEP_DST = branch(value_of(BACKSWEEP_C) != 0, BACKSWEEP_A, BACKSWEEP_B); break;
      case ExpressionCode::sum_range: {
        const T* const first = &BACKSWEEP_A;
        T sum = first[0];
        for (std::size_t k = 1; k < std::size_t(op.value); ++k) sum = sum + first[k];
        BACKSWEEP_DST = sum;
        break;
      }
      case ExpressionCode::add_constant: BACKSWEEP_DST = plus_constant(BACKSWEEP_A, op.value); break;
      case ExpressionCode::subtract_constant: BACKSWEEP_DST = plus_constant(BACKSWEEP_A, -op.value); break;
      case ExpressionCode::multiply_constant: BACKSWEEP_DST = times_constant(BACKSWEEP_A, op.value); break;
      case ExpressionCode::divide_constant: BACKSWEEP_DST = divided_by_constant(BACKSWEEP_A, op.value); break;
      case ExpressionCode::power_constant: BACKSWEEP_DST = power_constant(BACKSWEEP_A, op.value); break;
      case ExpressionCode::constant_subtract: BACKSWEEP_DST = constant_minus(op.value, BACKSWEEP_A); break;
      case ExpressionCode::constant_divide: BACKSWEEP_DST = T(op.value) / BACKSWEEP_A; break;
      case ExpressionCode::negate: BACKSWEEP_DST = -BACKSWEEP_A; break;
      case ExpressionCode::exp: BACKSWEEP_DST = exp(BACKSWEEP_A); break;
      case ExpressionCode::log: BACKSWEEP_DST = log(BACKSWEEP_A); break;
      case ExpressionCode::log10: BACKSWEEP_DST = log10(BACKSWEEP_A); break;
      case ExpressionCode::sqrt: BACKSWEEP_DST = sqrt(BACKSWEEP_A); break;
      case ExpressionCode::sin: BACKSWEEP_DST = sin(BACKSWEEP_A); break;
      case ExpressionCode::cos: BACKSWEEP_DST = cos(BACKSWEEP_A); break;
      case ExpressionCode::tan: BACKSWEEP_DST = tan(BACKSWEEP_A); break;
      case ExpressionCode::tanh: BACKSWEEP_DST = tanh(BACKSWEEP_A); break;
      case ExpressionCode::abs: BACKSWEEP_DST = abs(BACKSWEEP_A); break;
      case ExpressionCode::atan: BACKSWEEP_DST = atan(BACKSWEEP_A); break;
      case ExpressionCode::asin: BACKSWEEP_DST = asin(BACKSWEEP_A); break;
      case ExpressionCode::acos: BACKSWEEP_DST = acos(BACKSWEEP_A); break;
      case ExpressionCode::sinh: BACKSWEEP_DST = sinh(BACKSWEEP_A); break;
      case ExpressionCode::cosh: BACKSWEEP_DST = cosh(BACKSWEEP_A); break;
      case ExpressionCode::erf: BACKSWEEP_DST = erf(BACKSWEEP_A); break;
      case ExpressionCode::copy: BACKSWEEP_DST = BACKSWEEP_A; break;
      case ExpressionCode::copy_constant: BACKSWEEP_DST = T(op.value); break;
    }
    if constexpr (kTaping)
      if (op.target == kOutputs && outputs) outputs[op.dst] = tape[i];
  }
#undef BACKSWEEP_DST
#undef BACKSWEEP_A
#undef BACKSWEEP_B
#undef BACKSWEEP_C
}

template <class T>
void ExpressionProgram::reverse(const T* const* caller_segments, const T* tape,
                                const T* output_adjoints, T* const* segment_adjoints) const {
  using std::cos, std::cosh, std::exp, std::log, std::pow, std::sin, std::sinh, std::sqrt;
  assert(taped.size() == ops.size() && "reverse() needs link()");
  T register_adjoints[kRegisterCount]{};
  // Index 0: the tape (values) and the register adjoints; s + 1: caller segment s.
  const T* values[kMaxSegments + 1];
  T* adjoints[kMaxSegments + 1];
  values[kRegisters] = tape;
  adjoints[kRegisters] = register_adjoints;
  for (std::size_t s = 0; s < segments; ++s) {
    values[s + 1] = caller_segments[s];
    adjoints[s + 1] = segment_adjoints[s];
  }
  for (std::size_t i = ops.size(); i-- > 0;) {
    const ExpressionOp& op = ops[i];
    T g;
    if (op.target == kRegisters) {
      g = register_adjoints[op.dst];
      register_adjoints[op.dst] = T(0);
    } else {
      g = output_adjoints[op.dst];
    }
    if (is_exact_zero(g)) continue;
    // Operands an op does not read resolve to tape[0] and are never used.
    const T& a = values[op.a_source][taped[i].a];
    const T& b = values[op.b_source][taped[i].b];
    const T& y = tape[i];
    const auto to_a = [&](const T& adjoint) {
      if (T* const to = adjoints[op.a_source]) to[op.a] += adjoint;
    };
    const auto to_b = [&](const T& adjoint) {
      if (T* const to = adjoints[op.b_source]) to[op.b] += adjoint;
    };
    switch (op.code) {
      case ExpressionCode::add: to_a(g); to_b(g); break;
      case ExpressionCode::subtract: to_a(g); to_b(-g); break;
      case ExpressionCode::multiply: to_a(g * b); to_b(g * a); break;
      case ExpressionCode::divide: {
        const T over_b = g / b;
        to_a(over_b);
        to_b(-(over_b * y));
        break;
      }
      case ExpressionCode::power:
        if (op.b_source == kRegisters && ops[taped[i].b].code == ExpressionCode::copy_constant) {
          to_a(g * power_constant_slope(a, value_of(b)));
        } else {
          to_a(g * (b * pow(a, b - T(1))));
          to_b(g * (y * log(a)));
        }
        break;
      case ExpressionCode::min: if (b < a) to_b(g); else to_a(g); break;
      case ExpressionCode::max: if (a < b) to_b(g); else to_a(g); break;
      case ExpressionCode::less:
      case ExpressionCode::less_equal:
      case ExpressionCode::equal:
      case ExpressionCode::not_equal:
      case ExpressionCode::logical_and:
      case ExpressionCode::logical_or: break;
      case ExpressionCode::select:
        if (value_of(values[op.c_source][taped[i].c]) != 0) to_a(g);
        else to_b(g);
        break;
      case ExpressionCode::sum_range:
        if (T* const to = adjoints[op.a_source])
          for (std::size_t k = 0; k < std::size_t(op.value); ++k) to[op.a + k] += g;
        break;
      case ExpressionCode::atan2: {  // a is y, b is x
        const T inverse = T(1) / (b * b + a * a);
        to_a(g * (b * inverse));
        to_b(-(g * (a * inverse)));
        break;
      }
      case ExpressionCode::add_constant:
      case ExpressionCode::subtract_constant:
      case ExpressionCode::copy: to_a(g); break;
      case ExpressionCode::multiply_constant: to_a(times_constant(g, op.value)); break;
      case ExpressionCode::divide_constant: to_a(divided_by_constant(g, op.value)); break;
      case ExpressionCode::power_constant: to_a(g * power_constant_slope(a, op.value)); break;
      case ExpressionCode::constant_subtract:
      case ExpressionCode::negate: to_a(-g); break;
      case ExpressionCode::constant_divide: to_a(-(g * y) / a); break;
      case ExpressionCode::exp: to_a(g * y); break;
      case ExpressionCode::log: to_a(g / a); break;
      case ExpressionCode::log10: to_a(g / times_constant(a, std::log(10.0))); break;
      case ExpressionCode::sqrt: to_a(g * (T(0.5) / y)); break;
      case ExpressionCode::sin: to_a(g * cos(a)); break;
      case ExpressionCode::cos: to_a(-(g * sin(a))); break;
      case ExpressionCode::tan: to_a(g * (T(1) + y * y)); break;
      case ExpressionCode::tanh: to_a(g * (T(1) - y * y)); break;
      case ExpressionCode::abs: to_a(a < T(0) ? -g : g); break;  // Dual's abs: +1 at 0
      case ExpressionCode::atan: to_a(g / (T(1) + a * a)); break;
      case ExpressionCode::asin: to_a(g / sqrt(T(1) - a * a)); break;
      case ExpressionCode::acos: to_a(-(g / sqrt(T(1) - a * a))); break;
      case ExpressionCode::sinh: to_a(g * cosh(a)); break;
      case ExpressionCode::cosh: to_a(g * sinh(a)); break;
      case ExpressionCode::erf:  // 2/sqrt(pi) exp(-a^2)
        to_a(g * times_constant(exp(-(a * a)), 1.1283791670955126));
        break;
      case ExpressionCode::copy_constant: break;
    }
  }
}

// The scalars the engine runs programs on, compiled once in expression_program.cpp
// rather than in every translation unit that evaluates a model. `extern` (declared) or
// nothing (instantiated).
#define BACKSWEEP_PROGRAM_RUN(extern_or_not, ...)                                                     \
  extern_or_not template void ExpressionProgram::execute<false, __VA_ARGS__>(const __VA_ARGS__* const*, \
                                                                             __VA_ARGS__*, __VA_ARGS__*) const;
#define BACKSWEEP_PROGRAM_SCALARS(extern_or_not)                                                          \
  BACKSWEEP_PROGRAM_RUN(extern_or_not, double)                                                            \
  BACKSWEEP_PROGRAM_RUN(extern_or_not, DependencyTracer)                                                  \
  BACKSWEEP_PROGRAM_RUN(extern_or_not, Dual<double, 1>)                                                   \
  BACKSWEEP_PROGRAM_RUN(extern_or_not, Dual<double, 2>)                                                   \
  BACKSWEEP_PROGRAM_RUN(extern_or_not, Dual<double, 3>)                                                   \
  BACKSWEEP_PROGRAM_RUN(extern_or_not, Dual<double, 4>)                                                   \
  BACKSWEEP_PROGRAM_RUN(extern_or_not, Dual<double, 5>)                                                   \
  BACKSWEEP_PROGRAM_RUN(extern_or_not, Dual<double, 6>)                                                   \
  BACKSWEEP_PROGRAM_RUN(extern_or_not, Dual<double, 7>)                                                   \
  BACKSWEEP_PROGRAM_RUN(extern_or_not, Dual<double, 8>)                                                   \
  extern_or_not template void ExpressionProgram::execute<true, double>(const double* const*, double*, double*) const; \
  extern_or_not template void ExpressionProgram::reverse<double>(const double* const*, const double*, const double*, \
                                                                 double* const*) const;
BACKSWEEP_PROGRAM_SCALARS(extern)

}  // namespace backsweep::detail
