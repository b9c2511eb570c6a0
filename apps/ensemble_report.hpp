#pragma once
// An ensemble's result record (EnsembleOutput, io/outputs/ensemble_output.hpp: a row a
// member) and the sinks `gradient` feeds it to besides gradient.h5: the lines people
// read and the --json object.
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "adjoint/gradient_problem.hpp"
#include "io/assembly/gradient_config.hpp"
#include "io/outputs/ensemble_output.hpp"

namespace backsweep::apps {

// The record's names and its member rows, sized; record_member() fills a member's row.
EnsembleOutput ensemble_record(const GradientConfig& config);

// Member b's row: only what gradient.h5 holds is kept of a member's result.
void record_member(const GradientConfig& config, const GradientResult<double>& r, std::size_t b, EnsembleOutput& out);

// "gradient ensemble (...): N members, F failed, R gradients/s", then the first members.
void print_ensemble(const EnsembleOutput& out, const std::string& method, std::size_t failed, double seconds,
                    std::ostream& stream);

// One line when a member's monitor verdict is not stable: the counts of each verdict, and
// the first such member.
void warn_verdicts(const EnsembleOutput& out, std::ostream& stream);

// {"ensemble": {members, failed, backend, source, seconds, gradients_per_second, verdicts},
//  "members": [{values, objective, gradient, status, steps, message?, verdict?}]}.
nlohmann::json ensemble_json(const EnsembleOutput& out, const std::vector<std::string>& messages, std::size_t failed,
                             double seconds);

}  // namespace backsweep::apps
