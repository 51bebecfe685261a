// The scheduler actor's answers to operators and users (gantryctl): get and
// describe, cancel, delete, cordon / uncordon / drain, and queues applied or
// deleted. Changes are answered once the store has them.
#pragma once

#include <string>

#include "actors/scheduler_context.hpp"

namespace gantry::actors {

class SchedulerAdmin {
 public:
  explicit SchedulerAdmin(SchedulerContext& context) : ctx_(context) {}

  // The handlers of the admin requests, for the scheduler actor's behavior.
  caf::message_handler handlers();

 private:
  void list(const ReplyTo& to, const protocol::ListRequest& request);
  void logs(const ReplyTo& to, protocol::LogsRequest& request);
  void relay_logs(const ReplyTo& to, protocol::LogsRequest& request, const protocol::JobInfo& job,
                  const protocol::JobSpec& spec);
  void describe(const ReplyTo& to, const protocol::DescribeRequest& request);
  void cancel(const ReplyTo& to, const protocol::CancelRequest& request);
  std::string cancel_job(const protocol::CancelRequest& request);
  void remove(const ReplyTo& to, const protocol::DeleteRequest& request);
  protocol::AdminResult delete_job(const std::string& name);
  protocol::AdminResult delete_queue(const std::string& name);
  protocol::AdminResult apply_queue(const hub::QueueSpec& spec, const std::string* yaml);
  std::string not_own_job(const ReplyTo& to, const std::string& name) const;
  void cluster_action(const ReplyTo& to, const protocol::ClusterActionRequest& request);
  void answer_cluster_action(const ReplyTo& to, const std::string& done, const std::string& error);

  SchedulerContext& ctx_;
};

}  // namespace gantry::actors
