// Answers to gantryctl's read-only requests (get / describe), built from core
// state. Pure: the scheduler actor calls these with what it owns.
#pragma once

#include <map>
#include <string>

#include "actors/job_events.hpp"
#include "hub/scheduler.hpp"
#include "protocol/messages.hpp"

namespace gantry::actors {

// Cluster name -> when its agent was last heard from (the core does not track it).
using LastSeen = std::map<std::string, hub::TimeMs>;

// `now` scores the clusters of pending jobs (core_views.hpp, job_info).
protocol::ListReply list_reply(const hub::SchedulerCore& core, const protocol::ListRequest& request,
                               const LastSeen& last_seen, hub::TimeMs now);

protocol::DescribeReply describe_reply(const hub::SchedulerCore& core, const JobEvents& events,
                                       const protocol::DescribeRequest& request,
                                       const LastSeen& last_seen, hub::TimeMs now);

}  // namespace gantry::actors
