// Equations compiled to native kernels at run time, against the interpreter they are
// generated from: on a grid right-hand sides bitwise and VJPs to round-off on every
// operator, every kind of wall, 1 to 3 axes and the whole expression language, an ODE's
// both bitwise over the whole language; the same bits on one thread
// or two; and every way the compiler or its cache can fail ends in NativeLibraryError
// (callers then keep the interpreter), never in a crash, a hang or a wrong kernel.
#include "models/compiled_kernel.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "models/expression_model.hpp"
#include "models/field_point_source.hpp"
#include "models/operator_adjoints.hpp"
#include "tests/models/expression_language.hpp"

using namespace backsweep;
namespace fs = std::filesystem;

namespace {

// A cache folder of this test's own, emptied first.
CompilerOptions fresh_cache(const std::string& name) {
  CompilerOptions options;
  options.cache = fs::temp_directory_path() / ("backsweep_compiled_kernel_test_" + std::to_string(::getpid())) / name;
  fs::remove_all(options.cache);
  return options;
}

std::vector<double> wavy(std::size_t n, double phase, double base = 1.5) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = std::sin(0.7 * double(i) + phase) * 0.4 + base;
  return v;
}

double largest_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double largest = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    largest = std::max(largest, std::abs(a[i] - b[i]) / std::max(1.0, std::abs(b[i])));
  return largest;
}

ExpressionModel grid_model(const Grid& grid, const std::vector<std::string>& equations, std::size_t fields = 2) {
  const std::vector<std::string> names = fields == 2 ? std::vector<std::string>{"u", "v"} : std::vector<std::string>{"u"};
  return ExpressionModel::parse(FieldEquations(grid, names, {"k"}, 2), {"a", "b"}, equations);
}

// The compiled model against the interpreted one: values bitwise, VJP to round-off.
void check_against_interpreter(const ExpressionModel& interpreted, const CompilerOptions& options, int threads = 1) {
  ExpressionModel compiled = interpreted;
  compiled.compile(options, threads);
  REQUIRE(compiled.compiled());
  const std::size_t n = interpreted.state_size(), np = interpreted.param_size();
  const auto y = wavy(n, 0.4), p = wavy(np, 1.3, 0.8), lambda = wavy(n, -0.6, 0.2);
  std::vector<double> ours(n), theirs(n);
  compiled(0.3, y.data(), p.data(), ours.data());
  interpreted(0.3, y.data(), p.data(), theirs.data());
  for (std::size_t i = 0; i < n; ++i) {
    CAPTURE(i);
    if (std::isnan(theirs[i])) CHECK(std::isnan(ours[i]));
    else CHECK(ours[i] == theirs[i]);
  }
  std::vector<double> vjp_ours(n + np), vjp_theirs(n + np);
  ExpressionModel::Tape<double> tape_ours, tape_theirs;
  compiled.vjp(tape_ours, 0.3, y.data(), p.data(), lambda.data(), vjp_ours.data(), vjp_ours.data() + n);
  interpreted.vjp(tape_theirs, 0.3, y.data(), p.data(), lambda.data(), vjp_theirs.data(), vjp_theirs.data() + n);
  CHECK(largest_difference(vjp_ours, vjp_theirs) <= 1e-13);
  // Without the parameters' adjoint, the state's is the same.
  std::vector<double> y_only(n);
  compiled.vjp(tape_ours, 0.3, y.data(), p.data(), lambda.data(), y_only.data(), static_cast<double*>(nullptr));
  CHECK(std::equal(y_only.begin(), y_only.end(), vjp_ours.begin()));
}

