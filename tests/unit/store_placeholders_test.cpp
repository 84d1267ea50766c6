// The store's `?` placeholders become PostgreSQL's `$N`, outside quoted text only (one set of
// statements for both engines).
#include <gtest/gtest.h>

#include "store/database/placeholders.hpp"

using agentworks::server::db::number_placeholders;

TEST(StorePlaceholders, BareMarksAreNumberedLeftToRight) {
  const auto n = number_placeholders("SELECT a FROM t WHERE b = ? AND c > ? LIMIT ?");
  EXPECT_EQ(n.text, "SELECT a FROM t WHERE b = $1 AND c > $2 LIMIT $3");
  EXPECT_EQ(n.parameters, 3);
}

TEST(StorePlaceholders, NumberedMarksKeepTheirNumbers) {
  const auto n = number_placeholders("UPDATE t SET a = ?2 WHERE b = ?1 OR c = ?1");
  EXPECT_EQ(n.text, "UPDATE t SET a = $2 WHERE b = $1 OR c = $1");
  EXPECT_EQ(n.parameters, 2);
}

TEST(StorePlaceholders, QuotedQuestionMarksStay) {
  const auto n = number_placeholders("SELECT '?', \"a?\" FROM t WHERE x = ? AND y = 'it''s ?'");
  EXPECT_EQ(n.text, "SELECT '?', \"a?\" FROM t WHERE x = $1 AND y = 'it''s ?'");
  EXPECT_EQ(n.parameters, 1);
}

TEST(StorePlaceholders, NoMarks) {
  const auto n = number_placeholders("SELECT 1");
  EXPECT_EQ(n.text, "SELECT 1");
  EXPECT_EQ(n.parameters, 0);
}
