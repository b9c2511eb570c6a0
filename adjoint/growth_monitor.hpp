#pragma once
// The Lyapunov-growth monitor of the backward sweep. In a chaotic system the adjoint
// grows like exp(lambda_1 * s) in backward time s, and once that amplification exceeds
// 1/tolerance the gradient of a long horizon is dominated by it and tells nothing
// useful. The monitor records log||lambda_n|| and the parameter-gradient norm after
// every adjoint step, fits the growth rate robustly (Theil-Sen slope of window medians),
// and gives a verdict with the horizon T* = ln(1/tolerance) / rate beyond which the
// gradient cannot be trusted. It also bins the adjoint's components by magnitude, one
// histogram per output interval. The forward tangent feeds it too: its columns (the
// solution's derivatives by the parameters and initial state) grow like exp(lambda_1 t)
// forward in time, so the same fit gives the same exponent and verdict.
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "models/dual.hpp"
#include "solvers/algebra.hpp"
#include "solvers/vector_operations.hpp"

namespace backsweep {

struct MonitorOptions {
  // Relative accuracy a gradient must keep. Growth beyond 1/tolerance over the span is
  // chaotic_divergence; the horizon is ln(1/tolerance) / rate.
  double tolerance = 1e-6;
  // Fitted growth over the span beyond this factor (but within 1/tolerance) is growing.
  double growing_amplification = 10.0;
  std::size_t windows = 32;         // windows of backward time for the robust fit
  std::size_t history_limit = 1 << 14;  // history points kept (halved by decimation)
  // Boundaries of the histogram intervals, increasing, from the start to the end of the
  // span; empty: one interval.
  std::vector<double> interval_times;
};

// stiff: set by the gradient, not the monitor, when an explicit method's steps were held
// by stability (adjoint/stiffness.hpp): the adjoint's growth is then the method's.
enum class GrowthVerdict { stable, growing, chaotic_divergence, stiff };
const char* to_string(GrowthVerdict verdict);

// Log-binned magnitudes: bin 0 holds |x| < 10^kLowestDecade (zero included), bin d + 1
// holds 10^(kLowestDecade + d) <= |x| < 10^(kLowestDecade + d + 1), the last bin holds
// the rest (Inf and NaN included).
struct MagnitudeHistograms {
  static constexpr int kLowestDecade = -30, kDecades = 60;
  static constexpr std::size_t kBins = std::size_t(kDecades) + 2;
  std::vector<double> interval_times;  // intervals + 1 boundaries
  std::vector<std::size_t> counts;     // intervals x kBins, row-major
  static std::size_t bin(double x) { return bin(x, binades()); }

  // Per binary exponent: the bin of its smallest value, and the power of ten inside the
  // binade where the bin steps up (NaN when none: a binade spans less than a decade).
  struct Binade {
    double next_power;
    std::size_t bin;
  };
  using Binades = std::array<Binade, 2048>;
  static const Binades& binades();  // built once
  // bin(x) with the table at hand (a hot loop keeps it, and saves the call); the table
  // may be a device's copy.
  BACKSWEEP_HOST_DEVICE static std::size_t bin(double x, const Binade* table) {
    x = std::abs(x);
#if defined(__CUDA_ARCH__)
    const Binade& b = table[std::uint64_t(__double_as_longlong(x)) >> 52];
#else
    const Binade& b = table[std::bit_cast<std::uint64_t>(x) >> 52];
#endif
    return b.bin + (x >= b.next_power ? 1 : 0);
  }
  static std::size_t bin(double x, const Binades& table) { return bin(x, table.data()); }
};

namespace detail {
// bin_magnitudes for a long host vector, in one pass (growth_monitor.cpp).
double bin_long_vector(std::size_t n, const double* x, std::size_t* row);
}  // namespace detail

// What the monitor watches: the adjoint (steps arrive backward) or the forward tangent
// (steps arrive forward).
enum class Watched { adjoint, tangent };
const char* to_string(Watched watched);

struct GrowthReport {
  Watched watched = Watched::adjoint;
  GrowthVerdict verdict = GrowthVerdict::stable;
  double growth_rate = 0.0;     // per unit time in the sweep's direction, fitted
  double amplification = 1.0;   // last norm / first nonzero norm
  double fitted_amplification = 1.0;  // exp(rate * span)
  double horizon = INFINITY;    // ln(1/tolerance) / rate; Inf when not growing
  double span = 0.0;            // backward time the fit covers
  std::string explanation;      // one paragraph, with remedies when not stable
  // History after every step (decimated past history_limit), in the sweep's order; the
  // gradient norm is, for the tangent, that of the objective's terms met so far.
  std::vector<double> times, log_adjoint_norm, gradient_norm;
  MagnitudeHistograms histograms;
  // The verdict and its figures alone (a fit keeps one per experiment).
  void forget_history() {
    times = log_adjoint_norm = gradient_norm = {};
    histograms = {};
  }
};

class GrowthMonitor {
 public:
  // `steps`, when known, sets how sparsely the history is kept from the start, so that it
  // never needs thinning.
  GrowthMonitor(const MonitorOptions& options, double t_start, double t_end,
                std::size_t steps = 0, Watched watched = Watched::adjoint);