std::vector<Grid> grids() {
  std::vector<Grid> all;
  for (Boundary x : {Boundary::periodic, Boundary::dirichlet, Boundary::neumann})
    for (Boundary y : {Boundary::periodic, Boundary::dirichlet, Boundary::neumann}) {
      all.emplace_back(std::vector<std::size_t>{5, 7}, std::vector<double>{1.0, 2.0}, std::vector<Boundary>{y, x});
    }
  all.emplace_back(std::vector<std::size_t>{9}, std::vector<double>{1.0}, std::vector<Boundary>{Boundary::neumann});
  all.emplace_back(std::vector<std::size_t>{2}, std::vector<double>{1.0}, std::vector<Boundary>{Boundary::periodic});
  all.emplace_back(std::vector<std::size_t>{1, 3}, std::vector<double>{1.0, 1.0},
                   std::vector<Boundary>{Boundary::neumann, Boundary::dirichlet});
  all.emplace_back(std::vector<std::size_t>{3, 4, 6}, std::vector<double>{1.0, 1.5, 2.0},
                   std::vector<Boundary>{Boundary::dirichlet, Boundary::neumann, Boundary::periodic});
  return all;
}

void write_script(const fs::path& path, const std::string& body) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  fs::permissions(path, fs::perms::owner_all);
}

}  // namespace

// Whether the compiled VJP runs in one pass (each operator's adjoint recomputed at the
// neighbours), else slab by slab through buffers.
bool one_pass(const ExpressionModel& model) { return detail::field_vjp_in_one_pass(*model.fields(), model.program()); }

TEST_CASE("every operator on every wall, 1 to 3 axes: compiled = interpreted, in one pass and through buffers") {
  const CompilerOptions options = fresh_cache("operators");
  for (const Grid& grid : grids()) {
    CAPTURE(grid.axes());
    CAPTURE(to_string(grid.boundary().back()));
    CAPTURE(to_string(grid.boundary().front()));
    const std::string last = grid.axes() == 1 ? "x" : "y";
    const std::string d_last = grid.axes() == 1 ? "dx(v)" : "dy(v)";
    // An operator times a coordinate: its adjoint at a neighbour needs the neighbour's
    // coordinate, so buffers.
    const ExpressionModel buffered = grid_model(grid, {"a*lap(u) - u*v^2 + div_grad(k, v) + dx(u)*x + lap(k)",
                                                       "b*" + d_last + " + div_grad(u, k) + div_grad(v, u) + dx(k)*" + last});
    CHECK_FALSE(one_pass(buffered));
    check_against_interpreter(buffered, options);
    // Every operator's adjoint from its point alone: one pass, parameters' adjoints of
    // a*lap(u), b*dx(u) and b*d(v) through the transposes' symmetry.
    const ExpressionModel once = grid_model(grid, {"a*lap(u) - u*v^2 + div_grad(k, v) + b*dx(u) + lap(k)",
                                                   "b*" + d_last + " + div_grad(u, k) + div_grad(v, u) + k*dx(k) + lap(v)*u"});
    CHECK(one_pass(once));
    check_against_interpreter(once, options);
  }
}

TEST_CASE("an operator's adjoint is local where it reads nothing but the point's own inputs") {
  const Grid grid({5, 7}, {1.0, 2.0}, {Boundary::neumann, Boundary::periodic});
  const auto adjoints = [&](const std::string& equation) {
    const ExpressionModel model = grid_model(grid, {equation, "v"});
    return detail::operator_adjoints(model.program(), model.fields()->operators().size());
  };
  auto scaled = adjoints("a*lap(u) - u*v^2");
  REQUIRE(scaled.size() == 1);
  CHECK(scaled[0].local);
  REQUIRE(scaled[0].scaled);
  CHECK(scaled[0].scaled->parameter == 0);
  for (const char* local : {"k*lap(u)", "lap(u)*a + lap(u)", "exp(u)*lap(u)", "if(u > v, lap(u), 0)"}) {
    CAPTURE(std::string(local));
    const auto found = adjoints(local);
    CHECK(found[0].local);
    CHECK_FALSE(found[0].scaled);
  }
  // An operator's value, a coordinate, a branch on an operator: some adjoint not local.
  for (const char* other : {"lap(u)^2", "x*lap(u)", "lap(u)*lap(v)", "if(lap(v) > 0, lap(u), 0)", "min(lap(u), v)"}) {
    CAPTURE(std::string(other));
    const auto found = adjoints(other);
    CHECK_FALSE(std::all_of(found.begin(), found.end(), [](const detail::OperatorAdjoint& o) { return o.local; }));
  }
}

