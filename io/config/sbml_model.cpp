#include "io/config/sbml_model.hpp"

#include <map>
#include <memory>
#include <optional>
#include <set>

#include "io/config/detail/sbml_math.hpp"
#include "io/config/sbml_switches.hpp"
#include "models/expression.hpp"

LIBSBML_CPP_NAMESPACE_USE

namespace backsweep {

namespace {

using detail::number_text;
using detail::SbmlMathError;

// What an SBML symbol is in the equations: a state (it changes), a parameter (constant),
// or derived (an assignment rule, or a constant set by an initial assignment: written
// into the formulas that read it).
enum class Role { state, parameter, derived };

struct Symbol {
  Role role = Role::parameter;
  std::string name;  // in expressions
  const ::SBase* element = nullptr;
  const ::ASTNode* rule = nullptr;     // derived: its formula; a state: its rate rule, if any
  const ::ASTNode* initial = nullptr;  // an initial assignment
};

class SbmlReader {
 public:
  SbmlReader(std::string file, const ::Model& model)
      : file_(std::move(file)),
        model_(model),
        switches_([this](const std::string& name) { return state_names_.count(name) > 0; },
                  [this](const std::string& base) { return name_for(base); }) {}

  SbmlModel read() {
    refuse_what_is_not_taken();
    classify();
    SbmlModel out;
    for (const std::string& id : order_) {
      const Symbol& s = symbols_.at(id);
      if (s.role == Role::parameter) {
        out.parameter_names.push_back(s.name);
        out.parameters.push_back(constant_value(id));
      } else if (s.role == Role::state) {
        out.state_names.push_back(s.name);
        out.equations.push_back(formula(s.element, id, guarded(s.element, id, [&] { return right_hand_side(id); })));
        out.initial.push_back(formula(s.element, id, guarded(s.element, id, [&] { return initial_text(id); })));
      }
    }
    for (unsigned i = 0; i < model_.getNumEvents(); ++i) out.events.push_back(event(*model_.getEvent(i), i));
    for (const std::string& id : order_) {
      try {
        out.symbols[id] = dynamic(id);
      } catch (const SbmlMathError&) {  // absent: refused where an equation reads it
      }
    }
    switches_.add_to(out);
    return out;
  }

 private:
  SourcePosition where(const ::SBase* element) const {
    return element ? SourcePosition{file_, element->getLine(), element->getColumn()} : SourcePosition{file_};
  }
  [[noreturn]] void refuse(const ::SBase* element, const std::string& id, const std::string& problem) const {
    throw ConfigError(where(element), id, problem);
  }
  template <class F>
  std::string guarded(const ::SBase* element, const std::string& id, F&& write) const {
    writing_ = element;
    try {
      return write();
    } catch (const SbmlMathError& e) {
      refuse(element, id, e.what());
    }
  }
  Formula formula(const ::SBase* element, const std::string& id, std::string text) const {
    return {std::move(text), where(element), id};
  }

  void refuse_what_is_not_taken() const {
    for (unsigned i = 0; i < model_.getNumRules(); ++i)
      if (model_.getRule(i)->isAlgebraic())
        refuse(model_.getRule(i), "algebraicRule", "algebraic rules are not taken (differential-algebraic equations)");
    for (unsigned i = 0; i < model_.getNumReactions(); ++i) {
      const ::Reaction& r = *model_.getReaction(i);
      if (r.isSetFast() && r.getFast()) refuse(&r, r.getId(), "is a fast reaction: not taken");
      if (!r.isSetKineticLaw() || !r.getKineticLaw()->isSetMath()) refuse(&r, r.getId(), "has no kinetic law");
    }
    for (unsigned i = 0; i < model_.getNumEvents(); ++i) {
      const ::Event& e = *model_.getEvent(i);
      if (e.isSetDelay()) refuse(&e, e.getId(), "is an event with a delay: not taken");
      if (e.isSetPriority()) refuse(&e, e.getId(), "is an event with a priority: not taken");
    }
    if (model_.getNumConstraints() > 0)
      refuse(model_.getConstraint(0), "constraint", "constraints are not taken (nothing would check them)");
  }

