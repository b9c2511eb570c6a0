#include "adjoint/growth_monitor.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>

#include "models/avx2_clone.hpp"

namespace backsweep {

namespace {

double median(std::vector<double> v) {
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(mid), v.end());
  if (v.size() % 2) return v[mid];
  return 0.5 * (v[mid] + *std::max_element(v.begin(), v.begin() + std::ptrdiff_t(mid)));
}

std::string format(const char* pattern, double a, double b = 0.0, double c = 0.0) {
  std::array<char, 1024> text;
  std::snprintf(text.data(), text.size(), pattern, a, b, c);
  return text.data();
}

std::string explain(const GrowthReport& r, double tolerance) {
  const bool adjoint = r.watched == Watched::adjoint;
  const std::string what = adjoint ? "The adjoint" : "The tangent (the solution's derivatives by the parameters)";
  switch (r.verdict) {
    case GrowthVerdict::stable:
      return what + format(" grew by a fitted factor of %.3g over %.4g time units: the "
                           "gradient is not dominated by amplification.",
                           r.fitted_amplification, r.span);
    case GrowthVerdict::growing:
      return what + format(" grows at %.4g per unit time (a factor of %.3g over %.4g time "
                           "units).",
                           r.growth_rate, r.fitted_amplification, r.span) +
             format(" The gradient keeps a relative accuracy of %.1e up to a horizon of about "
                    "%.4g time units; longer windows lose it.",
                    tolerance, r.horizon);
    case GrowthVerdict::chaotic_divergence:
      return what + format(adjoint ? " grows like exp(%.4g s) backward in time (the leading Lyapunov "
                                     "exponent of a chaotic system), by a factor of %.3g over %.4g time units. "
                                   : " grows like exp(%.4g t) forward in time (the leading Lyapunov "
                                     "exponent of a chaotic system), by a factor of %.3g over %.4g time units. ",
                           r.growth_rate, r.fitted_amplification, r.span) +
             format("Beyond the horizon T* = ln(1/tol)/rate = %.4g (tol = %.1e) the gradient is "
                    "dominated by this amplification and does not describe how long-time "
                    "behaviour depends on the parameters. Remedies: a window shorter than T*; "
                    "multiple shooting (windows shorter than T* joined by continuity "
                    "constraints); shadowing (NILSS) for sensitivities of long-time averages.",
                    r.horizon, tolerance);
    case GrowthVerdict::stiff: break;  // the gradient explains it
  }
  return {};
}

}  // namespace

const char* to_string(Watched watched) { return watched == Watched::adjoint ? "adjoint" : "tangent"; }

const char* to_string(GrowthVerdict verdict) {
  switch (verdict) {
    case GrowthVerdict::stable: return "stable";
    case GrowthVerdict::growing: return "growing";
    case GrowthVerdict::chaotic_divergence: return "chaotic_divergence";
    case GrowthVerdict::stiff: return "stiff";
  }
  return "?";
}

// Four histograms and four partial sums, merged at the end: consecutive components of
// like size fall in the same bin, and with one histogram each count would wait for the
// last (the merged sum of squares differs from a serial sum's in rounding only).
BACKSWEEP_AVX2_CLONE
double detail::bin_long_vector(std::size_t n, const double* x, std::size_t* row) {
  constexpr std::size_t kWays = 4, kBins = MagnitudeHistograms::kBins;
  const MagnitudeHistograms::Binade* table = MagnitudeHistograms::binades().data();
  std::array<std::array<std::size_t, kBins>, kWays> counts{};
  std::array<double, kWays> squares{};
  std::size_t i = 0;
  for (; i + kWays <= n; i += kWays)
    for (std::size_t w = 0; w < kWays; ++w) {
      ++counts[w][MagnitudeHistograms::bin(x[i + w], table)];
      squares[w] += x[i + w] * x[i + w];
    }
  for (; i < n; ++i) {
    ++counts[0][MagnitudeHistograms::bin(x[i], table)];
    squares[0] += x[i] * x[i];
  }
  for (std::size_t b = 0; b < kBins; ++b) row[b] += counts[0][b] + counts[1][b] + counts[2][b] + counts[3][b];
  return (squares[0] + squares[1]) + (squares[2] + squares[3]);
}

