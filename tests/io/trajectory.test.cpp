#include "io/outputs/trajectory.hpp"

#include <doctest/doctest.h>
#include <hdf5.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/h5_read.hpp"

using namespace backsweep;
namespace fs = std::filesystem;

namespace {

Trajectory sample() {
  Trajectory t;
  t.model = "van_der_pol";
  t.method = "rk4";
  t.state_names = {"x", "y"};
  t.parameter_names = {"mu"};
  t.parameters = {1.5};
  const double a[2] = {2.0, 0.0}, b[2] = {1.9, -0.3};
  t.append(0.0, a);
  t.append(0.1, b);
  return t;
}

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("backsweep_io_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

}  // namespace

TEST_CASE("CSV has a header and full-precision rows") {
  const fs::path path = scratch("t.csv");
  write_trajectory_csv(sample(), path.string());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "time,x,y\n0,2,0\n0.10000000000000001,1.8999999999999999,-0.29999999999999999\n");
}

TEST_CASE("HDF5 holds times, states and the metadata") {
  const fs::path path = scratch("t.h5");
  write_trajectory_hdf5(sample(), path.string(), RunInfo{});
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  const hid_t states = H5Dopen2(file, "states", H5P_DEFAULT);
  const hid_t space = H5Dget_space(states);
  hsize_t dims[2] = {0, 0};
  CHECK(H5Sget_simple_extent_ndims(space) == 2);
  H5Sget_simple_extent_dims(space, dims, nullptr);
  CHECK(dims[0] == 2);
  CHECK(dims[1] == 2);
  double values[4];
  H5Dread(states, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
  CHECK(values[2] == 1.9);
  CHECK(values[3] == -0.3);
  const hid_t mu = H5Aopen_by_name(file, "parameters", "mu", H5P_DEFAULT, H5P_DEFAULT);
  double mu_value = 0;
  H5Aread(mu, H5T_NATIVE_DOUBLE, &mu_value);
  CHECK(mu_value == 1.5);
  CHECK(read_text_attribute(file, "model") == "van_der_pol");
  H5Aclose(mu);
  H5Sclose(space);
  H5Dclose(states);
  H5Fclose(file);
}

TEST_CASE("a failed write leaves the earlier file intact and no temporary behind") {
  // Earlier results in place; then the HDF5 temporary cannot be created (a directory
  // stands at its name), so the write fails before anything is renamed.
  const fs::path dir = scratch("failing");
  fs::create_directories(dir);
  write_trajectory_files(sample(), dir.string(), RunInfo{});
  const std::uintmax_t csv_size = fs::file_size(dir / "trajectory.csv");
  Trajectory changed = sample();
  const double extra[2] = {1.0, 1.0};
  changed.append(0.2, extra);
  const fs::path blocker = dir / ("trajectory.h5.tmp-" + std::to_string(::getpid()));
  fs::create_directories(blocker / "child");
  CHECK_THROWS(write_trajectory_files(changed, dir.string(), RunInfo{}));
  CHECK(fs::file_size(dir / "trajectory.csv") == csv_size);
  fs::remove_all(blocker);
  for (const auto& entry : fs::directory_iterator(dir))
    CHECK(entry.path().string().find(".tmp-") == std::string::npos);
  // A writable target works again.
  write_trajectory_files(changed, dir.string(), RunInfo{});
  CHECK(fs::file_size(dir / "trajectory.csv") > csv_size);
  CHECK_THROWS(write_trajectory_csv(sample(), (scratch("missing") / "dir" / "t.csv").string()));
}
