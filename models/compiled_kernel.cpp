#include "models/compiled_kernel.hpp"

#include <string>
#include <utility>

#include "models/field_kernel_source.hpp"
#include "models/ode_kernel_source.hpp"

namespace backsweep {

CompiledKernel::CompiledKernel(NativeLibrary library) : library_(std::move(library)) {
  const auto version = reinterpret_cast<int (*)()>(library_.symbol("bs_abi_version"));
  if (version() != BACKSWEEP_KERNEL_ABI_VERSION)
    throw NativeLibraryError(library_.file().string() + " was built for another kernel interface");
}

CompiledFieldKernel::CompiledFieldKernel(const FieldEquations& fields, const detail::ExpressionProgram& program,
                                         const CompilerOptions& options, int threads)
    : CompiledKernel(NativeLibrary::load(field_kernel_source(fields, program), options)) {
  rhs_ = reinterpret_cast<decltype(rhs_)>(library_.symbol("bs_rhs"));
  vjp_ = reinterpret_cast<decltype(vjp_)>(library_.symbol("bs_vjp"));
  scratch_size_ = reinterpret_cast<decltype(scratch_size_)>(library_.symbol("bs_vjp_scratch"));

  const Grid& grid = fields.grid();
  const GridAxes& axes = grid.stencil_axes();
  call_.axes = int(grid.axes());
  call_.points = long(grid.points());
  call_.threads = threads < 0 ? 0 : threads;
  coordinates_.resize(grid.axes());
  for (std::size_t a = 0; a < grid.axes(); ++a) {
    for (std::size_t i = 0; i < grid.size(a); ++i) coordinates_[a].push_back(grid.coordinate(a, i));
    const GridAxis& x = axes.axis[a];
    call_.axis[a] = {long(x.size), long(x.stride), int(x.boundary), x.inverse_h2, x.half_inverse_h, nullptr};
  }
}

kernel_abi::bs_grid_call CompiledFieldKernel::call() const {
  kernel_abi::bs_grid_call call = call_;
  for (int a = 0; a < call.axes; ++a) call.axis[a].coordinate = coordinates_[std::size_t(a)].data();
  return call;
}

CompiledFieldKernel CompiledFieldKernel::on_planes(std::size_t first, std::size_t count) const {
  CompiledFieldKernel planes = *this;
  const std::vector<double>& whole = coordinates_[0];
  planes.coordinates_[0].resize(count);
  for (std::size_t i = 0; i < count; ++i) planes.coordinates_[0][i] = whole[(first + i) % whole.size()];
  planes.call_.axis[0].size = long(count);
  planes.call_.points = long(count) * call_.axis[0].stride;
  return planes;
}

void CompiledFieldKernel::rhs(double t, const double* y, const double* p, double* dydt) const {
  kernel_abi::bs_grid_call call = this->call();
  call.t = t;
  call.y = y;
  call.p = p;
  call.dydt = dydt;
  rhs_(&call);
}

void CompiledFieldKernel::vjp(std::vector<double>& scratch, double t, const double* y, const double* p,
                              const double* lambda, double* vjp_y, double* vjp_p) const {
  kernel_abi::bs_grid_call call = this->call();
  call.t = t;
  call.y = y;
  call.p = p;
  call.lambda = lambda;
  call.vjp_y = vjp_y;
  call.vjp_p = vjp_p;
  scratch.resize(std::size_t(scratch_size_(&call)) + 1);
  call.scratch = scratch.data();
  vjp_(&call);
}

CompiledOdeKernel::CompiledOdeKernel(const detail::ExpressionProgram& program, std::size_t states,
                                     std::size_t parameters, const CompilerOptions& options)
    : CompiledKernel(NativeLibrary::load(ode_kernel_source(program, states, parameters), options)) {
  rhs_ = reinterpret_cast<decltype(rhs_)>(library_.symbol("bs_ode_rhs"));
  vjp_ = reinterpret_cast<decltype(vjp_)>(library_.symbol("bs_ode_vjp"));
}

}  // namespace backsweep
