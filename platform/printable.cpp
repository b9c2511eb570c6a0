#include "platform/printable.hpp"

#include <cstdio>

namespace backsweep {

namespace {

// The length of the well-formed UTF-8 sequence at `at` (Unicode 15, table 3-7), or 0.
std::size_t utf8_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t k) { return at + k < text.size() ? (unsigned char)text[at + k] : 0u; };
  const unsigned lead = byte(0);
  const auto tail = [&](std::size_t k, unsigned low = 0x80, unsigned high = 0xBF) {
    return byte(k) >= low && byte(k) <= high;
  };
  if (lead >= 0xC2 && lead <= 0xDF) return tail(1) ? 2 : 0;
  if (lead == 0xE0) return tail(1, 0xA0) && tail(2) ? 3 : 0;
  if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) return tail(1) && tail(2) ? 3 : 0;
  if (lead == 0xED) return tail(1, 0x80, 0x9F) && tail(2) ? 3 : 0;  // no surrogates
  if (lead == 0xF0) return tail(1, 0x90) && tail(2) && tail(3) ? 4 : 0;
  if (lead >= 0xF1 && lead <= 0xF3) return tail(1) && tail(2) && tail(3) ? 4 : 0;
  if (lead == 0xF4) return tail(1, 0x80, 0x8F) && tail(2) && tail(3) ? 4 : 0;
  return 0;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string shown;
  shown.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const unsigned char c = text[at];
    const std::size_t length = c < 0x80 ? 1 : utf8_length(text, at);
    const bool c1_control = length == 2 && c == 0xC2 && (unsigned char)text[at + 1] < 0xA0;
    // A carriage return alone sends the cursor back over the line a user reads; one that
    // ends a line (CRLF) does not.
    const bool line_end = c == '\r' && at + 1 < text.size() && text[at + 1] == '\n';
    const bool control = (c < 0x20 && c != '\n' && c != '\t' && !line_end) || c == 0x7F;
    if (length == 0 || control || c1_control) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", c);
      shown += escaped;
      ++at;
      continue;
    }
    shown.append(text.substr(at, length));
    at += length;
  }
  return shown;
}

std::string printable(std::string_view text, std::size_t limit) {
  std::string shown = printable(text);
  if (shown.size() <= limit) return shown;
  std::size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(shown[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  const std::size_t left_out = shown.size() - cut;
  shown.resize(cut);
  return shown + "... (" + std::to_string(left_out) + " more bytes)";
}

}  // namespace backsweep
