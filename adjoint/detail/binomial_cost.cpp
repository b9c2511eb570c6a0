#include "adjoint/detail/binomial_cost.hpp"

#include <algorithm>
#include <limits>

namespace backsweep::detail {

namespace {
__extension__ typedef unsigned __int128 uint128;  // exact intermediate products
}

std::uint64_t BinomialCost::cost(std::uint64_t l, std::uint64_t s) {
  if (l <= 1) return 0;
  if (s == 0) return std::numeric_limits<std::uint64_t>::max();  // impossible
  if (s + 1 >= l) return l - 1;
  const std::vector<std::uint64_t>& beta = table(s, l);
  // t: the least with beta(s, t) >= l.
  const auto t = std::uint64_t(std::lower_bound(beta.begin(), beta.end(), l) - beta.begin());
  // C(s + t, s + 1) = C(s + t, s) t / (s + 1), exactly.
  const auto next = static_cast<std::uint64_t>(uint128(beta[t]) * t / (s + 1));
  return t * l - next;
}

// P is convex in l (piecewise linear with slopes t that grow), so the objective is convex
// in m: binary search on its forward difference.
std::uint64_t BinomialCost::best_split(std::uint64_t l, std::uint64_t s) {
  auto total = [&](std::uint64_t m) { return m + cost(l - m, s - 1) + cost(m, s); };
  std::uint64_t low = 1, high = l - 1;
  while (low < high) {
    const std::uint64_t mid = low + (high - low) / 2;
    if (total(mid + 1) >= total(mid)) high = mid;
    else low = mid + 1;
  }
  return low;
}

const std::vector<std::uint64_t>& BinomialCost::table(std::uint64_t s, std::uint64_t l) {
  if (tables_.size() <= s) tables_.resize(s + 1);
  std::vector<std::uint64_t>& beta = tables_[s];
  if (beta.empty()) beta.push_back(1);
  while (beta.back() < l) {
    const std::uint64_t t = beta.size();
    beta.push_back(static_cast<std::uint64_t>(uint128(beta.back()) * (s + t) / t));
  }
  return beta;
}

}  // namespace backsweep::detail
