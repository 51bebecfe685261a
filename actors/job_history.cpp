#include "actors/job_history.hpp"

#include "protocol/wire_codec.hpp"  // msgpack, and the encoding of wire structs

namespace gantry::actors {

protocol::DescribeReply ended_reply(const EndedRow& row) {
  protocol::DescribeReply reply;
  if (!row.record.empty()) {
    try {
      msgpack::unpack(row.record.data(), row.record.size()).get().convert(reply);
    } catch (const std::exception&) {
      reply = {};  // unreadable: shown from the row
    }
  }
  reply.ok = true;
  protocol::JobInfo& job = reply.job;
  if (job.name.empty()) {
    job.name = row.name;
    job.submitted_ms = row.submitted_ms;
    job.submitter = row.submitter;
    job.queue = row.queue;
    job.started_ms = row.started_ms;
  }
  job.phase = row.phase;
  job.finished_ms = row.finished_ms;
  return reply;
}

}  // namespace gantry::actors
