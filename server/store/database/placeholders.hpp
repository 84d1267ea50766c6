// The store writes `?` (and `?N`) placeholders, as SQLite takes them; PostgreSQL numbers them `$N`.
#pragma once

#include <string>
#include <string_view>

namespace agentworks::server::db {

struct NumberedSql {
  std::string text;  // `$1`, `$2`, ... in place of the placeholders
  int parameters = 0;  // the highest number used
};

// Rewrites `?` (numbered left to right, each one after the highest so far) and `?N` to `$N`, leaving quoted
// literals and identifiers alone.
NumberedSql number_placeholders(std::string_view sql);

}  // namespace agentworks::server::db
