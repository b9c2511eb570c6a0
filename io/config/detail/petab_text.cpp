#include "io/config/detail/petab_text.hpp"

#include <cctype>
#include <cstdlib>

namespace backsweep::detail {

namespace {

bool identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::string rewritten(const std::string& text, const std::function<std::optional<std::string>(const std::string&)>& lookup) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
      std::size_t j = i;
      while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) ++j;
      if (j < text.size() && (text[j] == 'e' || text[j] == 'E')) {
        std::size_t k = j + 1;
        if (k < text.size() && (text[k] == '+' || text[k] == '-')) ++k;
        if (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) {
          j = k;
          while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
        }
      }
      out.append(text, i, j - i);
      i = j;
    } else if (identifier_start(c)) {
      std::size_t j = i;
      while (j < text.size() && identifier_char(text[j])) ++j;
      const std::string id = text.substr(i, j - i);
      const auto replacement = lookup(id);
      out += replacement ? *replacement : id;
      i = j;
    } else if (c == '*' && i + 1 < text.size() && text[i + 1] == '*') {
      out += '^';
      i += 2;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

bool is_number(const std::string& text, double& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

}  // namespace backsweep::detail
