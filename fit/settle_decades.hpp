#pragma once
// How far settle() (fit/steady_state.hpp) looks for a steady state: spans growing tenfold
// from the start, up to 10^kSettleDecades after it. A model that has not settled by then
// has no steady state (or an unstable one).

namespace backsweep {

inline constexpr int kSettleDecades = 8;

}  // namespace backsweep
