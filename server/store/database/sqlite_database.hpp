// The SQLite engine of the store: one file in the data directory, WAL journaling, one writer (BEGIN IMMEDIATE).
#pragma once

#include <filesystem>
#include <memory>

#include "store/database/database.hpp"

namespace agentworks::server::db {

std::unique_ptr<Database> open_sqlite(const std::filesystem::path& file);

}  // namespace agentworks::server::db
