#pragma once
// The relations of an SBML model's math that change with time or the state (piecewise's
// conditions, mostly) as switches: a state holding the relation's 1 or 0, its right-hand
// side 0, flipped by an event where the relation's two sides cross. So no step straddles
// a jump of the right-hand side, and a gradient sees the jump's time move with the
// parameters and the state (solvers/floating_events.hpp): t < x(p) (or t - x(p) < y(p))
// flips at the moment x(p); any other relation where its two sides' difference crosses 0.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/config/detail/sbml_math.hpp"
#include "io/config/formula.hpp"
#include "io/config/sbml_model.hpp"

namespace backsweep::detail {

class SbmlSwitches {
 public:
  // `is_state(name)`: whether an expression name is one of the model's states;
  // `new_name(base)`: a name for a switch that no other symbol has.
  SbmlSwitches(std::function<bool(const std::string&)> is_state, std::function<std::string(const std::string&)> new_name)
      : is_state_(std::move(is_state)), new_name_(std::move(new_name)) {}

  // The switch's name standing for `relation` (its operands written as a and b) at
  // `where`, or nothing where neither side reads t or a state (it stays 1/0 in place).
  std::optional<std::string> relation(const ::ASTNode& relation, const std::string& a, const std::string& b,
                                      const SbmlMathWriter::Write& write, const SourcePosition& where);

  // The switches appended to the model's states (right-hand side 0; initial value the
  // relation at the start, of the parameters and t), with the events that flip them.
  void add_to(SbmlModel& model) const;

 private:
  struct Switch {
    std::string name, relation;
    std::optional<std::string> moment;  // x(p), where the relation flips at t = x(p)
    std::string difference;             // otherwise: (a) - (b), crossing 0 where it flips
    SourcePosition where;
  };
  bool varies(const std::string& text) const;
  std::optional<std::string> moment(const ::ASTNode& relation, const std::string& a, const std::string& b,
                                    const SbmlMathWriter::Write& write) const;

  std::function<bool(const std::string&)> is_state_;
  std::function<std::string(const std::string&)> new_name_;
  std::vector<Switch> switches_;
  std::map<std::string, std::size_t> index_;  // by relation
};

}  // namespace backsweep::detail
