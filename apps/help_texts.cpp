#include "apps/help_texts.hpp"

namespace backsweep::apps {

const char* const kSimulateHelp = R"(Config keys read by simulate (see docs/config.md):
  [model]       name        built-in model: lorenz63 van_der_pol lotka_volterra
                            harmonic_oscillator robertson brusselator_1d (points = N);
                            on a [grid]: gray_scott heat advection_diffusion acoustic
                            (hand-written kernels; acoustic takes its source in
                            [model.source] point = [i, j], f0, t0, amplitude)
                or a model defined here (no name then):
                states      state names, e.g. ["S", "I", "R"]
                parameters  parameter names, e.g. ["beta", "gamma"]
                fields, parameter_fields  on a [grid]: field names, e.g. ["u", "v"]
  [model.equations] <state> = "expr"  one right-hand side per state, e.g. "gamma*I":
                            an expression of t, the states, parameters and constants;
                            on a grid per field, with lap bilap dx dy dz div_grad(k, u)
  [model.constants] <name> = v  named numbers for every expression (besides pi and e)
  [grid]        shape       points per axis, 1 to 3 axes, e.g. [64, 64]
                extent      the domain's length per axis
                boundary    periodic | dirichlet | neumann, or one per axis
  [parameters]  <name> = v  parameter values by name (defaults: a built-in model's
                            standard ones; a defined model needs every one); a
                            parameter field: a number, an expression of x, y, z, or
                            { file = "k.h5" or "k.vti" }
  [initial]     <name> = v  initial state by name: a number, or an expression of the
                            parameters and constants such as "N - i0" (defaults: a
                            built-in model's standard one; a defined model needs every
                            one); on a grid per field, as parameter fields
  [time]        start       start time (default 0)
                end         end time (required, > start)
                output      times written out, strictly increasing, hit exactly
                output_step or: write every output_step (default: every accepted step)
  [solver]      method      explicit: euler heun kutta3 heun3 rk4 ssprk3 (fixed step),
                            bs32 dopri5 tsit5 (adaptive or fixed; default dopri5);
                            implicit: backward_euler crank_nicolson sdirk2 esdirk3
                            sdirk4; CVODES: cvodes_bdf cvodes_adams (rtol, atol)
                step        fixed step size; omit for adaptive stepping
                rtol, atol  tolerances of adaptive stepping (default 1e-6, 1e-9)
                max_steps   failure after this many steps (default 1000000)
                initial_step  first adaptive step (default: chosen automatically)
                min_step, max_step  adaptive step limits (default: a few ulps of t, none)
                newton_tolerance  implicit methods: Newton's (scaled) tolerance
                linear_solver  auto | dense | klu | gmres | cg  (implicit methods; auto
                            says its choice in the diagnostics)
                preconditioner  auto | none | jacobi | ilu | multigrid  (gmres, cg)
                krylov_tolerance  relative residual of the tangent's and adjoint's
                            Krylov solves (default 1e-10): the adjoint is exact to it
                backend     cpu (default) | omp: the hand-written grid models' and
                            equations on a grid on OpenMP threads, [ensemble] members
                            and a fit's starts in parallel | cuda: their gradients on
                            the GPU (equations as CUDA kernels built at run time)
  [output]      dir         output folder, relative to the working directory (default
                            out/<config file name without .toml>)
                vtk         true: also the fields as VTK series for ParaView (grids)
Writes <dir>/trajectory.csv and <dir>/trajectory.h5 (/time, /states, attributes); on a
grid trajectory.h5 (/fields/<name>) and, with vtk, states.pvd.
Exit codes: 0 ok, 1 the run failed, 2 bad input.)";