const std::array<MagnitudeHistograms::Binade, 2048>& MagnitudeHistograms::binades() {
  static const auto table = [] {
    // Parsed, so each power is the double nearest to it.
    std::array<double, kDecades + 1> powers{};
    for (int d = 0; d <= kDecades; ++d)
      powers[std::size_t(d)] = std::strtod(("1e" + std::to_string(kLowestDecade + d)).c_str(), nullptr);
    auto slow_bin = [&](double x) {  // the number of powers <= x
      return std::size_t(std::upper_bound(powers.begin(), powers.end(), x) - powers.begin());
    };
    std::array<Binade, 2048> binades{};
    for (int e = 0; e < 2048; ++e) {
      Binade& b = binades[std::size_t(e)];
      b.next_power = NAN;
      if (e == 0 || e == 2047) {  // subnormals and zero; Inf and NaN
        b.bin = e == 0 ? 0 : kBins - 1;
        continue;
      }
      const double low = std::ldexp(1.0, e - 1023), high = 2.0 * low;
      b.bin = slow_bin(low);
      for (double power : powers)
        if (power > low && power < high) b.next_power = power;
    }
    return binades;
  }();
  return table;
}

GrowthMonitor::GrowthMonitor(const MonitorOptions& options, double t_start, double t_end,
                             std::size_t steps, Watched watched)
    : options_(options), watched_(watched), t_start_(t_start), t_end_(t_end) {
  const std::size_t limit = std::max<std::size_t>(options.history_limit, 2);
  while (steps / stride_ >= limit) stride_ *= 2;
  for (std::vector<double>* v : {&times_, &squares_, &gradient_norms_})
    v->reserve(std::min(limit, steps + 1));
  std::vector<double>& times = histograms_.interval_times;
  times.push_back(t_start);
  for (double t : options.interval_times)
    if (t > times.back() && t < t_end) times.push_back(t);
  times.push_back(t_end);
  interval_ = watched == Watched::adjoint ? times.size() - 2 : 0;
  histograms_.counts.assign((times.size() - 1) * MagnitudeHistograms::kBins, 0);
}

void GrowthMonitor::keep(double t, double squares, double gradient_norm) {
  times_.push_back(t);
  squares_.push_back(squares);
  gradient_norms_.push_back(gradient_norm);
  if (times_.size() < std::max<std::size_t>(options_.history_limit, 2)) return;
  // Keep every other point from now on, and thin what is kept alike.
  for (std::vector<double>* v : {&times_, &squares_, &gradient_norms_}) {
    for (std::size_t i = 0; 2 * i < v->size(); ++i) (*v)[i] = (*v)[2 * i];
    v->resize((v->size() + 1) / 2);
  }
  stride_ *= 2;
}

GrowthReport GrowthMonitor::report() const {
  GrowthReport r;
  r.watched = watched_;
  r.times = times_;
  r.gradient_norm = gradient_norms_;
  r.histograms = histograms_;
  for (double squares : squares_) r.log_adjoint_norm.push_back(0.5 * std::log(squares));
  if (first_squares_ > 0.0) r.amplification = std::sqrt(last_squares_ / first_squares_);
  // Time in the sweep's direction and log-norm of the points where the norm is nonzero.
  std::vector<double> s, y;
  for (std::size_t k = 0; k < r.times.size(); ++k)
    if (std::isfinite(r.log_adjoint_norm[k])) {
      s.push_back(watched_ == Watched::adjoint ? t_end_ - r.times[k] : r.times[k] - t_start_);
      y.push_back(r.log_adjoint_norm[k]);
    }
  if (s.size() >= 2) {
    r.span = s.back() - s.front();
    // Window medians, in windows of equal time.
    const std::size_t windows = std::max<std::size_t>(options_.windows, 2);
    std::vector<double> window_s, window_y, in_s, in_y;
    std::size_t k = 0;
    for (std::size_t w = 0; w < windows; ++w) {
      const double upper = s.front() + r.span * double(w + 1) / double(windows);
      in_s.clear();
      in_y.clear();
      while (k < s.size() && (s[k] <= upper || w + 1 == windows)) {
        in_s.push_back(s[k]);
        in_y.push_back(y[k]);
        ++k;
      }
      if (in_s.empty()) continue;
      window_s.push_back(median(in_s));
      window_y.push_back(median(in_y));
    }
    r.growth_rate = theil_sen_slope(window_s, window_y);
  }
  r.fitted_amplification = std::exp(r.growth_rate * r.span);
  const double allowed = std::log(1.0 / options_.tolerance);
  if (r.growth_rate > 0.0) r.horizon = allowed / r.growth_rate;
  const double growth = r.growth_rate * r.span;
  r.verdict = r.growth_rate > 0.0 && growth > allowed ? GrowthVerdict::chaotic_divergence
              : r.growth_rate > 0.0 && growth > std::log(options_.growing_amplification)
                  ? GrowthVerdict::growing
                  : GrowthVerdict::stable;
  r.explanation = explain(r, options_.tolerance);
  return r;
}

double theil_sen_slope(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> slopes;
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = i + 1; j < x.size(); ++j)
      if (x[j] != x[i]) slopes.push_back((y[j] - y[i]) / (x[j] - x[i]));
  return slopes.empty() ? 0.0 : median(std::move(slopes));
}

}  // namespace backsweep
