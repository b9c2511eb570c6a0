#include "apps/grid_split_gradient.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "adjoint/checkpoint_schedule.hpp"
#include "adjoint/discrete_adjoint.hpp"
#include "apps/field_outputs.hpp"
#include "apps/rank_output.hpp"
#include "io/assembly/config_objective.hpp"
#include "io/config/backends.hpp"
#include "models/any_model.hpp"
#include "models/builtin/grid_blocks.hpp"
#include "models/builtin/grid_kernels.hpp"
#include "models/equations_block.hpp"
#include "platform/byte_pack.hpp"
#include "platform/ranks.hpp"
#include "solvers/rank_algebra.hpp"

namespace backsweep::apps {

namespace {

// Every grid model on a block, one type so the engine is compiled once for them.
template <class M>
using Blocked = decltype(models::blocked(std::declval<const M&>(), std::declval<GridBlock>()));
using AnyBlocked = models::each_grid_kernel<models::AnyModel, Blocked>::with<models::BlockedEquations>;

// Where a block's numbers sit among the whole grid's: the state's fields, and the
// parameters' scalars (every rank has them all) then fields.
struct BlockLayout {
  const GridBlock& block;
  std::size_t fields, scalars, parameter_fields;

  std::vector<double> state_part(const double* whole) const {
    std::vector<double> mine(fields * block.points());
    block.take_part(whole, fields, mine.data());
    return mine;
  }
  std::vector<double> parameters_part(const double* whole) const {
    std::vector<double> mine(scalars + parameter_fields * block.points());
    std::copy_n(whole, scalars, mine.begin());
    block.take_part(whole + scalars, parameter_fields, mine.data() + scalars);
    return mine;
  }
  std::vector<double> whole_state(const double* mine) const { return block.gather(mine, fields); }
  std::vector<double> whole_parameters(const double* mine) const {
    std::vector<double> whole(mine, mine + scalars);
    const std::vector<double> gathered = block.gather(mine + scalars, parameter_fields);
    whole.insert(whole.end(), gathered.begin(), gathered.end());
    return whole;
  }
  std::size_t whole_parameter_size() const { return scalars + parameter_fields * block.grid().points(); }
  // The state's values on the largest block (rank 0's, which takes any extra plane).
  std::size_t largest_state() const { return GridBlock(block.grid(), 0, ranks::count()).points() * fields; }
};

// A config term (its value and gradient) on the whole state and parameters, gathered from
// the blocks: the same value on every rank, and each rank's part of the gradient.
template <class Term>
struct Gathered {
  Term term;
  const BlockLayout* layout;