const char* const kGradientHelp = R"(Config keys read by gradient, besides those of simulate (see docs/config.md):
  [objective]    terminal    expression of t, states, parameters, constants at time.end
                 integral    running cost, integrated over [start, end] by the same method
  [[objective.observation]]  time = 0.5, formula = "(x - 1.2)^2"  (repeatable)
  [gradient]     parameters  names to report (default: all); dJ/dp includes the path
                             through [initial] expressions of the parameters
                 initial     also dJ/d(initial state) (default true)
                 mode        auto | adjoint | tangent (auto: tangent when the states and
                             parameters number at most 8, one Dual chunk; else adjoint) |
                             shadowing (d<integrand>/dp of a chaotic system's long-time
                             average, objective.integral alone, fixed steps)
  [shadowing]    unstable    unstable directions (default: counted from the Lyapunov
                             spectrum); segment_length (1), segments, spin_up (a tenth),
                             batches (8, their spread the error), flow_direction (true),
                             sweep: tangent (NILSS) | adjoint (the same, in one
                             backward sweep for every parameter) | auto (by cost)
  [checkpointing] schedule   auto | store_all | revolve | online | two_level (auto:
                             store_all when nothing bounds memory or every step fits the
                             memory budget; else revolve for fixed steps, online for
                             adaptive ones; two_level when a disk budget costs fewer
                             recomputations; the diagnostics say which and why)
                 slots       memory slots, the initial state's included (default 100)
                 memory      or a budget for everything the gradient keeps, e.g. "64MiB"
                             (slots, their place on the step grid, the monitor's history)
                 disk        a budget for disk slots, e.g. "2GiB": a scratch file in
                             output.dir, removed when the run ends or is stopped
                 storage     float64 (default) | float32: half the memory, rounded states
  [monitor]      tolerance   relative accuracy the gradient must keep (default 1e-6): growth
                             of the adjoint (or tangent) beyond 1/tolerance is
                             chaotic_divergence
                 growing_amplification  growth beyond this is `growing` (default 10)
                 windows     windows of the robust growth-rate fit (default 32)
  [ensemble]     members     a CSV file: a header of parameter and initial-state names,
                             then a row a member; or samples = N seeded Latin-hypercube
                             members (seed, default 1) in [ensemble.ranges]
                             name = [lower, upper]. A gradient a member in gradient.h5;
                             solver.backend = "omp" runs the members in parallel
A fit config ([data] and no [objective], see fit --help) gives the negative
log-likelihood and its gradient for the estimated parameters, in scaled and linear space.
Prints the objective and gradient (--json: one JSON object on stdout), warns on stderr
when the adjoint grows, and writes <output.dir>/gradient.h5.
Exit codes: 0 ok, 1 the run failed, 2 bad input.)";

const char* const kFitHelp = R"(Config keys read by fit, besides those of simulate (see docs/config.md):
  [[estimate]]   name, lower, upper (linear space), scale = lin | log10, estimate = true
                 (the nominal value, and the value of fixed ones, comes from [parameters]);
                 name a parameter field to estimate it point by point, from its prior
  [regularization.<field>] tikhonov, h1, tv (weights, 0), tv_epsilon (1e-3),
                 reference = "prior" | number: for an estimated parameter field
  [[observables]] name, formula (an expression of t, the states and the parameters)
  [data]         measurements = "file.csv": columns observable,time,value,sigma[,experiment]
                 (relative to the config file's folder)
  [[experiments]] id, initial = {x = 1.0}, parameters = {k = 2.0} (fixed overrides)
  [noise]        model = gaussian, sigma = data | estimate (profiled per observable)
  [optimizer]    method = lbfgsb, max_iterations (200), gradient_tolerance (1e-6),
                 starts (5, Latin hypercube in scaled space), seed (1),
                 gradient = auto | adjoint | tangent (auto: tangent when the states
                 and parameters number at most 8, else adjoint)
  [checkpointing] schedule, slots, memory, disk, storage: as for gradient
Prints a line per improving iteration, then the fitted parameters with standard errors
(--json: one JSON object on stdout), and writes <output.dir>/fit.h5,
fit_trajectories.csv and fit_residuals.csv.
Exit codes: 0 ok, 1 the run failed, 2 bad input.)";

const char* const kLyapunovHelp = R"(Config keys read by lyapunov, besides [model], [parameters], [initial] (see docs/config.md):
  [time]         start       start time (end and output times are not used)
  [solver]       method, step  a fixed step size is required (cvodes_bdf, cvodes_adams: rtol, atol)
  [lyapunov]     duration    averaging time (required)
                 transient   time skipped first (default duration / 10)
                 exponents   how many leading exponents (default: all)
                 reorthonormalize_every  steps between QR re-orthonormalisations (default 10)
                 interval    CVODES methods: time between QR re-orthonormalisations (default 0.1)
                 blocks      blocks of the averaging time for standard errors (default 20)
Prints the spectrum with standard errors and the Kaplan-Yorke dimension (--json: one JSON
object on stdout) and writes <output.dir>/lyapunov.h5 and lyapunov_history.csv.
Exit codes: 0 ok, 1 the run failed, 2 bad input.)";

}  // namespace backsweep::apps
