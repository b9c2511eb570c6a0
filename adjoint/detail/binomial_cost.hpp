#pragma once
// The optimal cost P(l, s) of reversing l steps from a stored state with s slots (the
// stored state's own included), in forward steps, the first sweep included (Griewank and
// Walther), and the split that achieves it. Tables of beta(s, t) = C(s + t, s) are built
// once per s, up to the largest l asked for.
#include <cstdint>
#include <vector>

namespace backsweep::detail {

class BinomialCost {
 public:
  std::uint64_t cost(std::uint64_t l, std::uint64_t s);

  // The split m (steps to advance before the next store) minimising
  // m + P(l - m, s - 1) + P(m, s).
  std::uint64_t best_split(std::uint64_t l, std::uint64_t s);

 private:
  const std::vector<std::uint64_t>& table(std::uint64_t s, std::uint64_t l);
  std::vector<std::vector<std::uint64_t>> tables_;
};

}  // namespace backsweep::detail
