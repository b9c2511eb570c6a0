// backsweep._core.LoadedProblem: a PEtab problem read and built once (its tables, its
// model's kernels), whose objective (-llh - log priors) and gradient are then taken at any
// parameters on their scales, without the GIL: what an outside optimiser (SciPy, pyPESTO)
// calls in its loop.
#include "python/loaded_problem.hpp"

#include <cmath>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/petab_loaded.hpp"
#include "python/json_to_python.hpp"
#include "io/config/config_file.hpp"

namespace nb = nanobind;
using namespace backsweep;
using namespace backsweep::apps;

namespace backsweep::python {

namespace {

using Parameters = nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

class LoadedProblem {
 public:
  explicit LoadedProblem(const ConfigFile& file) : loaded_(load_petab(file)) {
    loaded_.config.simulate.integrate.context = &context_;
    scaled_ = scaled_parameters(loaded_.config);
    engine_ = make_fit_engine(loaded_.config, scaled_);
  }

  std::vector<std::string> ids() const {
    std::vector<std::string> names;
    for (std::size_t k : scaled_.config_index) names.push_back(loaded_.config.parameters[k].name);
    return names;
  }
  std::vector<std::string> scales() const {
    std::vector<std::string> names;
    for (std::size_t k : scaled_.config_index) names.push_back(std::string(to_string(loaded_.config.parameters[k].scale)));
    return names;
  }
  const Scaled& scaled() const { return scaled_; }

  // (objective, its gradient or None, llh, why it failed or ""): NaN where a solve fails.
  nb::tuple evaluate(Parameters x, bool with_gradient) {
    if (x.shape(0) != scaled_.nominal.size())
      throw nb::value_error(("x has " + std::to_string(x.shape(0)) + " entries; the problem estimates " +
                             std::to_string(scaled_.nominal.size()))
                                .c_str());
    const std::vector<double> theta(x.data(), x.data() + x.shape(0));
    double nllh = NAN, objective = NAN;
    std::vector<double> gradient;
    std::string failure;
    {
      nb::gil_scoped_release unlocked;
      const std::lock_guard<std::mutex> one_at_a_time(mutex_);
      if (with_gradient) {
        nllh = engine_->evaluate(theta, gradient, failure);
      } else if (std::vector<double> rows; engine_->predict_rows(theta, rows, failure)) {
        nllh = 0.0;
        for (std::size_t k = 0; k < rows.size(); k += 3) nllh += rows[k + 1];
      }
      if (std::isfinite(nllh)) {
        const PriorTerms priors = prior_terms(loaded_, scaled_, theta);
        objective = nllh - priors.objective;
        for (std::size_t i = 0; i < gradient.size(); ++i) gradient[i] -= priors.gradient[i];
      } else if (with_gradient) {
        gradient.assign(theta.size(), NAN);
      }
    }
    nb::object slope = nb::none();
    if (with_gradient) {
      auto* values = new std::vector<double>(std::move(gradient));
      nb::capsule owner(values, [](void* p) noexcept { delete static_cast<std::vector<double>*>(p); });
      slope = nb::cast(nb::ndarray<nb::numpy, double, nb::ndim<1>>(values->data(), {values->size()}, owner));
    }
    return nb::make_tuple(objective, slope, -nllh, failure);
  }

 private:
  Context context_;  // before loaded_: the fit's solves draw on it
  LoadedPetab loaded_;
  Scaled scaled_;
  std::unique_ptr<FitEngine> engine_;
  std::mutex mutex_;  // the engine keeps state between evaluations
};

// (exit code, the problem or None, the error or None), as _core.run reports.
nb::tuple load(const std::string& path, const std::vector<std::string>& overrides) {
  CommandIO io;
  io.keep = true;
  try {
    const ConfigFile file = read_config_file(path, overrides);
    if (!file.petab) {
      report_error(io.error, path, ": not a PEtab problem (a .yaml file): load() takes those; run configs with "
                                   "simulate(), gradient() and fit()");
      return nb::make_tuple(kExitBadInput, nb::none(), to_python(error_json(io.error, kExitBadInput)["error"]));
    }
    return nb::make_tuple(kExitOk, nb::cast(new LoadedProblem(file), nb::rv_policy::take_ownership), nb::none());
  } catch (const ConfigError& error) {
    report_error(io.error, error);
    return nb::make_tuple(kExitBadInput, nb::none(), to_python(error_json(io.error, kExitBadInput)["error"]));
  } catch (const std::exception& error) {
    report_error(io.error, error.what());
    return nb::make_tuple(kExitRunFailed, nb::none(), to_python(error_json(io.error, kExitRunFailed)["error"]));
  }
}

}  // namespace

void bind_loaded_problem(nb::module_& module) {
  nb::class_<LoadedProblem>(module, "LoadedProblem")
      .def_prop_ro("ids", &LoadedProblem::ids)
      .def_prop_ro("scales", &LoadedProblem::scales)
      .def_prop_ro("nominal", [](const LoadedProblem& p) { return p.scaled().nominal; })
      .def_prop_ro("lower", [](const LoadedProblem& p) { return p.scaled().lower; })
      .def_prop_ro("upper", [](const LoadedProblem& p) { return p.scaled().upper; })
      .def("evaluate", &LoadedProblem::evaluate, nb::arg("x"), nb::arg("with_gradient"));
  module.def("load", &load, nb::arg("path"), nb::arg("overrides"));
}

}  // namespace backsweep::python
