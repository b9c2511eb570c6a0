#pragma once
// PEtab's text as ours: its math with its ids replaced (and `**` as `^`), and its numbers.
#include <functional>
#include <optional>
#include <string>

namespace backsweep::detail {

// `text` with each identifier replaced by what `lookup` gives (unchanged where it gives
// nothing), `**` as `^`; numbers (1e-3) are left whole.
std::string rewritten(const std::string& text, const std::function<std::optional<std::string>(const std::string&)>& lookup);

// Whether `text` is a number as a whole (value set).
bool is_number(const std::string& text, double& value);

}  // namespace backsweep::detail
