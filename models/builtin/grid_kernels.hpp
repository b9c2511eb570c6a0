#pragma once
// The hand-written grid models by name, for config files (model.name on a [grid]): each
// with its layout (fields, parameter fields, scalar parameters: the model's parts(grid)),
// so a config gives their values, initial fields and objectives as it does for a model
// defined by equations. GridKernelModels is the one list: the names, the engine's model
// types (io/assembly/visit_model.hpp) and every placement's adapters (gpu/device_model.hpp,
// apps/grid_split_gradient.cpp) are derived from it, so a new model is its own header and
// one entry here.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "models/builtin/acoustic.hpp"
#include "models/builtin/advection_diffusion.hpp"
#include "models/builtin/gray_scott.hpp"
#include "models/builtin/heat.hpp"
#include "models/grid_layout.hpp"

namespace backsweep::models {

using GridKernelModels = std::tuple<GrayScott, Heat, AdvectionDiffusion, Acoustic>;

inline constexpr auto grid_kernel_names = []<class... Ms>(std::type_identity<std::tuple<Ms...>>) {
  return std::array<std::string_view, sizeof...(Ms)>{Ms::name...};
}(std::type_identity<GridKernelModels>{});

// A kernel as a config names it: its name, layout and (acoustic only) source.
struct GridKernel {
  std::string name;
  GridLayout layout;
  AcousticSource source{};
};

// Whether model M is made with a point source (model.source in a config): acoustic is.
template <class M>
inline constexpr bool takes_source = std::is_constructible_v<M, Grid, AcousticSource>;

// visitor(std::type_identity<M>{}) for the model called `name`; false for an unknown name.
template <class Visitor>
bool visit_grid_kernel_type(std::string_view name, Visitor&& visitor) {
  return [&]<class... Ms>(std::type_identity<std::tuple<Ms...>>) {
    return ((Ms::name == name ? (visitor(std::type_identity<Ms>{}), true) : false) || ...);
  }(std::type_identity<GridKernelModels>{});
}

// What kernel `name` has on `grid`; nullopt for an unknown name.
inline std::optional<GridKernelParts> grid_kernel_parts(std::string_view name, const Grid& grid) {
  std::optional<GridKernelParts> parts;
  visit_grid_kernel_type(name, [&]<class M>(std::type_identity<M>) {
    parts = M::parts(grid);
    parts->takes_source = takes_source<M>;
  });
  return parts;
}

// visitor(model) with the kernel `kernel` names on its grid; false for an unknown name.
template <class Visitor>
bool visit_grid_kernel(const GridKernel& kernel, Visitor&& visitor) {
  const Grid& grid = kernel.layout.grid();
  return visit_grid_kernel_type(kernel.name, [&]<class M>(std::type_identity<M>) {
    if constexpr (takes_source<M>) visitor(M(grid, kernel.source));
    else visitor(M(grid));
  });
}

// Ts<M...> for the list's models M, each as Form<M> (a placement's adapter type).
template <template <class...> class Ts, template <class> class Form = std::type_identity_t,
          class Models = GridKernelModels>
struct each_grid_kernel;
template <template <class...> class Ts, template <class> class Form, class... Ms>
struct each_grid_kernel<Ts, Form, std::tuple<Ms...>> {
  template <class... Before>
  using with = Ts<Before..., Form<Ms>...>;
};

}  // namespace backsweep::models