  // After the step that produced lambda (the adjoint, or the tangent's columns) at time t;
  // gradient_norm() is called only for the steps the history keeps.
  template <Algebra A = CpuAlgebra, class T, class GradientNorm>
  BACKSWEEP_INLINE void record(double t, const T* lambda, std::size_t n, GradientNorm&& gradient_norm) {
    const std::vector<double>& bounds = histograms_.interval_times;
    if (watched_ == Watched::adjoint)
      while (interval_ > 0 && t < bounds[interval_]) --interval_;
    else
      while (interval_ + 2 < bounds.size() && t > bounds[interval_ + 1]) ++interval_;
    std::size_t* row = histograms_.counts.data() + interval_ * MagnitudeHistograms::kBins;
    const double squares = bin_magnitudes<A>(n, lambda, row);
    if (squares > 0.0 && squares < INFINITY) {
      if (first_squares_ == 0.0) first_squares_ = squares;
      last_squares_ = squares;
    }
    if (++since_kept_ < stride_) return;
    since_kept_ = 0;
    keep(t, squares, gradient_norm());
  }

  // Fits the growth rate and gives the verdict.
  GrowthReport report() const;

  // Kernel functors are public: CUDA names a kernel's functor type outside the class.
  template <class T>
  struct BinMagnitude {
    const T* x;
    const MagnitudeHistograms::Binade* table;
    BACKSWEEP_HOST_DEVICE std::size_t operator()(std::size_t i) const {
      return MagnitudeHistograms::bin(value_of(x[i]), table);
    }
  };
  // The binade table where the algebra's kernels can read it (copied once per algebra).
  template <Algebra A>
  static const MagnitudeHistograms::Binade* binades_on() {
    if constexpr (host_vectors<A>) {
      return MagnitudeHistograms::binades().data();
    } else {
      static const typename A::template vector<MagnitudeHistograms::Binade> table(
          MagnitudeHistograms::binades().begin(), MagnitudeHistograms::binades().end());
      return table.data();
    }
  }

 private:
  // Adds x's components to a histogram row; returns ||x||^2.
  template <Algebra A, class T>
  static double bin_magnitudes(std::size_t n, const T* x, std::size_t* row) {
    if constexpr (host_vectors<A> && !split_over_ranks<A> && std::is_same_v<T, double>)  // (its norm is x's alone)
      if (n >= kLongVector) return detail::bin_long_vector(n, x, row);
    count_bins<A>(n, BinMagnitude<T>{x, binades_on<A>()}, MagnitudeHistograms::kBins, row);
    return squared_norm<A>(n, x);
  }
  void keep(double t, double squares, double gradient_norm);

  MonitorOptions options_;
  Watched watched_;
  double t_start_, t_end_;
  std::size_t interval_ = 0, stride_ = 1, since_kept_ = 0;
  double first_squares_ = 0.0, last_squares_ = 0.0;  // squared norms, first and last nonzero
  std::vector<double> times_, squares_, gradient_norms_;  // the kept history
  MagnitudeHistograms histograms_;
};

// Theil-Sen: the median of the slopes between all pairs of points with distinct x.
double theil_sen_slope(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace backsweep
