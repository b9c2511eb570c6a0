#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/command_io.hpp"
#include "io/assembly/fit_config.hpp"
#include "io/config/config_file.hpp"

namespace backsweep::apps {

// `backsweep fit CONFIG [--json]`: maximum-likelihood parameters from measurements,
// multi-start L-BFGS-B with exact gradients, standard errors from the Fisher
// information. Returns the process exit code.
int run_fit(const ConfigFile& file, CommandIO& io);

// What a fit of a PEtab problem adds to a config's (petab_fit_command.cpp): terms of the
// objective beyond the likelihood (its priors: their value, their gradient added), the
// information matrix as the objective's Hessian (central differences of its exact
// gradient: its noise formulas and priors have no Fisher information of data sigmas),
// files beside fit.h5, and what it says at the end (entries of --json, lines of text);
// each at the best point found (scaled space).
struct FitExtras {
  std::function<double(const std::vector<double>& theta, std::vector<double>& gradient)> penalty;
  bool hessian_information = false;
  std::function<void(const std::string& folder, const std::vector<double>& best)> write_files;
  std::function<void(nlohmann::json& out, const std::vector<double>& best)> conclude;
};

// The fit of a model's scalar parameters; the process exit code.
int fit_model(const FitConfig& config, CommandIO& io, const FitExtras& extras = {});

// `backsweep gradient` on a fit config: the negative log-likelihood and its gradient
// with respect to the estimated parameters, in scaled and linear space.
int run_fit_gradient(const ConfigFile& file, CommandIO& io);

}  // namespace backsweep::apps
