#pragma once
// A scalar that records which inputs a value depends on, for detect_sparsity(): pushed
// once through a model, it gives the nonzero pattern of df/d[y, p].
//
// A tracer carries its primal value, so comparisons and branches in the model follow the
// primal path exactly as they do for Dual: the pattern found is that of the branches
// taken at the evaluation point. Its dependency set is an id into a DependencyTape that
// holds every set made during the trace; the tracer itself is three trivially copyable
// words, so it also runs where the scalar must be trivially copyable (the expression
// programs of config-file models keep their registers in raw storage).
//
// Dependencies are structural: x * 0 still depends on x. So the pattern is a superset of
// the entries that happen to be zero at the evaluation point, as a pattern must be.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace backsweep::detail {

// The dependency sets of one trace: sorted column lists, each immutable once made. Set 0
// is the empty set (constants), so arithmetic among constants never touches the tape.
class DependencyTape {
 public:
  // A trace that would store more than `max_entries` column indices throws
  // std::length_error, so that a caller can give up on a dense trace early.
  explicit DependencyTape(std::size_t max_entries = SIZE_MAX) : start_{0, 0}, max_entries_(max_entries) {}

  // The set {column}: an input.
  std::uint32_t variable(std::uint32_t column) {
    entries_.push_back(column);
    return close_set();
  }

  // The id of a ∪ b. Reuses a or b when one contains the other (the common case in a
  // sum accumulated term by term), so only genuinely new sets take memory.
  std::uint32_t merge(std::uint32_t a, std::uint32_t b) {
    if (a == b || b == 0) return a;
    if (a == 0) return b;
    const std::span<const std::uint32_t> sa = set(a), sb = set(b);
    scratch_.clear();
    std::set_union(sa.begin(), sa.end(), sb.begin(), sb.end(), std::back_inserter(scratch_));
    if (scratch_.size() == sa.size()) return a;
    if (scratch_.size() == sb.size()) return b;
    entries_.insert(entries_.end(), scratch_.begin(), scratch_.end());
    return close_set();
  }

  std::span<const std::uint32_t> set(std::uint32_t id) const {
    return {entries_.data() + start_[id], entries_.data() + start_[id + 1]};
  }

  // The id the next set will take. Sets from here on may be let go by keep_only().
  std::uint32_t next_id() const { return static_cast<std::uint32_t>(start_.size() - 1); }

  // Lets go of every set made since next_id() was `mark` but those named in `ids`, which
  // are made again (and `ids` renamed): a trace point by point (a grid's) keeps each
  // point's results, not the intermediate sets that made them, so its tape stays small.
  void keep_only(std::uint32_t mark, std::span<std::uint32_t> ids) {
    kept_.clear();
    kept_sizes_.clear();
    for (const std::uint32_t id : ids)
      if (id >= mark) {
        const std::span<const std::uint32_t> s = set(id);
        kept_.insert(kept_.end(), s.begin(), s.end());
        kept_sizes_.push_back(s.size());
      }
    entries_.resize(start_[mark]);
    start_.resize(std::size_t{mark} + 1);
    std::size_t from = 0, k = 0;
    for (std::uint32_t& id : ids) {
      if (id < mark) continue;
      entries_.insert(entries_.end(), kept_.begin() + from, kept_.begin() + from + kept_sizes_[k]);
      from += kept_sizes_[k++];
      id = close_set();
    }
  }

 private:
  std::uint32_t close_set() {
    if (entries_.size() > max_entries_) throw std::length_error("dependency tape over its budget");
    // Ids are 32-bit: a trace making 4 billion sets would need tens of GB anyway.
    if (start_.size() > std::size_t{UINT32_MAX}) throw std::length_error("dependency tape full");
    start_.push_back(entries_.size());
    return static_cast<std::uint32_t>(start_.size() - 2);
  }

  std::vector<std::size_t> start_;  // set k is entries_[start_[k], start_[k + 1])
  std::vector<std::uint32_t> entries_;
  std::vector<std::uint32_t> scratch_, kept_;
  std::vector<std::size_t> kept_sizes_;
  std::size_t max_entries_;
};

// Every operation a model may apply to a Dual, with the same primal value and with the
// union of its operands' dependencies. The functions are hidden friends: found by
// argument-dependent lookup from generic model code (`using std::sin; sin(x)`), as
// Dual's are, and converting arithmetic operands (`x * 2.0`, `x < 0`) implicitly.
struct DependencyTracer {
  double v = 0.0;
  std::uint32_t set = 0;  // 0: depends on nothing
  DependencyTape* tape = nullptr;  // null for constants

  constexpr DependencyTracer() = default;
  template <class S>
    requires std::is_arithmetic_v<S>
  constexpr DependencyTracer(S value) : v(static_cast<double>(value)) {}
  DependencyTracer(double value, std::uint32_t set_id, DependencyTape* owner)
      : v(value), set(set_id), tape(owner) {}

