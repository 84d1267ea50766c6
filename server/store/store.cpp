#include "store/store.hpp"

#include "store/schema.hpp"

namespace agentworks::server {

Store::Store(const std::filesystem::path& data_dir, Limits limits)
    : limits_(limits), path_(data_dir / "server.db"), db_(std::make_unique<sql::Db>(path_.string())) {
  create_schema(*db_);
}

Store::~Store() {
  if (in_batch_) {
    try {
      rollback_batch();
    } catch (...) {
    }
  }
  stmts_.clear();  // finalize statements before the database closes
}

sql::Stmt& Store::stmt(const char* sql) {
  auto it = stmts_.find(sql);
  if (it == stmts_.end()) it = stmts_.emplace(sql, std::make_unique<sql::Stmt>(*db_, sql)).first;
  return *it->second;
}

void Store::begin_batch() {
  if (in_batch_) return;
  db_->exec("BEGIN IMMEDIATE");
  in_batch_ = true;
}

void Store::commit_batch() {
  if (!in_batch_) return;
  db_->exec("COMMIT");
  in_batch_ = false;
}

void Store::rollback_batch() {
  events_ = StoreEvents{};
  if (!in_batch_) return;
  in_batch_ = false;
  db_->exec("ROLLBACK");
}

StoreEvents Store::take_events() {
  StoreEvents out = std::move(events_);
  events_ = StoreEvents{};
  return out;
}

void Store::in_request(const std::function<void()>& f) {
  begin_batch();
  db_->exec("SAVEPOINT req");
  request_events_ = StoreEvents{};
  try {
    f();
    db_->exec("RELEASE req");
  } catch (...) {
    db_->exec("ROLLBACK TO req; RELEASE req");
    request_events_ = StoreEvents{};
    throw;
  }
  for (auto& m : request_events_.messages) events_.messages.push_back(std::move(m));
  for (auto& x : request_events_.fenced) events_.fenced.push_back(std::move(x));
  for (auto& x : request_events_.revoked_connections) events_.revoked_connections.push_back(std::move(x));
  request_events_ = StoreEvents{};
}

}  // namespace agentworks::server
