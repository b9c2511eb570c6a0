#pragma once
// The device form of a hand-written grid model (models/builtin/grid_kernels.hpp):
// Gray–Scott's own kernels, the others' point kernels.
#include "gpu/gray_scott_device.hpp"
#include "gpu/grid_model_device.hpp"
#include "gpu/system.hpp"

namespace BACKSWEEP_GPU_NAMESPACE {

inline DeviceGrayScott on_device(const models::GrayScott& model) { return DeviceGrayScott(model.grid()); }
template <class M>
DeviceGridModel<M> on_device(const M& model) {
  return DeviceGridModel<M>(model);
}

}  // namespace BACKSWEEP_GPU_NAMESPACE
