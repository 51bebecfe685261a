#include "bench/e2e/load_generator.hpp"

#include <thread>

#include "protocol/envelope.hpp"

namespace gantry::bench::e2e {

LoadGenerator::LoadGenerator(const std::string& admin_endpoint)
    : socket_(context_, zmq::socket_type::dealer) {
  socket_.set(zmq::sockopt::linger, 0);
  socket_.set(zmq::sockopt::sndhwm, 0);
  socket_.set(zmq::sockopt::rcvhwm, 0);
  socket_.connect(admin_endpoint);
}

template <class Reply, class Request>
std::optional<Reply> LoadGenerator::ask(const Request& request, double timeout_s) {
  const std::uint64_t seq = probe_seq_++;
  socket_.send(zmq::buffer(protocol::encode(request, seq)), zmq::send_flags::none);
  std::vector<zmq::pollitem_t> items = {{socket_.handle(), 0, ZMQ_POLLIN, 0}};
  const auto wait = std::chrono::milliseconds(static_cast<long>(timeout_s * 1000));
  zmq::message_t frame;
  while (zmq::poll(items, wait) > 0 && socket_.recv(frame, zmq::recv_flags::none)) {
    protocol::DecodeError error;
    const auto envelope =
        protocol::decode_envelope(std::string_view(frame.data<char>(), frame.size()), error);
    if (!envelope || envelope->seq != seq) continue;  // an older request's late answer
    return protocol::decode_payload<Reply>(*envelope, error);
  }
  return std::nullopt;
}

std::uint32_t LoadGenerator::ready_clusters() {
  const auto reply = ask<protocol::ListReply>(protocol::ListRequest{"clusters"}, 1.0);
  std::uint32_t ready = 0;
  if (reply) {
    for (const protocol::ClusterInfo& cluster : reply->clusters) ready += cluster.ready ? 1 : 0;
  }
  return ready;
}

std::optional<std::vector<protocol::JobInfo>> LoadGenerator::list_jobs(double timeout_s) {
  auto reply = ask<protocol::ListReply>(protocol::ListRequest{"jobs"}, timeout_s);
  if (!reply || !reply->ok) return std::nullopt;
  return std::move(reply->jobs);
}

std::uint32_t LoadGenerator::wait_clusters_ready(std::uint32_t expected, double timeout_s) {
  const std::int64_t deadline = now_ns() + static_cast<std::int64_t>(timeout_s * 1e9);
  std::uint32_t ready = 0;
  while ((ready = ready_clusters()) < expected && now_ns() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return ready;
}

LoadResult LoadGenerator::run(const std::vector<std::string>& frames, const LoadOptions& options,
                              Timeline& timeline) {
  const std::uint32_t jobs = static_cast<std::uint32_t>(frames.size());
  LoadResult result;
  std::uint32_t next = 0;
  std::uint32_t in_flight = 0;
  const std::int64_t start = now_ns();
  const double ns_per_job = options.rate > 0 ? 1e9 / options.rate : 0;
  std::int64_t last_progress = start;
  std::vector<zmq::pollitem_t> items = {{socket_.handle(), 0, ZMQ_POLLIN, 0}};
  while (result.acked + result.refused < jobs) {
    const std::int64_t now = now_ns();
    while (next < jobs && in_flight < options.window &&
           (ns_per_job == 0 || now >= start + static_cast<std::int64_t>(next * ns_per_job))) {
      timeline.submit_ns[next] = now_ns();
      socket_.send(zmq::buffer(frames[next]), zmq::send_flags::none);
      ++next;
      ++in_flight;
    }
    // Paced: wake for the next send time; otherwise only a reply can free the window.
    zmq::poll(items, std::chrono::milliseconds(ns_per_job > 0 ? 1 : 100));
    const std::uint32_t before = result.acked + result.refused;
    receive_replies(timeline, result, in_flight);
    if (result.acked + result.refused != before) last_progress = now_ns();
    if (now_ns() - last_progress > static_cast<std::int64_t>(options.reply_timeout_s * 1e9)) break;
  }
  result.unanswered = jobs - result.acked - result.refused;
  return result;
}

namespace {

// A SubmitJobsReply's jobs into `result`; the first refusal ("" for none).
std::string count_batch_reply(const protocol::Envelope& envelope, LoadResult& result) {
  protocol::DecodeError error;
  const auto reply = protocol::decode_payload<protocol::SubmitJobsReply>(envelope, error);
  if (!reply) return error.code + ": " + error.message;
  if (!reply->ok) return reply->error;
  std::string refusal;
  for (const protocol::SubmittedJob& job : reply->jobs) {
    if (job.ok)
      ++result.jobs_acked;
    else if (refusal.empty())
      refusal = job.job + ": " + job.error;
  }
  return refusal;
}

}  // namespace

void LoadGenerator::receive_replies(Timeline& timeline, LoadResult& result,
                                    std::uint32_t& in_flight) {
  zmq::message_t frame;
  while (socket_.recv(frame, zmq::recv_flags::dontwait)) {
    const std::int64_t now = now_ns();
    protocol::DecodeError error;
    const auto envelope =
        protocol::decode_envelope(std::string_view(frame.data<char>(), frame.size()), error);
    if (!envelope || envelope->seq == 0 || envelope->seq > timeline.ack_ns.size()) continue;
    const std::size_t index = envelope->seq - 1;
    --in_flight;
    std::string refusal;
    if (envelope->type == protocol::MessageType::kSubmitJobsReply) {
      refusal = count_batch_reply(*envelope, result);
    } else {
      const auto reply = protocol::decode_payload<protocol::SubmitJobReply>(*envelope, error);
      if (reply && reply->ok) ++result.jobs_acked;
      if (!reply || !reply->ok) refusal = reply ? reply->error : error.code + ": " + error.message;
    }
    if (refusal.empty()) {
      timeline.ack_ns[index] = now;
      ++result.acked;
    } else {
      ++result.refused;
      if (result.first_error.empty()) result.first_error = refusal;
    }
  }
}

}  // namespace gantry::bench::e2e
