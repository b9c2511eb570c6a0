// Stopping a run from outside (the Python module's Ctrl-C): while an InterruptOnSigint
// lives, a real SIGINT makes a gradient with a progress throw RunInterrupted at its next
// step, in the forward sweep or the backward one, and frees what it held (the sanitizer
// build checks); the handler before it is back afterwards, and a new run starts clean.
// Runs on other threads are not stopped.
#include "platform/interrupt.hpp"

#include <doctest/doctest.h>

#include <signal.h>

#include <thread>

#include "adjoint/discrete_adjoint.hpp"
#include "models/builtin/registry.hpp"

using namespace backsweep;

namespace {

struct Terminal {
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[2];
  }
};

GradientProblem<models::Lorenz63, Objective<Terminal>> lorenz(const models::Lorenz63& model, RunProgress* progress) {
  IntegrateOptions options;
  options.t1 = 2.0;
  options.step = 1e-3;
  options.progress = progress;
  return {model,
          tableaux::rk4,
          {models::Lorenz63::default_initial.begin(), models::Lorenz63::default_initial.end()},
          {models::Lorenz63::default_params.begin(), models::Lorenz63::default_params.end()},
          {},
          options};
}

}  // namespace

TEST_CASE("SIGINT stops a gradient in either sweep, and the handler before is put back") {
  const models::Lorenz63 model;
  struct sigaction before {};
  ::sigaction(SIGINT, nullptr, &before);
  for (const bool in_forward : {true, false}) {
    CAPTURE(in_forward);
    RunProgress progress;
    auto problem = lorenz(model, &progress);
    int steps = 0;
    const auto raise_at_100 = [&](double, const double*) {
      if (++steps == 100) ::raise(SIGINT);
    };
    if (in_forward)
      problem.forward_observer = raise_at_100;
    else
      problem.adjoint_observer = raise_at_100;
    {
      const InterruptOnSigint sigint;
      CHECK_THROWS_AS(gradient<double>(problem, problem.y0, problem.p), RunInterrupted);
      CHECK(steps <= 101);  // stopped at once, not at the end
    }
    struct sigaction after {};
    ::sigaction(SIGINT, nullptr, &after);
    CHECK(bool(after.sa_handler == before.sa_handler));
  }
  // The next run starts with nothing asked of it; one without a progress is never stopped.
  RunProgress progress;
  auto problem = lorenz(model, &progress);
  {
    const InterruptOnSigint sigint;
    CHECK(gradient<double>(problem, problem.y0, problem.p).ok());
    request_interrupt();
    problem.integrate.progress = nullptr;
    CHECK(gradient<double>(problem, problem.y0, problem.p).ok());
  }
}

TEST_CASE("SIGINT stops the run of the thread that took it over, not runs on other threads") {
  const models::Lorenz63 model;
  const InterruptOnSigint sigint;
  ::raise(SIGINT);
  CHECK(sigint.requested());
  RunProgress progress;
  auto problem = lorenz(model, &progress);
  CHECK_THROWS_AS(gradient<double>(problem, problem.y0, problem.p), RunInterrupted);
  bool other_ok = false, other_asked = true;
  std::thread other([&] {
    RunProgress its_progress;
    auto its_problem = lorenz(model, &its_progress);
    other_asked = this_threads_stop_request().requested();
    other_ok = gradient<double>(its_problem, its_problem.y0, its_problem.p).ok();
  });
  other.join();
  CHECK(!other_asked);
  CHECK(other_ok);
  CHECK(this_threads_stop_request().requested());  // and a copy taken here asks wherever it goes
}
