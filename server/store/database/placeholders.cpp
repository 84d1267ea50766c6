#include "store/database/placeholders.hpp"

#include <algorithm>
#include <cctype>

namespace agentworks::server::db {

NumberedSql number_placeholders(std::string_view sql) {
  NumberedSql out;
  out.text.reserve(sql.size() + 16);
  char quote = 0;  // inside '...' or "..." when set
  int next = 0;
  for (std::size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (quote != 0) {
      out.text += c;
      if (c == quote) quote = 0;  // a doubled quote closes and reopens: same result
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      out.text += c;
      continue;
    }
    if (c != '?') {
      out.text += c;
      continue;
    }
    std::size_t j = i + 1;
    int number = 0;
    while (j < sql.size() && std::isdigit(static_cast<unsigned char>(sql[j])) != 0) {
      number = number * 10 + (sql[j] - '0');
      ++j;
    }
    if (j == i + 1) number = ++next;  // a bare `?`: the one after the highest so far
    next = std::max(next, number);
    out.parameters = std::max(out.parameters, number);
    out.text += '$';
    out.text += std::to_string(number);
    i = j - 1;
  }
  return out;
}

}  // namespace agentworks::server::db