  // The name `id` takes in expressions: itself, unless reserved or another symbol's.
  std::string name_for(const std::string& id) const {
    std::string name = id;
    while (name == "t" || is_reserved_expression_name(name) || taken_.count(name)) name += "_";
    taken_.insert(name);
    return name;
  }

  void add(const std::string& id, const ::SBase* element, bool constant) {
    Symbol s;
    s.element = element;
    s.name = name_for(id);
    const ::Rule* rule = model_.getRule(id);
    if (const ::InitialAssignment* ia = model_.getInitialAssignment(id)) s.initial = ia->getMath();
    if (rule && rule->isAssignment()) {
      s.role = Role::derived;
      s.rule = rule->getMath();
    } else if (rule && rule->isRate()) {
      s.role = Role::state;
      s.rule = rule->getMath();
    } else if (!constant) {
      s.role = Role::state;
    } else if (s.initial) {
      s.role = Role::derived;  // a constant: its initial assignment's value throughout
      s.rule = s.initial;
    }
    if (s.role == Role::state) state_names_.insert(s.name);
    symbols_[id] = s;
    order_.push_back(id);
  }

  void classify() {
    std::set<std::string> assigned, reacting;  // by events; by reactions
    for (unsigned i = 0; i < model_.getNumEvents(); ++i)
      for (unsigned k = 0; k < model_.getEvent(i)->getNumEventAssignments(); ++k)
        assigned.insert(model_.getEvent(i)->getEventAssignment(k)->getVariable());
    for (unsigned i = 0; i < model_.getNumReactions(); ++i) {
      const ::Reaction& r = *model_.getReaction(i);
      for (const ::ListOfSpeciesReferences* list : {r.getListOfReactants(), r.getListOfProducts()})
        for (unsigned k = 0; k < list->size(); ++k)
          reacting.insert(static_cast<const ::SpeciesReference*>(list->get(k))->getSpecies());
    }
    for (unsigned i = 0; i < model_.getNumSpecies(); ++i) {
      const ::Species& s = *model_.getSpecies(i);
      const bool changes = !s.getConstant() && (assigned.count(s.getId()) || model_.getRule(s.getId()) ||
                                                (!s.getBoundaryCondition() && reacting.count(s.getId())));
      add(s.getId(), &s, !changes);
    }
    for (unsigned i = 0; i < model_.getNumCompartments(); ++i) {
      const ::Compartment& c = *model_.getCompartment(i);
      add(c.getId(), &c, !model_.getRule(c.getId()) && !assigned.count(c.getId()));
    }
    for (unsigned i = 0; i < model_.getNumParameters(); ++i) {
      const ::Parameter& p = *model_.getParameter(i);
      add(p.getId(), &p, !assigned.count(p.getId()) && !model_.getRule(p.getId()));
    }
    for (unsigned i = 0; i < model_.getNumReactions(); ++i) {
      const ::Reaction& r = *model_.getReaction(i);
      for (const ::ListOfSpeciesReferences* list : {r.getListOfReactants(), r.getListOfProducts()})
        for (unsigned k = 0; k < list->size(); ++k) {
          const auto* ref = static_cast<const ::SpeciesReference*>(list->get(k));
          if (ref->isSetStoichiometryMath() ||
              (ref->isSetId() && (model_.getRule(ref->getId()) || model_.getInitialAssignment(ref->getId()))))
            refuse(ref, ref->isSetId() ? ref->getId() : ref->getSpecies(), "variable stoichiometry is not taken");
          if (!symbols_.count(ref->getSpecies()))
            refuse(ref, ref->getSpecies(), "is not a species of the model");
        }
    }
  }

  const Symbol& symbol(const std::string& id) const {
    const auto it = symbols_.find(id);
    if (it == symbols_.end()) {
      if (model_.getReaction(id)) throw SbmlMathError("a reaction's id ('" + id + "') in math is not taken");
      throw SbmlMathError("'" + id + "' is not a species, compartment or parameter of the model");
    }
    return it->second;
  }

