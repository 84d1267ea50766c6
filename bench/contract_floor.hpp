// The least a tracked call can cost under the contract's own guarantees, without agentworks: the same program run
// in the shape the keeper gives every execution (R-F2: a PID and mount namespace of its own with a /proc of its own,
// a first process that runs the program, a process outside that holds it), forked like the server's keepers from a
// small static single-threaded helper (contract_helper.c), with one durable write before it starts (the call is stored before it runs, so
// nothing runs twice) and one after it ends (the outcome is stored before it is reported). No HTTP, no SQL, no
// server: what is left between this and a call is agentworks' own cost.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace agentworks::bench {

class ContractFloor {
 public:
  // Starts the helper (agentworks-bench-contract-helper). `sync_path`: a file on the server's file system,
  // written and fdatasync'd twice per run.
  ContractFloor(const std::string& helper, const std::string& sync_path, const std::vector<std::string>& argv,
                const std::vector<std::string>& env, const std::string& stdin_payload);
  ~ContractFloor();
  ContractFloor(const ContractFloor&) = delete;
  ContractFloor& operator=(const ContractFloor&) = delete;

  enum class Shape { plain, isolated };
  // Nanoseconds from the first write to the second durable; throws std::runtime_error when a step fails or the
  // program does not exit 0. `durable` false leaves the two writes out; Shape::plain forks and execs the program
  // from the same helper, so plain against isolated is the isolation's share alone.
  std::int64_t run(Shape shape = Shape::isolated, bool durable = true);

 private:
  int sync_fd_;
  int helper_sock_ = -1;
  pid_t helper_ = -1;
};

}  // namespace agentworks::bench
