#pragma once
// Text from config files, data files and command lines, made safe to print on a terminal
// and in JSON: control characters (C0, DEL, C1) and bytes that are not UTF-8 are shown
// as \xNN, a carriage return too unless it ends a line (CRLF); tabs, line ends and valid
// UTF-8 stay as they are.
#include <string>
#include <string_view>

namespace backsweep {

std::string printable(std::string_view text);

// printable(text), cut to at most about `limit` bytes (at a character's start) with a note
// of how much was left out: what an error message echoes of a 2 MB value.
std::string printable(std::string_view text, std::size_t limit);

}  // namespace backsweep
