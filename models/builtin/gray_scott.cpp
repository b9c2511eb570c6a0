#include "models/builtin/gray_scott.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "models/avx2_clone.hpp"

namespace backsweep::models {

namespace {

// The last-level cache a core shares (Linux says, as "32768K"; sysconf's figure can be a
// whole socket's), else 32 MiB.
std::size_t last_level_cache_bytes() {
  std::ifstream file("/sys/devices/system/cpu/cpu0/cache/index3/size");
  std::size_t size = 0;
  char unit = 0;
  if (file >> size >> unit && size > 0) return size << (unit == 'M' ? 20 : unit == 'K' ? 10 : 0);
  return std::size_t(32) << 20;
}

// Whether a pass that touches `bytes` should stream its results past the caches: when
// they would not stay there anyway (more than half the last-level cache; where that cache
// is shared by many cores, sooner would do). Only x86-64 has the streaming stores.
bool streams(std::size_t bytes) {
#if defined(__x86_64__)
  static const std::size_t cache = last_level_cache_bytes();
  return bytes > cache / 2;
#else
  (void)bytes;
  return false;
#endif
}

// Stores `count` values by non-temporal stores where x86-64 has them (16-byte aligned).
struct StreamOut {
  void operator()(double* out, const double* in, std::size_t count) const {
    std::size_t j = 0;
#if defined(__x86_64__)
    if (count > 0 && reinterpret_cast<std::uintptr_t>(out) % 16 != 0) out[j] = in[j], ++j;
    for (; j + 2 <= count; j += 2) _mm_stream_pd(out + j, _mm_loadu_pd(in + j));
#endif
    for (; j < count; ++j) out[j] = in[j];
  }
  // Streamed stores are weakly ordered: they reach memory before any other thread reads.
  static void fence() {
#if defined(__x86_64__)
    _mm_sfence();
#endif
  }
};

}  // namespace

// Built twice, for baseline x86-64 and for AVX2 (at 512^2 the kernels run 1.5 times as
// fast).
BACKSWEEP_AVX2_CLONE
void gray_scott_rates(const Grid& grid, const PlaneRange<double, 2>& planes, const double* y, const double* p,
                      double* dydt) {
  if (!streams(4 * sizeof(double) * planes.count * plane_points(grid)))
    return GrayScott::rates(grid, planes, y, p, dydt);
  GrayScott::rates(grid, planes, y, p, dydt, StreamOut{});
  StreamOut::fence();
}

void gray_scott_rates(const Grid& grid, const double* y, const double* p, double* dydt) {
  gray_scott_rates(grid, all_planes<double, 2>(grid), y, p, dydt);
}

namespace {

// The VJP over a block's planes; row_sum(row, sums) takes each x row's four dJ/dp sums in
// order. Each sum runs in four lanes, by the point's x index mod 4, and a row's lanes fold
// as (0 + 1) + (2 + 3): an order fixed here, not by the vector width the build or the CPU
// has, that the device kernels repeat (gpu/gray_scott_device.hpp), so cpu = omp bitwise.
template <class RowSum>
void vjp_rows(const Grid& grid, const PlaneRange<double, 2>& lambda_planes, const double* y, const double* p,
              const double* lambda, double* vjp_y, RowSum&& row_sum) {
  const std::size_t n = lambda_planes.count * plane_points(grid), nx = grid.size(grid.axes() - 1);
  const bool stream = streams(6 * sizeof(double) * n);
  const double d1 = p[0], d2 = p[1], gamma = p[2], decay = p[2] + p[3];
  double lanes[4][4] = {};  // the row's, [parameter][x mod 4]
  double buffer[2][kLaplacianBlock];
  for_each_laplacian_block<2, double>(
      grid, lambda_planes, {lambda, lambda + n},
      [&](std::size_t first, std::size_t count, const std::array<const double*, 2>& lap) {
        const double* __restrict u = y + first;
        const double* __restrict v = y + n + first;
        const double* __restrict lu = lambda + first;
        const double* __restrict lv = lambda + n + first;
        double* __restrict vjp_u = stream ? buffer[0] : vjp_y + first;
        double* __restrict vjp_v = stream ? buffer[1] : vjp_y + n + first;
#pragma omp simd
        for (std::size_t j = 0; j < count; ++j) {
          const double vv = v[j] * v[j], uv2 = 2.0 * u[j] * v[j];
          vjp_u[j] = d1 * lap[0][j] - lu[j] * (vv + gamma) + lv[j] * vv;
          vjp_v[j] = d2 * lap[1][j] + (lv[j] - lu[j]) * uv2 - lv[j] * decay;
        }
        // A block starts at a multiple of kLaplacianBlock in its row: j mod 4 is x mod 4. The
        // lanes are copied here, so that they stay in registers (a vector each).
        double dd1[4], dd2[4], dgamma[4], dkappa[4];
        for (std::size_t l = 0; l < 4; ++l)
          dd1[l] = lanes[0][l], dd2[l] = lanes[1][l], dgamma[l] = lanes[2][l], dkappa[l] = lanes[3][l];
        const auto add = [&](std::size_t j, std::size_t l) {
          dd1[l] += u[j] * lap[0][j];
          dd2[l] += v[j] * lap[1][j];
          dgamma[l] += lu[j] * (1.0 - u[j]) - lv[j] * v[j];
          dkappa[l] -= lv[j] * v[j];
        };
        std::size_t j = 0;
        for (; j + 4 <= count; j += 4)
#pragma omp simd
          for (std::size_t l = 0; l < 4; ++l) add(j + l, l);
        for (; j < count; ++j) add(j, j % 4);
        for (std::size_t l = 0; l < 4; ++l)
          lanes[0][l] = dd1[l], lanes[1][l] = dd2[l], lanes[2][l] = dgamma[l], lanes[3][l] = dkappa[l];
        if (stream) {
          StreamOut{}(vjp_y + first, vjp_u, count);
          StreamOut{}(vjp_y + n + first, vjp_v, count);
        }
        if ((first + count) % nx == 0) {  // the row's end
          double sums[4];
          for (int k = 0; k < 4; ++k) sums[k] = (lanes[k][0] + lanes[k][1]) + (lanes[k][2] + lanes[k][3]);
          row_sum(first / nx, sums);
          for (auto& parameter : lanes) parameter[0] = parameter[1] = parameter[2] = parameter[3] = 0.0;
        }
      });
  if (stream) StreamOut::fence();
}

}  // namespace

BACKSWEEP_AVX2_CLONE
void gray_scott_vjp(const Grid& grid, const PlaneRange<double, 2>& lambda_planes, const double* y, const double* p,
                    const double* lambda, double* vjp_y, double* row_sums) {
  vjp_rows(grid, lambda_planes, y, p, lambda, vjp_y, [&](std::size_t row, const double* sums) {
    if (row_sums) std::copy(sums, sums + 4, row_sums + 4 * row);
  });
}

BACKSWEEP_AVX2_CLONE
void gray_scott_vjp(const Grid& grid, const double* y, const double* p, const double* lambda, double* vjp_y,
                    double* vjp_p) {
  double total[4] = {0, 0, 0, 0};
  vjp_rows(grid, all_planes<double, 2>(grid), y, p, lambda, vjp_y, [&](std::size_t, const double* sums) {
    for (int j = 0; j < 4; ++j) total[j] += sums[j];
  });
  if (vjp_p) std::copy(total, total + 4, vjp_p);
}

}  // namespace backsweep::models
