#pragma once
// The Lyapunov-growth monitor of the backward sweep. In a chaotic system the adjoint
// grows like exp(lambda_1 * s) in backward time s, and once that amplification exceeds
// 1/tolerance the gradient of a long horizon is dominated by it and tells nothing
// useful. The monitor records log||lambda_n|| and the parameter-gradient norm after
// every adjoint step, fits the growth rate robustly (Theil-Sen slope of window medians),
// and gives a verdict with the horizon T* = ln(1/tolerance) / rate beyond which the
// gradient cannot be trusted. It also bins the adjoint's components by magnitude, one
// histogram per output interval.
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "models/dual.hpp"

namespace backsweep {

struct MonitorOptions {
  // Relative accuracy a gradient must keep. Growth beyond 1/tolerance over the span is
  // chaotic_divergence; the horizon is ln(1/tolerance) / rate.
  double tolerance = 1e-6;
  // Fitted growth over the span beyond this factor (but within 1/tolerance) is growing.
  double growing_amplification = 10.0;
  std::size_t windows = 32;         // windows of backward time for the robust fit
  std::size_t history_limit = 1 << 16;  // history points kept (halved by decimation)
  // Boundaries of the histogram intervals, increasing, from the start to the end of the
  // span; empty: one interval.
  std::vector<double> interval_times;
};

enum class GrowthVerdict { stable, growing, chaotic_divergence };
const char* to_string(GrowthVerdict verdict);

// Log-binned magnitudes: bin 0 holds |x| < 10^kLowestDecade (zero included), bin d + 1
// holds 10^(kLowestDecade + d) <= |x| < 10^(kLowestDecade + d + 1), the last bin holds
// the rest (Inf and NaN included).
struct MagnitudeHistograms {
  static constexpr int kLowestDecade = -30, kDecades = 60;
  static constexpr std::size_t kBins = std::size_t(kDecades) + 2;
  std::vector<double> interval_times;  // intervals + 1 boundaries
  std::vector<std::size_t> counts;     // intervals x kBins, row-major
  static std::size_t bin(double x);
};

struct GrowthReport {
  GrowthVerdict verdict = GrowthVerdict::stable;
  double growth_rate = 0.0;     // per unit backward time, fitted
  double amplification = 1.0;   // ||lambda_0|| / ||lambda|| where it was first nonzero
  double fitted_amplification = 1.0;  // exp(rate * span)
  double horizon = INFINITY;    // ln(1/tolerance) / rate; Inf when not growing
  double span = 0.0;            // backward time the fit covers
  std::string explanation;      // one paragraph, with remedies when not stable
  // History after every adjoint step (decimated past history_limit), in backward order.
  std::vector<double> times, log_adjoint_norm, gradient_norm;
  MagnitudeHistograms histograms;
};

class GrowthMonitor {
 public:
  GrowthMonitor(const MonitorOptions& options, double t_start, double t_end);

  // After the adjoint step that produced lambda at time t (steps arrive backward).
  template <class T>
  void record(double t, const T* lambda, std::size_t n, double gradient_norm) {
    double sum = 0.0;
    while (interval_ > 0 && t < report_.histograms.interval_times[interval_]) --interval_;
    std::size_t* row = report_.histograms.counts.data() + interval_ * MagnitudeHistograms::kBins;
    for (std::size_t i = 0; i < n; ++i) {
      const double x = value_of(lambda[i]);
      sum += x * x;
      ++row[MagnitudeHistograms::bin(x)];
    }
    const double log_norm = 0.5 * std::log(sum);
    if (std::isfinite(log_norm)) {
      if (!std::isfinite(first_log_norm_)) first_log_norm_ = log_norm;
      last_log_norm_ = log_norm;
    }
    if (++since_kept_ < stride_) return;
    since_kept_ = 0;
    keep(t, log_norm, gradient_norm);
  }

  // Fits the growth rate and gives the verdict.
  GrowthReport report() const;

 private:
  void keep(double t, double log_norm, double gradient_norm);

  MonitorOptions options_;
  double t_end_;
  std::size_t interval_ = 0, stride_ = 1, since_kept_ = 0;
  double first_log_norm_ = NAN, last_log_norm_ = NAN;  // of the nonzero adjoints
  GrowthReport report_;
};

// Theil-Sen: the median of the slopes between all pairs of points with distinct x.
double theil_sen_slope(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace backsweep
