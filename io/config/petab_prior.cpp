#include "io/config/petab_prior.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "io/config/config_error.hpp"
#include "io/config/detail/petab_text.hpp"

namespace backsweep {

std::optional<ParameterPrior> petab_prior(const PetabParameter& p, int format) {
  const char* column = format == 2 ? "priorDistribution" : "objectivePriorType";
  const char* values = format == 2 ? "priorParameters" : "objectivePriorParameters";
  ParameterPrior prior;
  if (format == 2) {
    prior.lower = p.lower;
    prior.upper = p.upper;
  }
  if (p.prior.empty()) {
    if (format == 1 || !std::isfinite(p.lower) || !std::isfinite(p.upper)) return std::nullopt;
    prior.parameters = {p.lower, p.upper};
    prior.implicit = true;
    return prior;
  }
  const auto name = prior_name(p.prior);
  if (!name) throw ConfigError(p.at, column, "'" + p.prior + "' is not a prior distribution PEtab names");
  prior.kind = name->kind;
  prior.on_scale = name->on_scale;
  for (std::size_t at = 0, end; at <= p.prior_parameters.size(); at = end + 1) {
    end = std::min(p.prior_parameters.find(';', at), p.prior_parameters.size());
    double number = 0.0;
    if (!detail::is_number(p.prior_parameters.substr(at, end - at), number))
      throw ConfigError(p.at, values, "'" + p.prior_parameters + "' must be numbers separated by ';'");
    prior.parameters.push_back(number);
  }
  if (prior.parameters.size() != name->parameters)
    throw ConfigError(p.at, values, "the " + p.prior + " prior takes " + std::to_string(name->parameters) +
                                        " parameters, not " + std::to_string(prior.parameters.size()));
  return prior;
}

}  // namespace backsweep
