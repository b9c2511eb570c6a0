#pragma once
// What a fit of parameter fields reports beside the scalar parameters (config_fit.hpp):
// each fitted field against its prior, and the VTK fields ParaView opens.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/command_io.hpp"
#include "fit/multistart.hpp"
#include "io/assembly/fit_config.hpp"
#include "io/outputs/fit_output.hpp"
#include "io/vtk/vtk_series.hpp"

namespace backsweep::apps {

// {"<field>": {"min", "max", "relative_change" (|fit - prior| / |prior|), "dataset"}}, and
// a line each for people ("  k  field in [min, max], change from the prior (fit.h5:...)").
nlohmann::json field_summaries_json(const FitReport& report, const std::vector<NamedField>& priors);
void print_field_summaries(const FitReport& report, const nlohmann::json& summaries, const CommandIO& io);

// The --json object: the objective and its misfit and regularisation, how the optimiser
// ended, the scalar parameters and the field summaries.
nlohmann::json field_fit_json(const FitReport& report, const StartResult& best, double misfit, double penalty,
                              const nlohmann::json& summaries);

// fit.pvd: each fitted field, its prior and the misfit's gradient by it (at t0); with
// adjoint gradients, the misfit's adjoint fields at the fit (adjoint.pvd, or
// adjoint_<experiment>.pvd with several experiments), forward in time.
void write_field_fit_vtk(const std::string& folder, const FitConfig& config, const FitReport& report,
                         const std::vector<NamedField>& priors, const std::vector<NamedField>& gradients,
                         std::vector<std::vector<FieldSnapshot>> adjoints);

}  // namespace backsweep::apps
