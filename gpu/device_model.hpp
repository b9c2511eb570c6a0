#pragma once
// The device form of a hand-written grid model (models/builtin/grid_kernels.hpp):
// Gray–Scott's own kernels, the others' point kernels; and all of them as one type, so the
// engine's drivers on ThrustAlgebra are compiled once for every grid kernel (a dispatch on
// the host per right-hand side or VJP, each a sweep of the grid).
#include <optional>
#include <utility>

#include "gpu/gray_scott_device.hpp"
#include "gpu/grid_model_device.hpp"
#include "gpu/system.hpp"
#include "models/any_model.hpp"
#include "models/builtin/grid_kernels.hpp"

namespace BACKSWEEP_GPU_NAMESPACE {

inline DeviceGrayScott on_device(const models::GrayScott& model) { return DeviceGrayScott(model.grid()); }
template <class M>
DeviceGridModel<M> on_device(const M& model) {
  return DeviceGridModel<M>(model);
}

template <class M>
using OnDevice = decltype(on_device(std::declval<const M&>()));
using AnyDeviceGridModel = models::each_grid_kernel<models::AnyModel, OnDevice>::with<>;

// The grid kernel a config names, on the device.
inline AnyDeviceGridModel on_device(const models::GridKernel& kernel) {
  std::optional<AnyDeviceGridModel> model;
  models::visit_grid_kernel(kernel, [&](const auto& host) { model.emplace(on_device(host)); });
  return std::move(model).value();
}

}  // namespace BACKSWEEP_GPU_NAMESPACE
