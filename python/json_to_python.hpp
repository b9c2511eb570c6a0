#pragma once
// A JSON value as Python's: numbers, strings, lists and dicts made directly (no text in
// between: the doubles are the run's own).
#include <cstdint>
#include <string>

#include <nanobind/nanobind.h>
#include <nlohmann/json.hpp>

namespace backsweep::python {

inline nanobind::object to_python(const nlohmann::json& value) {
  using Type = nlohmann::json::value_t;
  switch (value.type()) {
    case Type::boolean: return nanobind::bool_(value.get<bool>());
    case Type::number_integer: return nanobind::int_(value.get<std::int64_t>());
    case Type::number_unsigned: return nanobind::int_(value.get<std::uint64_t>());
    case Type::number_float: return nanobind::float_(value.get<double>());
    case Type::string: return nanobind::str(value.get_ref<const std::string&>().c_str());
    case Type::array: {
      nanobind::list list;
      for (const nlohmann::json& item : value) list.append(to_python(item));
      return list;
    }
    case Type::object: {
      nanobind::dict dict;
      for (const auto& [key, item] : value.items()) dict[key.c_str()] = to_python(item);
      return dict;
    }
    default: return nanobind::none();  // null (and the binary values we never make)
  }
}

}  // namespace backsweep::python
