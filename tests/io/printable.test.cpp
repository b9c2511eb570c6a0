// What error messages may echo of a user's bytes.
#include "platform/printable.hpp"

#include <doctest/doctest.h>

using backsweep::printable;

TEST_CASE("printable keeps text and UTF-8, and shows control characters and broken UTF-8 as \\xNN") {
  CHECK(printable("k = 1.5\tx\r\n") == "k = 1.5\tx\r\n");
  CHECK(printable("caf\xC3\xA9 \xE2\x88\x87 \xF0\x9F\x8C\x8A") == "caf\xC3\xA9 \xE2\x88\x87 \xF0\x9F\x8C\x8A");
  CHECK(printable("\x1B[31mred") == "\\x1B[31mred");
  CHECK(printable(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(printable("\x7F") == "\\x7F");
  CHECK(printable("\xC2\x9B" "2J") == "\\xC2\\x9B2J");             // C1 CSI, which terminals obey
  CHECK(printable("rk\xFF" "4") == "rk\\xFF4");                     // not UTF-8 at all
  CHECK(printable("\xC0\xAF") == "\\xC0\\xAF");                    // overlong '/'
  CHECK(printable("\xED\xA0\x80") == "\\xED\\xA0\\x80");           // a surrogate
  CHECK(printable("\xF4\x90\x80\x80") == "\\xF4\\x90\\x80\\x80");  // past U+10FFFF
  CHECK(printable("\xE2\x88") == "\\xE2\\x88");                    // cut short
  CHECK(printable("rk4\rrk45") == "rk4\\x0Drk45");                  // a lone CR rewrites the line
  CHECK(printable("a\r") == "a\\x0D");
}

TEST_CASE("printable with a limit cuts long text at a character's start and says how much is left out") {
  CHECK(printable("short", 100) == "short");
  CHECK(printable(std::string(5000, 'a'), 10) == "aaaaaaaaaa... (4990 more bytes)");
  CHECK(printable("\xC3\xA9\xC3\xA9", 3) == "\xC3\xA9... (2 more bytes)");  // not inside the second é
}
