#include "io/config/sbml_switches.hpp"

#include <algorithm>

#include "io/config/detail/petab_text.hpp"

LIBSBML_CPP_NAMESPACE_USE

namespace backsweep::detail {

namespace {

const char* relation_text(ASTNodeType_t type) {
  switch (type) {
    case AST_RELATIONAL_GT: return " > ";
    case AST_RELATIONAL_GEQ: return " >= ";
    case AST_RELATIONAL_LT: return " < ";
    default: return " <= ";
  }
}

}  // namespace

bool SbmlSwitches::varies(const std::string& text) const {
  bool found = false;
  rewritten(text, [&](const std::string& id) -> std::optional<std::string> {
    found = found || id == "t" || is_state_(id) ||
            std::any_of(switches_.begin(), switches_.end(), [&](const Switch& s) { return s.name == id; });
    return std::nullopt;
  });
  return found;
}

// x where one side is t, t - y or t + y and the rest reads neither t nor a state: the
// relation flips once, at t = x.
std::optional<std::string> SbmlSwitches::moment(const ::ASTNode& relation, const std::string& a, const std::string& b,
                                                const SbmlMathWriter::Write& write) const {
  for (unsigned side = 0; side < 2; ++side) {
    const std::string& other = side == 0 ? b : a;
    if (varies(other)) continue;
    const ::ASTNode& timed = *relation.getChild(side);
    if (timed.getType() == AST_NAME_TIME) return other;
    if (timed.getNumChildren() != 2) continue;
    const ::ASTNode& first = *timed.getChild(0);
    const ::ASTNode& second = *timed.getChild(1);
    const bool minus = timed.getType() == AST_MINUS, plus = timed.getType() == AST_PLUS;
    const ::ASTNode* offset = (minus || plus) && first.getType() == AST_NAME_TIME ? &second
                              : plus && second.getType() == AST_NAME_TIME        ? &first
                                                                                 : nullptr;
    if (!offset) continue;
    const std::string y = write(*offset);
    if (varies(y)) continue;
    return "(" + other + ")" + (minus ? " + (" : " - (") + y + ")";
  }
  return std::nullopt;
}

std::optional<std::string> SbmlSwitches::relation(const ::ASTNode& relation, const std::string& a, const std::string& b,
                                                  const SbmlMathWriter::Write& write, const SourcePosition& where) {
  if (!varies(a) && !varies(b)) return std::nullopt;
  const std::string text = "(" + a + relation_text(relation.getType()) + b + ")";
  if (const auto known = index_.find(text); known != index_.end()) return switches_[known->second].name;
  Switch s{new_name_("switch" + std::to_string(switches_.size() + 1) + "_"), text, moment(relation, a, b, write),
           "(" + a + ") - (" + b + ")", where};
  index_[text] = switches_.size();
  switches_.push_back(s);
  return s.name;
}

void SbmlSwitches::add_to(SbmlModel& model) const {
  std::map<std::string, std::string> initial;  // a state's initial value, by name
  for (std::size_t i = 0; i < model.state_names.size(); ++i) initial[model.state_names[i]] = model.initial[i].text;
  for (const Switch& s : switches_) {
    const std::string at_start = rewritten(s.relation, [&](const std::string& id) -> std::optional<std::string> {
      if (const auto it = initial.find(id); it != initial.end()) return "(" + it->second + ")";
      return std::nullopt;
    });
    initial[s.name] = at_start;
    model.switches.emplace_back(model.state_names.size(), Formula{s.relation, s.where, s.name});
    model.state_names.push_back(s.name);
    model.equations.push_back({"0", s.where, s.name});
    model.initial.push_back({at_start, s.where, s.name});
    EventSpec flip;
    flip.name = s.name;
    if (s.moment) flip.at = Formula{*s.moment, s.where, s.name};
    else flip.when = Formula{s.difference, s.where, s.name};
    flip.set.emplace_back(s.name, Formula{"1 - " + s.name, s.where, s.name});
    model.events.push_back(std::move(flip));
  }
}

}  // namespace backsweep::detail
