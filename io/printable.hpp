#pragma once
// Text from config files, data files and command lines, made safe to print on a terminal
// and in JSON: control characters (C0, DEL, C1) and bytes that are not UTF-8 are shown
// as \xNN; tabs, line ends and valid UTF-8 stay as they are.
#include <string>
#include <string_view>

namespace backsweep {

std::string printable(std::string_view text);

}  // namespace backsweep
