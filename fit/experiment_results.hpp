#pragma once
// A fit's experiments spread over the ranks of an mpirun (issue 32): each rank solves its
// share, every rank receives every result, and each then adds them up in experiment order,
// as a run alone does, so that the misfit and gradient are bitwise those of one process
// for any number of ranks.
#include <cstddef>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "adjoint/gradient_problem.hpp"
#include "adjoint/growth_monitor.hpp"

namespace backsweep {

// A solve of a fit's evaluation that failed: its experiment, and where a NaN appeared.
struct FitSolveFailure {
  std::size_t experiment;
  std::string message;
  std::optional<NonFinite> nonfinite;
};

// What one experiment's gradient left for the fold: its misfit and dJ/dp at each estimated
// parameter, or why it failed.
struct ExperimentResult {
  double value = 0.0;
  std::vector<double> dJ_dp;  // at the estimated parameters' indices, in their order
  std::optional<GrowthReport> monitor;  // verdict and figures, without the history
  std::optional<FitSolveFailure> failure;
  std::optional<OptionRefusal> refused;
  std::string invalid_options;
  // What the solve threw: its message (kOutOfMemory for std::bad_alloc), and on the rank
  // that solved it the exception itself.
  std::string thrown;
  std::exception_ptr thrown_here;
  static constexpr const char* kOutOfMemory = "out of memory";
  // Throws what the solve threw: the exception itself where it was thrown, else one with
  // its message (std::bad_alloc for memory), so that every rank throws alike.
  void rethrow() const;
};

// What solve() returns, or what it threw kept in the result (to be thrown again in
// experiment order, on every rank): nothing leaves a thread of experiment_loop.
template <class Solve>
ExperimentResult caught(Solve&& solve) noexcept {
  ExperimentResult result;
  try {
    result = solve();
  } catch (const std::bad_alloc&) {
    result.thrown_here = std::current_exception();
    result.thrown = ExperimentResult::kOutOfMemory;
  } catch (const std::exception& error) {
    result.thrown_here = std::current_exception();
    result.thrown = error.what();
  } catch (...) {  // RunInterrupted (Ctrl-C in the Python module)
    result.thrown_here = std::current_exception();
    result.thrown = "the run was stopped";
  }
  return result;
}

// The rank that solves the experiment that is `index`-th among those with measurements.
bool solves_here(std::size_t index);

// Every rank's results in place on every rank, as their ranks computed them: this rank
// filled results[j] for j in `here`. A rank that has stopped the run makes this throw
// ranks::RanksStopped.
void share_results(std::vector<ExperimentResult>& results, const std::vector<std::size_t>& here);

// Per-measurement rows (`width` values a row, row k at k * width) that each rank filled for
// its experiments (`solved[e]`, experiment e's rows in rows[e]) onto every rank, with the
// failure of the lowest experiment that failed on any rank (`failed`: that experiment, or
// rows.size() for none; `failure`: its message). Returns whether that failure was an
// exception (`threw`: this rank's was).
bool share_rows(std::vector<double>& values, std::size_t width, const std::vector<std::vector<std::size_t>>& rows,
                const std::vector<bool>& solved, std::size_t& failed, std::string& failure, bool threw);

// solve(e) for each experiment with measurements (rows[e] not empty), in order, until one
// fails (returns false, `failure` set). Spread over an mpirun's ranks (`spread`), each
// rank solves its share and every rank then has every experiment's rows of `values`
// (`width` values a measurement) and the first experiment's failure.
template <class Solve>
bool solve_each_experiment(const std::vector<std::vector<std::size_t>>& rows, bool spread, std::vector<double>& values,
                           std::size_t width, std::string& failure, Solve&& solve) {
  const std::size_t count = rows.size();
  std::vector<bool> solved(count, false);
  std::size_t failed = count;
  ExperimentResult thrown;  // what a solve here threw, for every rank to throw
  for (std::size_t e = 0, index = 0; e < count; ++e) {
    if (rows[e].empty() || (spread && !solves_here(index++))) continue;
    solved[e] = true;
    bool solved_ok = false;
    try {
      solved_ok = solve(e);
    } catch (const std::bad_alloc&) {
      if (!spread) throw;
      thrown.thrown = ExperimentResult::kOutOfMemory;
      thrown.thrown_here = std::current_exception();
    } catch (const std::exception& error) {
      if (!spread) throw;
      thrown.thrown = error.what();
      thrown.thrown_here = std::current_exception();
    }
    if (!solved_ok) {
      failed = e;
      if (thrown.thrown_here) failure = thrown.thrown;
      break;
    }
  }
  const std::size_t failed_here = failed;
  if (spread && share_rows(values, width, rows, solved, failed, failure, bool(thrown.thrown_here))) {
    if (failed != failed_here) {  // another rank's exception
      thrown.thrown_here = nullptr;
      thrown.thrown = failure;
    }
    thrown.rethrow();
  }
  return failed == count;
}

}  // namespace backsweep
