// The ONE dispatch choke point: route lookup, query and body checks, JSON parsing, authentication and
// permission level, error conversion. Handlers only do their own job.
#pragma once

struct evhttp_request;

namespace agentworks::server {

class Batch;
class Hub;
class Store;

class Dispatcher {
 public:
  Dispatcher(Store& store, Hub& hub, Batch& batch) : store_(store), hub_(hub), batch_(batch) {}
  void handle(evhttp_request* req);
  static void on_request(evhttp_request* req, void* self);

 private:
  Store& store_;
  Hub& hub_;
  Batch& batch_;
};

}  // namespace agentworks::server