  // What `id` reads as in the right-hand sides: its name, or a derived formula.
  std::string dynamic(const std::string& id) const {
    const Symbol& s = symbol(id);
    if (s.role != Role::derived) return s.name;
    return "(" + written(id, [this](const std::string& i) { return dynamic(i); }, s.rule, true) + ")";
  }

  // What `id` reads as at the start, in an expression of the parameters: a state's
  // initial value, a derived formula there.
  std::string initial_symbol(const std::string& id) const {
    const Symbol& s = symbol(id);
    if (s.role == Role::parameter) return s.name;
    if (s.role == Role::derived)
      return "(" + written(id, [this](const std::string& i) { return initial_symbol(i); }, s.rule) + ")";
    return "(" + initial_text(id) + ")";
  }

  // `math` written with `lookup`, refusing a cycle through `id`; `switched`: in the
  // right-hand sides, where relations of time or the state are switches.
  std::string written(const std::string& id, const detail::SbmlMathWriter::Symbol& lookup, const ::ASTNode* math,
                      bool switched = false) const {
    if (!visiting_.insert(id).second) throw SbmlMathError("rules and initial assignments form a cycle through '" + id + "'");
    try {
      std::string text = (switched ? dynamic_writer(lookup) : detail::SbmlMathWriter(model_, lookup)).write(*math);
      visiting_.erase(id);
      return text;
    } catch (...) {
      visiting_.erase(id);
      throw;
    }
  }

  // A writer of the right-hand sides' math: relations of time or the state as switches.
  detail::SbmlMathWriter dynamic_writer(const detail::SbmlMathWriter::Symbol& lookup) const {
    return detail::SbmlMathWriter(model_, lookup, [this](const ::ASTNode& relation, const std::string& a, const std::string& b,
                                                         const detail::SbmlMathWriter::Write& write) {
      return switches_.relation(relation, a, b, write, where(writing_));
    });
  }

  std::string initial_text(const std::string& id) const {
    const Symbol& s = symbol(id);
    const auto lookup = [this](const std::string& i) { return initial_symbol(i); };
    if (s.initial) return written(id, lookup, s.initial);
    if (const ::Species* sp = model_.getSpecies(id)) {
      const std::string size = initial_symbol(sp->getCompartment());
      if (sp->isSetInitialConcentration())
        return sp->getHasOnlySubstanceUnits() ? number_text(sp->getInitialConcentration()) + "*" + size
                                              : number_text(sp->getInitialConcentration());
      if (sp->isSetInitialAmount())
        return sp->getHasOnlySubstanceUnits() ? number_text(sp->getInitialAmount())
                                              : number_text(sp->getInitialAmount()) + "/" + size;
      refuse(sp, id, "has no initial value (initialAmount, initialConcentration or an initial assignment)");
    }
    if (const ::Compartment* c = model_.getCompartment(id)) {
      if (c->isSetSize()) return number_text(c->getSize());
      refuse(c, id, "has no size (size or an initial assignment)");
    }
    const ::Parameter* p = model_.getParameter(id);
    if (p && p->isSetValue()) return number_text(p->getValue());
    refuse(s.element, id, "has no value (value or an initial assignment)");
  }

  double constant_value(const std::string& id) const {
    const Symbol& s = symbol(id);
    const std::string text = guarded(s.element, id, [&] { return initial_text(id); });
    try {
      return Expression::parse(text, std::vector<std::string>{}).evaluate(static_cast<const double*>(nullptr));
    } catch (const std::exception& e) {
      refuse(s.element, id, "a constant's value must be a number here (" + text + ": " + e.what() + ")");
    }
  }

