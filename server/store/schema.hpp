// Creates the server tables (idempotent).
#pragma once

namespace agentworks::sql {
class Db;
}

namespace agentworks::server {

void create_schema(sql::Db& db);

}  // namespace agentworks::server
