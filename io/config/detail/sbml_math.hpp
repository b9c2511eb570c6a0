#pragma once
// SBML's math (libSBML's ASTNode trees of MathML) written as backsweep expression text
// (models/expression.hpp's syntax): operators, the MathML functions, piecewise as nested
// if(), relations and logic as 1/0, the model's function definitions expanded in place.
// What each SBML id stands for is the caller's (a state's name, a parameter's, an
// assignment rule's expression in parentheses).
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include <sbml/SBMLTypes.h>

namespace backsweep::detail {

// Math the syntax has no counterpart for (a delay, floor, a csymbol): its message says what.
class SbmlMathError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class SbmlMathWriter {
 public:
  // The text standing for an SBML id; throws SbmlMathError for one it does not know.
  using Symbol = std::function<std::string(const std::string& id)>;
  // How a relation `a op b` (<, <=, >, >=; its operands written as `a` and `b`) is written
  // in place of 1/0 (a switch the caller keeps), or nothing; `write` writes a node of the
  // relation as its operands were written.
  using Write = std::function<std::string(const ::ASTNode&)>;
  using Relation = std::function<std::optional<std::string>(const ::ASTNode& relation, const std::string& a,
                                                            const std::string& b, const Write& write)>;
  SbmlMathWriter(const ::Model& model, Symbol symbol, Relation relation = {})
      : model_(model), symbol_(std::move(symbol)), relation_(std::move(relation)) {}

  // `local`: names bound here first (a kinetic law's local parameters, as numbers).
  std::string write(const ::ASTNode& node,
                    const std::map<std::string, std::string>& local = {}) const;

 private:
  const ::Model& model_;
  Symbol symbol_;
  Relation relation_;
};

// A number as expression text that reads back the same double ("(-2.5)", "1e-300").
std::string number_text(double value);

}  // namespace backsweep::detail
