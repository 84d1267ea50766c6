// The ONE dispatch choke point: route lookup, query and body checks, JSON parsing, authentication and
// permission level, error conversion. Handlers only do their own job.
#pragma once

namespace agentworks::server {

class Batch;
class HttpConnection;
class Hub;
class Store;

class Dispatcher {
 public:
  Dispatcher(Store& store, Hub& hub, Batch& batch) : store_(store), hub_(hub), batch_(batch) {}
  // One complete request read by the connection.
  void handle(HttpConnection& conn);

 private:
  Store& store_;
  Hub& hub_;
  Batch& batch_;
};

}  // namespace agentworks::server
