#include "fit/experiment_results.hpp"

#include <algorithm>
#include <new>
#include <stdexcept>

#include "platform/byte_pack.hpp"
#include "platform/rank_exchange.hpp"
#include "platform/ranks.hpp"

namespace backsweep {

namespace {

// Declared first: the optional's operators below call them.
BytePacker& operator<<(BytePacker& out, const FitSolveFailure& failure);
ByteUnpacker& operator>>(ByteUnpacker& in, FitSolveFailure& failure);
BytePacker& operator<<(BytePacker& out, const OptionRefusal& refusal);
ByteUnpacker& operator>>(ByteUnpacker& in, OptionRefusal& refusal);

BytePacker& operator<<(BytePacker& out, const GrowthReport& report) {
  return out << report.watched << report.verdict << report.growth_rate << report.amplification
             << report.fitted_amplification << report.horizon << report.span << report.explanation;
}

ByteUnpacker& operator>>(ByteUnpacker& in, GrowthReport& report) {
  return in >> report.watched >> report.verdict >> report.growth_rate >> report.amplification >>
         report.fitted_amplification >> report.horizon >> report.span >> report.explanation;
}

BytePacker& operator<<(BytePacker& out, const NonFinite& where) {
  return out << where.phase << where.step << where.component << where.time << where.after << where.cause;
}

ByteUnpacker& operator>>(ByteUnpacker& in, NonFinite& where) {
  return in >> where.phase >> where.step >> where.component >> where.time >> where.after >> where.cause;
}

// An optional as a flag, then its value.
template <class T>
BytePacker& operator<<(BytePacker& out, const std::optional<T>& value) {
  out << value.has_value();
  if (value) out << *value;
  return out;
}

template <class T>
ByteUnpacker& operator>>(ByteUnpacker& in, std::optional<T>& value) {
  bool present = false;
  in >> present;
  value.reset();
  if (present) in >> value.emplace();
  return in;
}

BytePacker& operator<<(BytePacker& out, const FitSolveFailure& failure) {
  return out << failure.experiment << failure.message << failure.nonfinite;
}

ByteUnpacker& operator>>(ByteUnpacker& in, FitSolveFailure& failure) {
  return in >> failure.experiment >> failure.message >> failure.nonfinite;
}

BytePacker& operator<<(BytePacker& out, const OptionRefusal& refusal) { return out << refusal.key << refusal.problem; }

ByteUnpacker& operator>>(ByteUnpacker& in, OptionRefusal& refusal) { return in >> refusal.key >> refusal.problem; }

}  // namespace

bool solves_here(std::size_t index) { return index % std::size_t(ranks::count()) == std::size_t(ranks::rank()); }

void ExperimentResult::rethrow() const {
  if (thrown_here) std::rethrow_exception(thrown_here);
  if (thrown == kOutOfMemory) throw std::bad_alloc();
  if (!thrown.empty()) throw std::runtime_error(thrown);
}

void share_results(std::vector<ExperimentResult>& results, const std::vector<std::size_t>& here) {
  BytePacker out;
  for (std::size_t j : here) {
    const ExperimentResult& r = results[j];
    out << j << r.value << r.dJ_dp << r.monitor << r.failure << r.refused << r.invalid_options << r.thrown;
  }
  const std::vector<std::string> parts = ranks::exchange(out.bytes());
  for (std::size_t rank = 0; rank < parts.size(); ++rank) {
    if (int(rank) == ranks::rank()) continue;
    ByteUnpacker in(parts[rank]);
    while (!in.done()) {
      std::size_t j = 0;
      in >> j;
      ExperimentResult& r = results.at(j);
      in >> r.value >> r.dJ_dp >> r.monitor >> r.failure >> r.refused >> r.invalid_options >> r.thrown;
    }
  }
}

bool share_rows(std::vector<double>& values, std::size_t width, const std::vector<std::vector<std::size_t>>& rows,
                const std::vector<bool>& solved, std::size_t& failed, std::string& failure, bool threw) {
  BytePacker out;
  out << failed << (failed < rows.size() ? failure : std::string()) << threw;
  for (std::size_t e = 0; e < rows.size(); ++e) {
    if (!solved[e]) continue;
    out << e;
    for (std::size_t k : rows[e]) out << std::vector<double>(values.begin() + std::ptrdiff_t(k * width),
                                                             values.begin() + std::ptrdiff_t((k + 1) * width));
  }
  const std::vector<std::string> parts = ranks::exchange(out.bytes());
  for (std::size_t rank = 0; rank < parts.size(); ++rank) {
    if (int(rank) == ranks::rank()) continue;
    ByteUnpacker in(parts[rank]);
    std::size_t their_failed = 0;
    std::string their_failure;
    bool they_threw = false;
    in >> their_failed >> their_failure >> they_threw;
    if (their_failed < failed) {
      failed = their_failed;
      failure = their_failure;
      threw = they_threw;
    }
    while (!in.done()) {
      std::size_t e = 0;
      in >> e;
      for (std::size_t k : rows.at(e)) {
        std::vector<double> row;
        in >> row;
        if (row.size() != width) throw std::length_error("a shared row of the wrong width");
        std::copy(row.begin(), row.end(), values.begin() + std::ptrdiff_t(k * width));
      }
    }
  }
  return threw;
}

}  // namespace backsweep