  std::string kinetic_law(const ::Reaction& r) const {
    const ::KineticLaw& law = *r.getKineticLaw();
    std::map<std::string, std::string> local;  // local parameters are numbers
    for (unsigned i = 0; i < law.getNumParameters(); ++i)
      local[law.getParameter(i)->getId()] = number_text(law.getParameter(i)->getValue());
    for (unsigned i = 0; i < law.getNumLocalParameters(); ++i)
      local[law.getLocalParameter(i)->getId()] = number_text(law.getLocalParameter(i)->getValue());
    return guarded(&r, r.getId(), [&] {
      return "(" + dynamic_writer([this](const std::string& i) { return dynamic(i); }).write(*law.getMath(), local) + ")";
    });
  }

  std::string right_hand_side(const std::string& id) const {
    const Symbol& s = symbol(id);
    const auto lookup = [this](const std::string& i) { return dynamic(i); };
    if (s.rule) return written(id, lookup, s.rule, true);  // a rate rule
    const ::Species* species = model_.getSpecies(id);
    if (!species || species->getBoundaryCondition()) return "0";
    std::string sum;  // Σ stoichiometry × rate: the amount's change
    for (unsigned i = 0; i < model_.getNumReactions(); ++i) {
      const ::Reaction& r = *model_.getReaction(i);
      for (int side : {-1, 1}) {
        const ::ListOfSpeciesReferences* list = side < 0 ? r.getListOfReactants() : r.getListOfProducts();
        for (unsigned k = 0; k < list->size(); ++k) {
          const auto* ref = static_cast<const ::SpeciesReference*>(list->get(k));
          if (ref->getSpecies() != id) continue;
          const double nu = ref->isSetStoichiometry() ? ref->getStoichiometry() : 1.0;
          sum += (side < 0 ? " - " : " + ") + (nu == 1.0 ? "" : number_text(nu) + "*") + kinetic_law(r);
        }
      }
    }
    if (sum.empty()) return "0";
    if (species->getHasOnlySubstanceUnits()) return "(" + sum + ")";
    const std::string& compartment = species->getCompartment();
    const std::string size = dynamic(compartment);
    const Symbol& c = symbol(compartment);
    if (c.role == Role::derived)
      refuse(species, id, "is a concentration in a compartment an assignment rule sizes: not taken");
    std::string rate = "(" + sum + ")/" + size;
    if (c.role == Role::state)  // d[S]/dt = (Σ ν v)/V − [S] (dV/dt)/V
      rate += " - " + s.name + "*(" + right_hand_side(compartment) + ")/" + size;
    return rate;
  }

  EventSpec event(const ::Event& e, unsigned index) const {
    EventSpec spec;
    spec.name = e.isSetId() ? e.getId() : "event_" + std::to_string(index + 1);
    const ::ASTNode* trigger = e.getTrigger() ? e.getTrigger()->getMath() : nullptr;
    if (!trigger) refuse(&e, spec.name, "has no trigger");
    const auto type = trigger->getType();
    const bool up = type == AST_RELATIONAL_GT || type == AST_RELATIONAL_GEQ;
    const bool down = type == AST_RELATIONAL_LT || type == AST_RELATIONAL_LEQ;
    if ((!up && !down) || trigger->getNumChildren() != 2)
      refuse(e.getTrigger(), spec.name, "an event's trigger must compare two values (a > b, a <= b, ...): others are not taken");
    const auto lookup = [this](const std::string& i) { return dynamic(i); };
    const detail::SbmlMathWriter writer(model_, lookup);
    const ::ASTNode& a = *trigger->getChild(0);
    const ::ASTNode& b = *trigger->getChild(1);
    const auto text = [&](const ::ASTNode& n) { return guarded(e.getTrigger(), spec.name, [&] { return writer.write(n); }); };
    const auto of_parameters = [&](const ::ASTNode& n) -> std::optional<std::string> {  // no state, no time
      if (has_time(n)) return std::nullopt;
      try {
        return written(spec.name, [this](const std::string& i) { return parameter_only(i); }, &n);
      } catch (const SbmlMathError&) {
        return std::nullopt;
      }
    };
    // time >= x (or x <= time), x free of the states: the event's time.
    const ::ASTNode* moment = a.getType() == AST_NAME_TIME && up ? &b : b.getType() == AST_NAME_TIME && down ? &a : nullptr;
    const std::optional<std::string> at = moment ? of_parameters(*moment) : std::nullopt;
    if (at) {
      spec.at = formula(e.getTrigger(), spec.name, *at);
    } else {
      spec.when = formula(e.getTrigger(), spec.name, "(" + text(a) + ") - (" + text(b) + ")");
      spec.direction = up ? 1 : -1;
    }
    for (unsigned k = 0; k < e.getNumEventAssignments(); ++k) {
      const ::EventAssignment& set = *e.getEventAssignment(k);
      const auto it = symbols_.find(set.getVariable());
      if (it == symbols_.end() || it->second.role != Role::state)
        refuse(&set, set.getVariable(), "an event assigns only species, compartments or parameters that change");
      spec.set.emplace_back(it->second.name,
                            formula(&set, set.getVariable(), guarded(&set, set.getVariable(), [&] { return writer.write(*set.getMath()); })));
      if (!model_.getCompartment(set.getVariable())) continue;
      // Resized, it keeps the amounts of the concentrations in it that the event does not set.
      const std::string resized = "*" + it->second.name + "/(" + spec.set.back().second.text + ")";
      for (unsigned i = 0; i < model_.getNumSpecies(); ++i)
        if (const ::Species& c = *model_.getSpecies(i); c.getCompartment() == set.getVariable() &&
            !c.getHasOnlySubstanceUnits() && symbol(c.getId()).role == Role::state && !e.getEventAssignment(c.getId()))
          spec.set.emplace_back(symbol(c.getId()).name, formula(&set, c.getId(), symbol(c.getId()).name + resized));
    }
    return spec;
  }