  template <class... Index>
  double value(Index... k, const double* y, const double* p) const {
    const std::vector<double> whole_y = layout->whole_state(y), whole_p = layout->whole_parameters(p);
    return term(k..., whole_y.data(), whole_p.data());
  }
  template <class... Index>
  double gradient_of(Index... k, const double* y, const double* p, double* grad_y, double* grad_p) const {
    const std::vector<double> whole_y = layout->whole_state(y), whole_p = layout->whole_parameters(p);
    std::vector<double> whole_grad_y(whole_y.size()), whole_grad_p(layout->whole_parameter_size());
    const double value = term.gradient(k..., whole_y.data(), whole_p.data(), whole_grad_y.data(),
                                       grad_p ? whole_grad_p.data() : nullptr);
    layout->block.take_part(whole_grad_y.data(), layout->fields, grad_y);
    if (grad_p) {
      const std::vector<double> mine = layout->parameters_part(whole_grad_p.data());
      std::copy(mine.begin(), mine.end(), grad_p);
    }
    return value;
  }
};

struct GatheredTerminal : Gathered<ConfigTerminal> {
  double operator()(const double* y, const double* p) const { return value(y, p); }
  double gradient(const double* y, const double* p, double* grad_y, double* grad_p) const {
    return gradient_of(y, p, grad_y, grad_p);
  }
};

struct GatheredObservation : Gathered<ConfigObservation> {
  double operator()(std::size_t k, const double* y, const double* p) const { return value<std::size_t>(k, y, p); }
  double gradient(std::size_t k, const double* y, const double* p, double* grad_y, double* grad_p) const {
    return gradient_of<std::size_t>(k, y, p, grad_y, grad_p);
  }
};

// An observer of the whole grid's fields, called with a block's: gathered at the field
// times only (what the observers keep), which every rank passes alike.
std::function<void(double, const double*)> gathered(const std::function<void(double, const double*)>& observer,
                                                     const BlockLayout& layout, const FieldTimes& times) {
  if (!observer) return {};
  return [observer, &layout, &times](double t, const double* mine) {
    if (times.index(t)) observer(t, layout.whole_state(mine).data());
  };
}

// The component of a block's vector numbered in the whole grid's.
std::size_t whole_component(const BlockLayout& layout, std::size_t component) {
  const std::size_t m = layout.block.points();
  if (component >= layout.fields * m) return component;
  return component / m * layout.block.grid().points() + layout.block.first_plane() * layout.block.plane_points() +
         component % m;
}

// Whether every rank's run succeeded; where any failed, every rank takes one failure, the
// NaN with the least component of the whole state where there are NaNs (the one a run
// alone names: ranks see them at the same step), so all report it alike.
bool every_rank_succeeded(GradientResult<double>& result, const BlockLayout& layout) {
  BytePacker mine;
  const auto& nonfinite = RankAlgebra::found_elsewhere() ? std::nullopt : result.diagnostics.nonfinite;
  mine << int(result.status) << result.message << bool(nonfinite);
  if (nonfinite)
    mine << nonfinite->phase << nonfinite->step << whole_component(layout, nonfinite->component) << nonfinite->time
         << nonfinite->after << nonfinite->cause;
  bool succeeded = true;
  for (const std::string& bytes : ranks::all_gather(mine.bytes())) {
    ByteUnpacker theirs(bytes);
    int status = 0;
    std::string message;
    bool found = false;
    theirs >> status >> message >> found;
    if (IntegrateStatus(status) == IntegrateStatus::success && !found) continue;
    NonFinite where;
    if (found) theirs >> where.phase >> where.step >> where.component >> where.time >> where.after >> where.cause;
    const auto& kept = result.diagnostics.nonfinite;
    if (!succeeded && (!found || (kept && kept->component <= where.component))) continue;
    succeeded = false;
    result.status = IntegrateStatus(status);
    result.message = message;
    result.diagnostics.nonfinite.reset();
    if (found) result.diagnostics.nonfinite = where;
  }
  return succeeded;
}

// The monitor's report of the whole grid: its norms are the grid's already (RankAlgebra);
// each rank binned its own block's components, so the bins are added over ranks, and a
// parameter field's gradient norm is each block's part of it.
void merge_monitor(GrowthReport& report, const BlockLayout& layout) {
  BytePacker mine;
  mine << report.histograms.counts << report.gradient_norm;
  std::vector<std::size_t> counts(report.histograms.counts.size(), 0);
  std::vector<double> squares(report.gradient_norm.size(), 0.0);
  for (const std::string& bytes : ranks::all_gather(mine.bytes())) {
    std::vector<std::size_t> their_counts;
    std::vector<double> their_norms;
    ByteUnpacker(bytes) >> their_counts >> their_norms;
    for (std::size_t k = 0; k < counts.size() && k < their_counts.size(); ++k) counts[k] += their_counts[k];
    for (std::size_t k = 0; k < squares.size() && k < their_norms.size(); ++k)
      squares[k] += their_norms[k] * their_norms[k];
  }
  report.histograms.counts = counts;
  if (layout.scalars == 0 && layout.parameter_fields > 0)  // else dJ/dp's scalars: every rank's alike
    for (std::size_t k = 0; k < squares.size(); ++k) report.gradient_norm[k] = std::sqrt(squares[k]);
}

// Whether store_all would hold more than this machine: the largest block's records times
// the ranks, decided alike on every rank (the engine's own check would see each block).
std::optional<OptionRefusal> store_all_refusal(const GradientConfig& config, const BlockLayout& layout) {
  const SimulateConfig& sim = config.simulate;
  const CheckpointOptions& checkpoints = config.checkpointing.options;
  using Schedule = CheckpointOptions::Schedule;
  const bool store_all = checkpoints.schedule == Schedule::store_all ||
                         (checkpoints.schedule == Schedule::automatic && !checkpoints.memory && !checkpoints.disk);
  if (!store_all || !checkpoints.machine_memory) return std::nullopt;
  const double steps = std::ceil((sim.integrate.t1 - sim.integrate.t0) / sim.integrate.step * (1 - 1e-12));
  const double bytes = steps * (double(layout.largest_state()) * double(sim.method.tableau->stages) * sizeof(double) + 16.0) *
                       double(ranks::count());
  if (bytes <= double(checkpoints.machine_memory)) return std::nullopt;
  return OptionRefusal{checkpoints.schedule == Schedule::store_all ? "schedule" : "memory",
                       "store_all keeps all " + std::to_string(std::size_t(steps)) + " steps of " +
                           std::to_string(ranks::count()) + " blocks: about " + format_byte_size(std::uint64_t(bytes)) +
                           ", more than this machine's " + format_byte_size(checkpoints.machine_memory) +
                           "; bound it with [checkpointing] slots (revolve recomputes instead), or take fewer steps"};
}

template <class Blocked>
GradientResult<double> run_blocks(const GradientConfig& config, const Blocked& model, const BlockLayout& layout,
                                  const MonitorOptions& monitor, const std::vector<double>& y0,
                                  const std::vector<double>& p, const GradientObservers& observers,
                                  RunProgress* progress) {
  const SimulateConfig& sim = config.simulate;
  GradientResult<double> result;
  if ((result.diagnostics.refused = store_all_refusal(config, layout))) {
    result.status = IntegrateStatus::invalid_options;
    result.message = result.diagnostics.refused->problem;
    return result;
  }
  std::vector<double> times;
  for (const auto& o : config.observations) times.push_back(o.time);
  using Obj = Objective<GatheredTerminal, NoTerm, GatheredObservation>;
  const Obj objective{{{{&config}, &layout}}, {}, {{{&config}, &layout}}, times};
  GradientProblem<Blocked, Obj> problem{model, sim.method, layout.state_part(y0.data()), layout.parameters_part(p.data()),
                                        objective, sim.integrate, monitor};
  const FieldTimes field_times(sim);
  problem.forward_observer = gathered(observers.forward, layout, field_times);
  problem.adjoint_observer = gathered(observers.adjoint, layout, field_times);
  problem.integrate.progress = progress;
  // Every rank runs one schedule (each step exchanges halos), so a disk budget in bytes
  // becomes the slots the largest block's budget holds, on every rank; the machine's
  // memory was checked above.
  CheckpointOptions checkpoints = config.checkpointing.options;
  checkpoints.machine_memory = 0;
  if (checkpoints.disk && !checkpoints.disk_slots) {
    checkpoints.disk_slots = std::size_t(checkpoints.disk / (layout.largest_state() * sizeof(double)));
    checkpoints.disk = 0;
  }
  RankAlgebra::found_elsewhere() = false;
  try {
    result = gradient<double, RankAlgebra>(problem, problem.y0, problem.p, checkpoints);
  } catch (...) {
    abort_every_rank(std::current_exception());  // the others wait on this rank in a halo exchange
  }
  if (!every_rank_succeeded(result, layout)) return result;
  if (result.diagnostics.monitor) merge_monitor(*result.diagnostics.monitor, layout);
  result.dJ_dy0 = layout.whole_state(result.dJ_dy0.data());
  result.dJ_dp = layout.whole_parameters(result.dJ_dp.data());
  return result;
}

}  // namespace

bool splits_grid(const GradientConfig& config) {
  const SimulateConfig& sim = config.simulate;
  if (ranks::count() < 2 || !sim.layout || sim.layout->grid().axes() < 2) return false;
  if (config.ensemble || config.shadowing) return false;  // their members run a rank each
  const auto& kernel = sim.grid_kernel;  // every grid kernel splits (AnyBlocked)
  if (!kernel && !sim.expression_model) return false;
  // The monitor's dJ/dp norm would count scalar parameters once a rank beside a field's blocks.
  if (sim.layout->scalar_parameters() > 0 && !sim.layout->parameter_fields().empty()) return false;
  const std::size_t planes = kernel ? 1 : models::BlockedEquations::kGhostPlanes;  // each rank's least
  const CheckpointOptions& checkpoints = config.checkpointing.options;
  const bool counted = checkpoints.slots || !checkpoints.memory;
  const bool splits =
      sim.layout->grid().size(0) >= planes * std::size_t(ranks::count()) &&
      backend_has(sim.backend, &BackendEntry::splits_grid) &&
      config.mode == GradientMode::adjoint && sim.method.family == Method::Family::explicit_rk &&
      sim.integrate.step > 0.0 && counted && !config.integral && !sim.integrate.events &&
      std::none_of(sim.initial_expressions.begin(), sim.initial_expressions.end(),
                   [](const auto& e) { return e.has_value(); });
  if (!splits || kernel) return splits;
  // Each rank built the equations' kernels itself: where one could not (it runs the
  // interpreter), none splits.
  const std::string compiled(1, sim.expression_model->compiled() ? '1' : '0');
  for (const std::string& theirs : ranks::all_gather(compiled))
    if (theirs != "1") return false;
  return true;
}

GradientResult<double> split_grid_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                           const std::vector<double>& y0, const std::vector<double>& p,
                                           const GradientObservers& observers, RunProgress* progress) {
  const SimulateConfig& sim = config.simulate;
  const GridLayout& grid_layout = *sim.layout;
  const GridBlock block(grid_layout.grid(), ranks::rank(), ranks::count());
  const BlockLayout layout{block, grid_layout.fields().size(), grid_layout.scalar_parameters(),
                           grid_layout.parameter_fields().size()};
  if (!sim.grid_kernel)
    return run_blocks(config, AnyBlocked(models::BlockedEquations(*sim.expression_model, block)), layout, monitor,
                      y0, p, observers, progress);
  std::optional<AnyBlocked> model;
  models::visit_grid_kernel(*sim.grid_kernel, [&](const auto& whole) { model.emplace(models::blocked(whole, block)); });
  return run_blocks(config, *model, layout, monitor, y0, p, observers, progress);
}

}  // namespace backsweep::apps