  // Merges b's dependencies into this one's and returns *this.
  DependencyTracer& depend_on(const DependencyTracer& b) {
    if (!tape) tape = b.tape;
    if (set != b.set && b.set != 0) set = set == 0 ? b.set : tape->merge(set, b.set);
    return *this;
  }
  // f(a) for a function of one argument: same dependencies, new value.
  static DependencyTracer apply(const DependencyTracer& a, double value) {
    DependencyTracer r = a;
    r.v = value;
    return r;
  }
  // f(a, b): the union of both dependencies.
  static DependencyTracer apply(const DependencyTracer& a, const DependencyTracer& b,
                                double value) {
    DependencyTracer r = a;
    r.v = value;
    return r.depend_on(b);
  }

  DependencyTracer& operator+=(const DependencyTracer& b) {
    v += b.v;
    return depend_on(b);
  }
  DependencyTracer& operator-=(const DependencyTracer& b) {
    v -= b.v;
    return depend_on(b);
  }
  DependencyTracer& operator*=(const DependencyTracer& b) {
    v *= b.v;
    return depend_on(b);
  }
  DependencyTracer& operator/=(const DependencyTracer& b) {
    v /= b.v;
    return depend_on(b);
  }

  friend DependencyTracer operator+(DependencyTracer a, const DependencyTracer& b) { return a += b; }
  friend DependencyTracer operator-(DependencyTracer a, const DependencyTracer& b) { return a -= b; }
  friend DependencyTracer operator*(DependencyTracer a, const DependencyTracer& b) { return a *= b; }
  friend DependencyTracer operator/(DependencyTracer a, const DependencyTracer& b) { return a /= b; }
  friend DependencyTracer operator+(const DependencyTracer& a) { return a; }
  friend DependencyTracer operator-(const DependencyTracer& a) { return apply(a, -a.v); }

  // Comparisons look at values only, as Dual's do.
  friend bool operator<(const DependencyTracer& a, const DependencyTracer& b) { return a.v < b.v; }
  friend bool operator<=(const DependencyTracer& a, const DependencyTracer& b) { return a.v <= b.v; }
  friend bool operator>(const DependencyTracer& a, const DependencyTracer& b) { return a.v > b.v; }
  friend bool operator>=(const DependencyTracer& a, const DependencyTracer& b) { return a.v >= b.v; }
  friend bool operator==(const DependencyTracer& a, const DependencyTracer& b) { return a.v == b.v; }
  friend bool operator!=(const DependencyTracer& a, const DependencyTracer& b) { return a.v != b.v; }

  friend DependencyTracer sqrt(const DependencyTracer& a) { return apply(a, std::sqrt(a.v)); }
  friend DependencyTracer exp(const DependencyTracer& a) { return apply(a, std::exp(a.v)); }
  friend DependencyTracer log(const DependencyTracer& a) { return apply(a, std::log(a.v)); }
  friend DependencyTracer log10(const DependencyTracer& a) { return apply(a, std::log10(a.v)); }
  friend DependencyTracer sin(const DependencyTracer& a) { return apply(a, std::sin(a.v)); }
  friend DependencyTracer cos(const DependencyTracer& a) { return apply(a, std::cos(a.v)); }
  friend DependencyTracer tan(const DependencyTracer& a) { return apply(a, std::tan(a.v)); }
  friend DependencyTracer tanh(const DependencyTracer& a) { return apply(a, std::tanh(a.v)); }
  friend DependencyTracer sinh(const DependencyTracer& a) { return apply(a, std::sinh(a.v)); }
  friend DependencyTracer cosh(const DependencyTracer& a) { return apply(a, std::cosh(a.v)); }
  friend DependencyTracer asin(const DependencyTracer& a) { return apply(a, std::asin(a.v)); }
  friend DependencyTracer acos(const DependencyTracer& a) { return apply(a, std::acos(a.v)); }
  friend DependencyTracer atan(const DependencyTracer& a) { return apply(a, std::atan(a.v)); }
  friend DependencyTracer erf(const DependencyTracer& a) { return apply(a, std::erf(a.v)); }
  friend DependencyTracer abs(const DependencyTracer& a) { return apply(a, std::abs(a.v)); }
  // Dual's pow drops the exponent's log term where the exponent has no tangent; a
  // tracer keeps both operands' dependencies, which is the same pattern.
  friend DependencyTracer pow(const DependencyTracer& a, const DependencyTracer& b) {
    return apply(a, b, std::pow(a.v, b.v));
  }
  friend DependencyTracer atan2(const DependencyTracer& a, const DependencyTracer& b) {
    return apply(a, b, std::atan2(a.v, b.v));
  }
  // min and max take the value Dual's would, but depend on both operands: the operand
  // chosen at the detection point need not be the one chosen later in a solve.
  friend DependencyTracer min(const DependencyTracer& a, const DependencyTracer& b) {
    return apply(a, b, b < a ? b.v : a.v);
  }
  friend DependencyTracer max(const DependencyTracer& a, const DependencyTracer& b) {
    return apply(a, b, a < b ? b.v : a.v);
  }
  friend bool isfinite(const DependencyTracer& a) { return std::isfinite(a.v); }
  friend double value_of(const DependencyTracer& a) { return a.v; }
  // Expression programs ask this before replacing x^y by repeated multiplication when y
  // is a small integer: for a tracer, "no tangent" means "depends on nothing", so an
  // exponent that is a parameter keeps its column in the pattern.
  friend bool has_zero_tangent(const DependencyTracer& a) { return a.set == 0; }
};

}  // namespace backsweep::detail