  // Parameters and constants only (a time trigger's moment).
  std::string parameter_only(const std::string& id) const {
    const Symbol& s = symbol(id);
    if (s.role == Role::state) throw SbmlMathError("reads a state");
    if (s.role == Role::parameter) return s.name;
    return "(" + written(id, [this](const std::string& i) { return parameter_only(i); }, s.rule) + ")";
  }
  static bool has_time(const ::ASTNode& n) {
    if (n.getType() == AST_NAME_TIME) return true;
    for (unsigned i = 0; i < n.getNumChildren(); ++i)
      if (has_time(*n.getChild(i))) return true;
    return false;
  }

  std::string file_;
  const ::Model& model_;
  std::map<std::string, Symbol> symbols_;
  std::vector<std::string> order_;  // species, compartments, parameters, in the file's order
  mutable std::set<std::string> taken_;
  mutable std::set<std::string> visiting_;
  std::set<std::string> state_names_;  // the states' names in expressions
  mutable detail::SbmlSwitches switches_;
  mutable const ::SBase* writing_ = nullptr;  // the element whose math is being written
};

}  // namespace

SbmlModel read_sbml_model(const std::string& path) {
  std::unique_ptr<::SBMLDocument> document(readSBMLFromFile(path.c_str()));
  for (unsigned i = 0; i < document->getNumErrors(); ++i) {
    const ::SBMLError& error = *document->getError(i);
    if (error.getSeverity() < LIBSBML_SEV_ERROR) continue;
    std::string message = error.getMessage();
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
    throw ConfigError({path, error.getLine(), error.getColumn()}, "", "not a model libSBML can read: " + message);
  }
  const XMLNamespaces* namespaces = document->getNamespaces();  // those the file declares
  for (int i = 0; namespaces && i < namespaces->getNumNamespaces(); ++i) {
    const std::string uri = namespaces->getURI(i);
    const bool package = uri.find("sbml.org/sbml/level3/") != std::string::npos && !uri.ends_with("/core");
    if (package && document->getPackageRequired(uri))
      throw ConfigError({path}, namespaces->getPrefix(i), "the SBML package " + uri + " is required by the file and not taken");
  }
  const ::Model* model = document->getModel();
  if (!model) throw ConfigError({path}, "", "holds no SBML <model>");
  return SbmlReader(path, *model).read();
}

}  // namespace backsweep
