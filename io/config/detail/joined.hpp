#pragma once
// Names listed in an error message: "a, b, c", or "none".
#include <string>

namespace backsweep::detail {

std::string joined(const auto& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + std::string(name);
  return text.empty() ? "none" : text;
}

}  // namespace backsweep::detail