TEST_CASE("the whole expression language: compiled = interpreted") {
  const CompilerOptions options = fresh_cache("language");
  const Grid grid({4, 6}, {1.0, 1.0}, {Boundary::neumann, Boundary::periodic});
  for (const std::string& term : testing::kExpressionLanguageTerms) {
    CAPTURE(term);
    check_against_interpreter(grid_model(grid, {term, "lap(u) * (" + term + ")"}), options);
  }
}

TEST_CASE("an ODE over the whole expression language: compiled = interpreted, values and VJP bitwise") {
  const CompilerOptions options = fresh_cache("ode");
  for (const std::string& term : testing::kExpressionLanguageTerms) {
    CAPTURE(term);
    const ExpressionModel interpreted =
        ExpressionModel::parse({"u", "v"}, {"k", "a", "b"}, {term, "u*v - (" + term + ")/k"});
    ExpressionModel compiled = interpreted;
    compiled.compile(options);
    REQUIRE(compiled.compiled());
    const std::vector<double> y{1.7, 1.2}, p{0.9, 1.3, -0.4}, lambda{0.6, -1.1};
    std::vector<double> ours(2), theirs(2), vjp_ours(5), vjp_theirs(5);
    compiled(0.3, y.data(), p.data(), ours.data());
    interpreted(0.3, y.data(), p.data(), theirs.data());
    ExpressionModel::Tape<double> tape;
    compiled.vjp(tape, 0.3, y.data(), p.data(), lambda.data(), vjp_ours.data(), vjp_ours.data() + 2);
    interpreted.vjp(tape, 0.3, y.data(), p.data(), lambda.data(), vjp_theirs.data(), vjp_theirs.data() + 2);
    ours.insert(ours.end(), vjp_ours.begin(), vjp_ours.end());
    theirs.insert(theirs.end(), vjp_theirs.begin(), vjp_theirs.end());
    for (std::size_t i = 0; i < ours.size(); ++i) {
      CAPTURE(i);
      if (std::isnan(theirs[i])) CHECK(std::isnan(ours[i]));
      else CHECK(ours[i] == theirs[i]);
    }
  }
}

TEST_CASE("one thread or two: the same bits") {
  const Grid grid({16, 9}, {1.0, 1.0}, {Boundary::periodic, Boundary::dirichlet});
  const ExpressionModel model = grid_model(grid, {"a*lap(u) - u*v^2 + div_grad(k, u)", "b*lap(v) + u*v^2"});
  ExpressionModel one = model, two = model;
  const CompilerOptions options = fresh_cache("threads");
  one.compile(options, 1);
  two.compile(options, 2);
  CHECK_FALSE(two.compiled()->compile_seconds() > 0);  // the same library, from the cache
  const std::size_t n = model.state_size(), np = model.param_size();
  const auto y = wavy(n, 0.1), p = wavy(np, 0.2), lambda = wavy(n, 0.3);
  std::vector<double> a(n + np), b(n + np);
  ExpressionModel::Tape<double> tape;
  one.vjp(tape, 0.0, y.data(), p.data(), lambda.data(), a.data(), a.data() + n);
  two.vjp(tape, 0.0, y.data(), p.data(), lambda.data(), b.data(), b.data() + n);
  CHECK(a == b);
}

