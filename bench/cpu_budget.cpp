#include "cpu_budget.hpp"

#include <unistd.h>

#include <utility>

#include "proc_stats.hpp"

namespace agentworks::bench {

CpuBudget::CpuBudget(std::vector<pid_t> servers, pid_t postmaster)
    : servers_(std::move(servers)), postmaster_(postmaster) {
  valid_ = read(start_);
}

bool CpuBudget::read(Reading& out) const {
  for (const pid_t pid : servers_) {
    const auto all = cpu_seconds(pid);
    const auto loop = thread_cpu_seconds(pid, pid);
    if (!all || !loop) return false;
    out.servers += *all;
    out.loops += *loop;
  }
  if (postmaster_ > 0) {
    const auto pg = process_tree_cpu_seconds(postmaster_);
    if (!pg) return false;
    out.postgres = *pg;
  }
  return true;
}

void CpuBudget::stop() {
  Reading now;
  if (!valid_ || !read(now)) {
    valid_ = false;
    return;
  }
  used_ = Reading{now.servers - start_.servers, now.loops - start_.loops, now.postgres - start_.postgres};
}

CpuBudget::PerSend CpuBudget::per_send(std::uint64_t sends) const {
  PerSend p;
  if (!valid_ || sends == 0) return p;
  const double n = static_cast<double>(sends);
  p.servers_us = used_.servers * 1e6 / n;
  p.loops_us = used_.loops * 1e6 / n;
  p.postgres_us = used_.postgres * 1e6 / n;
  p.total_us = p.servers_us + p.postgres_us;
  p.cores = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  if (p.loops_us > 0) p.loops_ceiling_per_s = static_cast<double>(servers_.size()) * 1e6 / p.loops_us;
  if (p.total_us > 0) p.cores_ceiling_per_s = p.cores * 1e6 / p.total_us;
  return p;
}

}  // namespace agentworks::bench
