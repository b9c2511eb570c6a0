// The CUDA source generated from grid equations (cuda_kernel_source.hpp) compiles with
// nvcc's warnings as errors, for every operator on every kind of wall in 1 to 3 axes and
// over the whole expression language, and exports the launchers the CUDA backend loads.
// No GPU is needed: what the kernels compute is checked on one (tests/gpu/equations_cuda.cu).
#include "models/cuda_kernel_source.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "models/expression_model.hpp"
#include "platform/native_library.hpp"
#include "tests/models/expression_language.hpp"

using namespace backsweep;

namespace {

// Hopper's code, warnings as errors, into a cache folder of this test's own.
CompilerOptions strict_nvcc() {
  CompilerOptions options;
  options.cache = std::filesystem::temp_directory_path() / ("backsweep_cuda_source_test_" + std::to_string(::getpid()));
  options.compiler = BACKSWEEP_SYSTEM_NVCC;
  options.flags = {"-std=c++17", "-O1", "-arch=sm_90", "-fmad=false", "-Xcompiler=-fPIC", "-shared",
                   "-Werror=all-warnings"};
  options.language = "cu";
  return options;
}

void check_compiles(const std::vector<Grid>& grids, const std::vector<std::vector<std::string>>& equations) {
  for (const Grid& grid : grids)
    for (const std::vector<std::string>& pair : equations) {
      CAPTURE(grid.axes());
      CAPTURE(pair.front());
      const ExpressionModel model =
          ExpressionModel::parse(FieldEquations(grid, {"u", "v"}, {"k"}, 2), {"a", "b"}, pair);
      try {
        const NativeLibrary library = NativeLibrary::load(cuda_field_kernel_source(*model.fields(), model.program()),
                                                          strict_nvcc());
        for (const char* name : {"bs_cuda_rhs", "bs_cuda_vjp", "bs_cuda_vjp_scratch", "bs_cuda_error", "bs_abi_version"})
          CHECK(library.symbol(name) != nullptr);
      } catch (const NativeLibraryError& error) {
        FAIL(error.what());
      }
    }
}

}  // namespace

TEST_CASE("every operator on every kind of wall, 1 to 3 axes: the CUDA source compiles without a warning") {
  std::vector<Grid> grids;
  for (Boundary x : {Boundary::periodic, Boundary::dirichlet, Boundary::neumann})
    grids.emplace_back(std::vector<std::size_t>{5, 7}, std::vector<double>{1.0, 2.0},
                       std::vector<Boundary>{Boundary::neumann, x});
  grids.emplace_back(std::vector<std::size_t>{9}, std::vector<double>{1.0}, std::vector<Boundary>{Boundary::neumann});
  grids.emplace_back(std::vector<std::size_t>{3, 4, 6}, std::vector<double>{1.0, 1.5, 2.0},
                     std::vector<Boundary>{Boundary::dirichlet, Boundary::neumann, Boundary::periodic});
  check_compiles(grids, {{"a*lap(u) - u*v^2 + div_grad(k, v) + dx(u)*x + lap(k)", "b*dx(v) + div_grad(u, k) + dx(k)"},
                         {"u", "v"}});
}

TEST_CASE("the whole expression language: the CUDA source compiles without a warning") {
  const Grid grid({4, 6}, {1.0, 1.0}, {Boundary::neumann, Boundary::periodic});
  std::vector<std::vector<std::string>> equations;
  for (const std::string& term : testing::kExpressionLanguageTerms) equations.push_back({term, "lap(u) * (" + term + ")"});
  equations.push_back({"1/0 - 1/0 + 0/0", "u"});  // infinities and NaN as literals
  check_compiles({grid}, equations);
}
