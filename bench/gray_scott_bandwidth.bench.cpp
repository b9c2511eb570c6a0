// Gray–Scott (models/builtin/gray_scott.hpp) on periodic 256^2, 512^2 and 1024^2 grids:
// how close its right-hand side and VJP kernels come to the memory bandwidth that a
// STREAM triad (a[i] = b[i] + s c[i], on arrays 4 times the last-level cache) reaches in
// the same run, and what a gradient costs
// against a forward solve. Bytes counted as STREAM counts them (each array read or
// written once, write-allocate traffic not counted): triad 24 B, RHS 32 B (reads u, v;
// writes du, dv), VJP 48 B (reads u, v and both adjoints; writes two) per point. The
// triad's plain stores pay a read for ownership that is not counted; at 1024^2 the
// kernels stream their stores and pay none (up to 4/3 of their ratio there).
// The grid spacing is 64^2's on [0, 2.5)^2 at every size, so RK4 with h = 0.5 stays stable.
// Gradient/forward (64^2 to 512^2): RK4, 200 steps of h = 0.5, J = u + v at the centre,
// store-all and revolve with 100 slots; medians of interleaved runs. Store-all twice: a
// first gradient, whose store's pages the kernel must map and zero (release_recycled_memory()
// before it; a helper thread maps them beside the forward solve), and a gradient repeated
// as a fit's iterations repeat it, whose store reuses the last one's pages
// (solvers/recycled_memory.hpp). "pages": what mapping that store's fresh pages costs
// one thread by itself (a write to each 4 KiB page of a fresh block), over the forward
// solve: the floor of first - repeated were no helper mapping them.
//   build/bench/bench_gray_scott_bandwidth
#include <cstdio>
#include <memory>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "bench/timing.hpp"
#include "models/builtin/gray_scott.hpp"
#include "solvers/recycled_memory.hpp"

namespace {

struct AtCentre {
  std::size_t u, v;
  template <class T>
  T operator()(const T* y, const T*) const { return y[u] + y[v]; }
};

// Repeats f often enough to take about 0.05 s, so a kernel's time is not lost in noise.
template <class F>
std::function<void()> repeated(int times, F f) {
  return [=] { for (int k = 0; k < times; ++k) f(); };
}

}  // namespace

int main() {
  using namespace backsweep;
  std::printf("%6s %10s %9s %9s %9s %10s %29s %12s %7s\n", "side", "triad GB/s", "RHS GB/s", "VJP GB/s", "RHS/triad",
              "VJP/triad", "gradient/forward, store-all", "", "");
  std::printf("%6s %10s %9s %9s %9s %10s %15s %13s %12s %7s\n", "", "", "", "", "", "", "first", "repeated",
              "revolve 100", "pages");
  // STREAM's rule: each array at least 4 times the last-level cache (32 MiB here), so the
  // triad measures memory, not cache. Timed between the kernels, in the same rounds.
  constexpr std::size_t kStream = std::size_t{1} << 24;
  std::vector<double> a(kStream), b(kStream, 1.0), c(kStream, 2.0);
  const auto triad = [&] {
    double* __restrict out = a.data();
    const double* __restrict x = b.data();
    const double* __restrict z = c.data();
    for (std::size_t i = 0; i < kStream; ++i) out[i] = x[i] + 3.0 * z[i];
  };
  for (std::size_t side : {64, 128, 256, 512, 1024}) {
    const std::size_t n = side * side;
    const models::GrayScott model(Grid({side, side}, {2.5 / 64 * double(side), 2.5 / 64 * double(side)}, {Boundary::periodic, Boundary::periodic}));
    std::vector<double> y(2 * n), dydt(2 * n), lambda(2 * n), vjp_y(2 * n), vjp_p(4);
    for (std::size_t i = 0; i < 2 * n; ++i) {
      y[i] = 0.5 + 0.25 * double(i % 7);
      lambda[i] = 0.1 * double(i % 5);
    }
    const std::vector<double> p{8e-5, 4e-5, 0.024, 0.06};
    const int times = int(std::max<std::size_t>(1, (1u << 24) / n));
    const std::vector<double> kernels = bench::interleaved_medians(
        {triad,
         repeated(times, [&] { model(0.0, y.data(), p.data(), dydt.data()); }),
         repeated(times, [&] { model.vjp(0.0, y.data(), p.data(), lambda.data(), vjp_y.data(), vjp_p.data()); })},
        9);
    const double gb = 1e-9 * double(n) * times;
    const double triad_rate = 24e-9 * double(kStream) / kernels[0], rhs = 32 * gb / kernels[1], vjp = 48 * gb / kernels[2];

    if (side > 512) {
      std::printf("%6zu %10.1f %9.1f %9.1f %9.2f %10.2f\n", side, triad_rate, rhs, vjp, rhs / triad_rate, vjp / triad_rate);
      continue;
    }
    IntegrateOptions options;
    options.t1 = 100.0;
    options.step = 0.5;
    Objective<AtCentre> objective;
    objective.terminal = {n / 2 + side / 2, n + n / 2 + side / 2};
    std::vector<double> y0(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
      y0[n + i] = (i / side > side / 3 && i / side < side / 2 && i % side > side / 3 && i % side < side / 2) ? 0.25 : 0.0;
      y0[i] = 1 - 2 * y0[n + i];
    }
    const GradientProblem<models::GrayScott, Objective<AtCentre>> problem{model, tableaux::rk4, y0, p, objective,
                                                                         options};
    GradientResult<double> result;
    std::size_t store_bytes = 0;
    const std::vector<double> solves = bench::interleaved_medians(
        {[&] {
           with_stepper<double>(model, problem.method, [&](auto& stepper) {
             std::vector<double> state = y0;
             integrate(stepper, state.data(), p.data(), options);
           });
         },
         [&] {
           release_recycled_memory();
           result = gradient<double>(problem, y0, p, {CheckpointOptions::Schedule::store_all});
         },
         [&] {
           result = gradient<double>(problem, y0, p, {CheckpointOptions::Schedule::store_all});
           store_bytes = result.diagnostics.checkpoint_bytes;
         },
         [&] { result = gradient<double>(problem, y0, p, {CheckpointOptions::Schedule::revolve, 100}); },
         [&] {
           const std::unique_ptr<char[]> fresh(new char[store_bytes]);
           for (std::size_t b = 0; b < store_bytes; b += 4096) fresh[b] = char(b);
           asm volatile("" : : "r"(fresh.get()) : "memory");  // the writes are kept
         }},
        3);
    if (!result.ok()) {
      std::fprintf(stderr, "%zu^2: %s\n", side, result.message.c_str());
      return 1;
    }
    std::printf("%6zu %10.1f %9.1f %9.1f %9.2f %10.2f %15.2f %13.2f %12.2f %7.2f\n", side, triad_rate, rhs, vjp,
                rhs / triad_rate, vjp / triad_rate, solves[1] / solves[0], solves[2] / solves[0], solves[3] / solves[0],
                solves[4] / solves[0]);
  }
  return 0;
}
