// A round-robin TCP balancer for tests: listens on 127.0.0.1 and hands each accepted connection to the next
// backend port in turn (a backend that refuses is skipped for the next one), copying bytes both ways until either
// side closes, then closing both. It stands in front of server replicas the way a load balancer would, so one
// client's connections land on different replicas. The backends can be replaced (restarted servers get new ports).
#pragma once

#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace agentworks::testing {

class TcpBalancer {
 public:
  // Listens on 127.0.0.1:listen_port (0: a free port); throws std::runtime_error when it cannot.
  explicit TcpBalancer(std::vector<int> backend_ports, int listen_port = 0);
  TcpBalancer(const TcpBalancer&) = delete;
  TcpBalancer& operator=(const TcpBalancer&) = delete;
  // Stops listening and closes every connection it carries (both sides), then joins its threads.
  ~TcpBalancer();

  int port() const { return port_; }
  // Connections accepted from now on go to these ports; open ones stay where they are.
  void set_backends(std::vector<int> backend_ports);

  struct Pair;  // one client connection and its backend connection

 private:
  struct Pump {
    std::thread thread;
    std::shared_ptr<bool> done;  // written by the thread under mutex_
  };

  void accept_loop();
  int connect_next_backend();  // a connected socket, or -1 when every backend refuses
  void start_pumps(int client_fd, int backend_fd);
  void join_finished_pumps_locked();

  int listen_fd_ = -1;
  int port_ = 0;
  int wake_read_ = -1;  // the destructor writes to wake_write_ to stop the accept loop
  int wake_write_ = -1;
  std::mutex mutex_;
  std::vector<int> backends_;
  std::size_t next_ = 0;
  std::vector<std::weak_ptr<Pair>> pairs_;
  std::vector<Pump> pumps_;
  std::thread acceptor_;
};

}  // namespace agentworks::testing
