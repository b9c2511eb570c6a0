// `mpirun -np N backsweep gradient` on a grid model's config (issue 32): the grid split
// into blocks of planes, a rank each, gives the gradient of one process without mpirun bit
// for bit (the objective, dJ/dy0 and dJ/dp in gradient.h5) for 1 to 4 ranks, 2-D
// Gray–Scott (periodic planes) and 3-D heat with a conductivity field (Dirichlet planes),
// as kernels and as equations run by their compiled kernels, under store_all, revolve and
// two-level (disk) checkpointing, the growth monitor's histograms too; the run says it
// split the grid. A split run that blows up names the NaN the run alone names, once; a
// rank out of memory mid-split ends every rank with its own message, once.
#include <doctest/doctest.h>
#include <hdf5.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/apps/run_cli.hpp"
#include "tests/h5_read.hpp"

namespace fs = std::filesystem;

namespace {

fs::path scratch() { return scratch_folder("mpi_grid_command"); }

std::string mpirun(int ranks) {
  return "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none " +
         std::string(BACKSWEEP_MPIEXEC) + " --oversubscribe -np " + std::to_string(ranks) + " ";
}

// The gradient gradient.h5 holds, as bytes: the objective and each dataset named.
std::string gradient_bits(const std::vector<std::string>& datasets) {
  const hid_t file = H5Fopen((scratch() / "out" / "gradient.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  double objective = 0.0;
  const hid_t attribute = H5Aopen(file, "objective", H5P_DEFAULT);
  CHECK(H5Aread(attribute, H5T_NATIVE_DOUBLE, &objective) >= 0);
  H5Aclose(attribute);
  std::string bits(reinterpret_cast<const char*>(&objective), sizeof objective);
  for (const std::string& name : datasets) {
    const std::vector<double> values = read_dataset(file, name.c_str());
    CHECK(!values.empty());
    bits.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
  }
  H5Fclose(file);
  return bits;
}

void check_split_over_ranks(const std::string& config, const std::vector<std::string>& datasets) {
  for (const char* schedule : {"", " --set checkpointing.schedule='\"revolve\"' --set checkpointing.slots=3",
                               " --set checkpointing.schedule='\"two_level\"' --set checkpointing.slots=2 "
                               "--set checkpointing.disk='\"20KiB\"'"}) {
    const std::string arguments = "gradient " + config + " --json" + schedule;
    CAPTURE(arguments);
    const CliRun alone = run_cli(arguments, scratch());
    INFO(alone.err);
    REQUIRE(alone.exit_code == 0);
    const std::string expected = gradient_bits(datasets);
    for (int ranks = 1; ranks <= 4; ++ranks) {
      CAPTURE(ranks);
      const CliRun split = run_cli(arguments, scratch(), mpirun(ranks));
      INFO(split.err);
      REQUIRE(split.exit_code == 0);
      const nlohmann::json json = nlohmann::json::parse(split.out);
      CHECK(json["ranks"] == ranks);
      if (ranks > 1) CHECK(json["split"] == "grid");
      CHECK(gradient_bits(datasets) == expected);
    }
  }
}

// The "error:" lines of a run's stderr.
std::vector<std::string> error_lines(const std::string& err) {
  std::vector<std::string> errors;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("error:")) errors.push_back(line);
  return errors;
}

const char* const kGrayScott =
    "[grid]\nshape = [24, 20]\nextent = [2.5, 2.5]\nboundary = [\"periodic\", \"neumann\"]\n"
    "[model]\nname = \"gray_scott\"\n[parameters]\nD1 = 8e-3\nD2 = 4e-3\n"
    "[initial]\nv = \"0.25*exp(-((x-1.2)^2 + (y-1.4)^2)/0.1)\"\nu = \"1 - 2*v\"\n"
    "[time]\nend = 8.0\n[solver]\nmethod = \"rk4\"\nstep = 0.2\n"
    "[objective]\nterminal = \"u[17, 5] + v[3, 9]^2\"\n[output]\ndir = \"out\"\n";

}  // namespace

TEST_CASE("a grid split over 1 to 4 ranks: Gray–Scott 2-D and heat 3-D with k, the gradient bitwise the run alone's") {
  std::ofstream(scratch() / "gray_scott.toml") << kGrayScott;
  check_split_over_ranks(
      "gray_scott.toml", {"gradient/initial/u", "gradient/initial/v", "gradient/parameters", "monitor/histograms/counts"});

  std::ofstream(scratch() / "heat.toml")
      << "[grid]\nshape = [9, 6, 5]\nextent = [1.0, 1.0, 1.0]\n"
         "boundary = [\"dirichlet\", \"neumann\", \"periodic\"]\n"
         "[model]\nname = \"heat\"\n[parameters]\nk = \"1 + 0.3*x*y - 0.2*z\"\n"
         "[initial]\nu = \"sin(3*x) * y + z\"\n"
         "[time]\nend = 0.06\n[solver]\nmethod = \"rk4\"\nstep = 1e-3\n"
         "[objective]\nterminal = \"u[6, 2, 3]^2 + u[1, 4, 0]\"\n[output]\ndir = \"out\"\n";
  check_split_over_ranks(
      "heat.toml", {"gradient/initial/u", "gradient/parameter_fields/k", "monitor/histograms/counts"});
}

TEST_CASE("equations run by compiled kernels split too: coordinates, products of operators, a parameter field") {
  // 2-D on periodic planes; the VJP slab by slab (operators' adjoints that read a
  // coordinate, another operator).
  std::ofstream(scratch() / "equations_2d.toml")
      << "[grid]\nshape = [24, 20]\nextent = [2.5, 2.5]\nboundary = [\"periodic\", \"neumann\"]\n"
         "[model]\nfields = [\"u\", \"v\"]\nparameters = [\"D1\", \"D2\", \"gamma\", \"kappa\"]\n"
         "[model.equations]\nu = \"D1*lap(u) - u*v^2 + gamma*(1 - u) + 0.01*sin(y)*dy(u)\"\n"
         "v = \"D2*lap(v) + u*v^2 - (gamma + kappa)*v + 0.02*dx(v)*dy(u)\"\n"
         "[parameters]\nD1 = 8e-3\nD2 = 4e-3\ngamma = 0.024\nkappa = 0.06\n"
         "[initial]\nv = \"0.25*exp(-((x-1.2)^2 + (y-1.4)^2)/0.1)\"\nu = \"1 - 2*v\"\n"
         "[time]\nend = 8.0\n[solver]\nmethod = \"rk4\"\nstep = 0.2\n"
         "[objective]\nterminal = \"u[17, 5] + v[3, 9]^2 + v[23, 0]\"\n[output]\ndir = \"out\"\n";
  check_split_over_ranks("equations_2d.toml", {"gradient/initial/u", "gradient/initial/v", "gradient/parameters"});

  // 3-D on Dirichlet planes, with a conductivity field: the VJP in one pass.
  std::ofstream(scratch() / "equations_3d.toml")
      << "[grid]\nshape = [9, 6, 5]\nextent = [1.0, 1.0, 1.0]\n"
         "boundary = [\"dirichlet\", \"neumann\", \"periodic\"]\n"
         "[model]\nfields = [\"u\"]\nparameter_fields = [\"k\"]\n"
         "[model.equations]\nu = \"div_grad(k, u) - 0.7*u*dx(u) + 0.1*x*z\"\n"
         "[parameters]\nk = \"1 + 0.3*x*y - 0.2*z\"\n[initial]\nu = \"sin(3*x) * y + z\"\n"
         "[time]\nend = 0.06\n[solver]\nmethod = \"rk4\"\nstep = 1e-3\n"
         "[objective]\nterminal = \"u[6, 2, 3]^2 + u[1, 4, 0]\"\n[output]\ndir = \"out\"\n";
  check_split_over_ranks("equations_3d.toml", {"gradient/initial/u", "gradient/parameter_fields/k"});

  // Scalar parameters beside a parameter field run whole on every rank (the monitor's
  // dJ/dp norm would count the scalars once a rank).
  const CliRun both = run_cli(
      "gradient equations_3d.toml --json --set 'model.parameters=[\"s\"]' --set parameters.s=0.7 "
      "--set 'model.equations.u=\"div_grad(k, u) - s*u*dx(u)\"'",
      scratch(), mpirun(2));
  INFO(both.err);
  REQUIRE(both.exit_code == 0);
  CHECK(nlohmann::json::parse(both.out)["split"] == "replicated");
}

TEST_CASE("a split run that blows up fails on every rank, naming the NaN the run alone names, once") {
  std::ofstream(scratch() / "gray_scott.toml") << kGrayScott;
  // u grows where the feed runs backwards, until u v^2 overflows (past rank 0's block).
  const std::string arguments = "gradient gray_scott.toml --set time.end=200.0 --set parameters.gamma=-5.0";
  const CliRun alone = run_cli(arguments, scratch());
  REQUIRE(alone.exit_code == 1);
  const std::vector<std::string> expected = error_lines(alone.err);
  REQUIRE(expected.size() == 1);
  CHECK(expected[0].find("non_finite_state") != std::string::npos);
  for (int ranks : {2, 3, 4}) {
    CAPTURE(ranks);
    const CliRun split = run_cli(arguments, scratch(), mpirun(ranks));
    CHECK(split.exit_code == 1);
    CHECK(error_lines(split.err) == expected);
  }
}

TEST_CASE("a rank out of memory mid-split ends every rank with its one message; the earlier outputs stay") {
  std::ofstream(scratch() / "gray_scott.toml") << kGrayScott;
  fs::remove_all(scratch() / "out");
  REQUIRE(run_cli("gradient gray_scott.toml", scratch(), mpirun(2)).exit_code == 0);
  const std::string earlier = gradient_bits({"gradient/initial/u"});
  // Rank 1 keeps every step of its block (store_all) under a 700 MB limit: it runs out
  // in the forward sweep, while rank 0 waits on it for a halo.
  const std::string arguments =
      "gradient gray_scott.toml --set 'grid.shape=[256,256]' --set 'grid.extent=[32.0,32.0]' --set time.end=100.0 "
      "--set checkpointing.schedule='\"store_all\"'";
  const CliRun failed = run_cli(arguments + " : -np 1 sh -c \"ulimit -v 700000; exec " + std::string(BACKSWEEP_CLI) +
                                    " " + arguments + "\"",
                                scratch(), mpirun(1));
  CHECK(failed.exit_code == 1);
  CHECK(error_lines(failed.err).size() == 1);
  CHECK(failed.err.find("error: rank 1: out of memory") != std::string::npos);
  CHECK(gradient_bits({"gradient/initial/u"}) == earlier);
}