TEST_CASE("a compiler that is missing, fails, dies or hangs: NativeLibraryError, and the model keeps the interpreter") {
  const Grid grid({4, 4}, {1.0, 1.0}, {Boundary::periodic, Boundary::periodic});
  ExpressionModel model = grid_model(grid, {"lap(u)", "lap(v) + u"});
  CompilerOptions options = fresh_cache("faults");
  const fs::path scripts = options.cache.parent_path() / "compilers";
  write_script(scripts / "failing", "echo 'error: no' >&2; exit 3");
  write_script(scripts / "dying", "kill -9 $$");
  write_script(scripts / "hanging", "exec sleep 30");
  write_script(scripts / "silent", "exit 0");  // succeeds, writes no library
  const std::vector<std::pair<std::string, std::string>> cases{{"/nonexistent/c++", "not found"},
                                                               {"no-such-compiler-here", "not found on PATH"},
                                                               {(scripts / "failing").string(), "failed (exit 3): error: no"},
                                                               {(scripts / "dying").string(), "killed by signal 9"},
                                                               {(scripts / "hanging").string(), "past its limit"},
                                                               {(scripts / "silent").string(), ""}};
  options.time_limit = std::chrono::seconds(1);
  for (const auto& [compiler, says] : cases) {
    CAPTURE(compiler);
    options.compiler = compiler;
    try {
      model.compile(options);
      FAIL("compiled with a compiler that cannot");
    } catch (const NativeLibraryError& error) {
      CHECK(std::string(error.what()).find(says) != std::string::npos);
    }
    CHECK_FALSE(model.compiled());
  }
  // Nothing half-written is left to be found as a library.
  for (const auto& entry : fs::directory_iterator(options.cache)) CHECK(entry.path().extension() != ".so");
}

TEST_CASE("a cache that cannot be written, or holds a corrupted entry") {
  const Grid grid({4, 4}, {1.0, 1.0}, {Boundary::periodic, Boundary::neumann});
  ExpressionModel model = grid_model(grid, {"lap(u) - v", "lap(v) + u*k"});
  CompilerOptions options = fresh_cache("corrupt");
  fs::create_directories(options.cache.parent_path());
  std::ofstream(options.cache.parent_path() / "a_file") << "not a folder";
  CompilerOptions unwritable = options;
  unwritable.cache = options.cache.parent_path() / "a_file" / "kernels";
  CHECK_THROWS_AS(model.compile(unwritable), NativeLibraryError);

  model.compile(options);
  CHECK(model.compiled()->compile_seconds() > 0);
  fs::path library;
  for (const auto& entry : fs::directory_iterator(options.cache))
    if (entry.path().extension() == ".so") library = entry.path();
  REQUIRE(!library.empty());
  {  // truncated, as a disk or another program may leave it (a new file: this process maps the old one)
    std::ifstream in(library, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(library.string() + ".cut", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    fs::rename(library.string() + ".cut", library);
  }
  ExpressionModel again = grid_model(grid, {"lap(u) - v", "lap(v) + u*k"});
  again.compile(options);
  CHECK(again.compiled()->compile_seconds() > 0);
  ExpressionModel cached = grid_model(grid, {"lap(u) - v", "lap(v) + u*k"});
  cached.compile(options);
  CHECK(cached.compiled()->compile_seconds() == 0);
  check_against_interpreter(cached, options);
}

TEST_CASE("two processes building one kernel at once both get it") {
  const Grid grid({5, 5}, {1.0, 1.0}, {Boundary::dirichlet, Boundary::periodic});
  const CompilerOptions options = fresh_cache("concurrent");
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  bool built = false;
  try {
    ExpressionModel model = grid_model(grid, {"lap(u) * exp(-t)", "lap(v) - u"});
    model.compile(options);
    built = model.compiled() != nullptr;
  } catch (...) {
  }
  if (child == 0) ::_exit(built ? 0 : 1);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(built);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  check_against_interpreter(grid_model(grid, {"lap(u) * exp(-t)", "lap(v) - u"}), options);
  fs::remove_all(options.cache.parent_path());
}
