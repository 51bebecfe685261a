#include "actors/audit_log.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "actors/job_events.hpp"
#include "protocol/envelope.hpp"

namespace gantry::actors {

namespace {

constexpr std::size_t kMostPending = 4096;

struct Outcome {
  bool known = false;
  std::string result;  // "ok", "refused", "error"
  std::string name;    // the object, when only the answer names it
  std::string message;
};

// Many jobs in one answer: how many went in, and the first refusal's reason.
// The names are in the hub's log and in get jobs; a line per batch stays short.
Outcome batch_outcome(const protocol::SubmitJobsReply& reply) {
  if (!reply.ok) return {true, "refused", "", reply.error};
  if (reply.jobs.size() == 1) {  // one job: the line a SubmitJobReply makes
    const protocol::SubmittedJob& job = reply.jobs.front();
    return {true, job.ok ? "ok" : "refused", job.job, job.error};
  }
  std::size_t accepted = 0;
  const protocol::SubmittedJob* first_refused = nullptr;
  for (const protocol::SubmittedJob& job : reply.jobs) {
    if (job.ok)
      ++accepted;
    else if (first_refused == nullptr)
      first_refused = &job;
  }
  std::string message = std::to_string(accepted) + " job(s) submitted";
  if (first_refused != nullptr)
    message += ", " + std::to_string(reply.jobs.size() - accepted) + " refused (document " +
               std::to_string(first_refused->document) + ": " + first_refused->error + ")";
  return {true, first_refused == nullptr ? "ok" : "refused", "", message};
}

Outcome outcome_of(std::string_view frame) {
  Outcome outcome;
  protocol::DecodeError error;
  const std::optional<protocol::Envelope> envelope = protocol::decode_envelope(frame, error);
  if (!envelope) return outcome;
  switch (envelope->type) {
    case protocol::MessageType::kSubmitJobReply:
      if (auto reply = protocol::decode_payload<protocol::SubmitJobReply>(*envelope, error)) {
        outcome = {true, reply->ok ? "ok" : "refused", reply->job, reply->error};
      }
      break;
    case protocol::MessageType::kSubmitJobsReply:
      if (auto reply = protocol::decode_payload<protocol::SubmitJobsReply>(*envelope, error))
        outcome = batch_outcome(*reply);
      break;
    case protocol::MessageType::kAdminResult:
      if (auto reply = protocol::decode_payload<protocol::AdminResult>(*envelope, error)) {
        outcome = {true, reply->ok ? "ok" : "refused", "",
                   reply->ok ? reply->message : reply->error};
      }
      break;
    case protocol::MessageType::kWebLoginReply:  // the URL holds the ticket: never written
      if (auto reply = protocol::decode_payload<protocol::WebLoginReply>(*envelope, error)) {
        outcome = {true, reply->ok ? "ok" : "refused", "",
                   reply->ok ? "a one-time web login ticket" : reply->error};
      }
      break;
    case protocol::MessageType::kErrorReply:
      if (auto reply = protocol::decode_payload<protocol::ErrorReply>(*envelope, error)) {
        outcome = {true, "error", "", reply->code + ": " + reply->message};
      }
      break;
    default:
      break;
  }
  return outcome;
}

}  // namespace

AuditLog::AuditLog(const std::filesystem::path& file) : path_(file) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw std::runtime_error("cannot open the audit log " + file.string() + ": " +
                             std::strerror(errno));
  }
  file_ = ::fdopen(fd, "a");
  if (file_ == nullptr) {
    ::close(fd);
    throw std::runtime_error("cannot open the audit log " + file.string());
  }
}

AuditLog::~AuditLog() {
  if (file_ != nullptr) std::fclose(file_);
}

void AuditLog::requested(const std::string& peer, std::uint64_t seq, const Principal& who,
                         AuditedAction action) {
  std::lock_guard lock(mutex_);
  if (pending_.size() >= kMostPending) pending_.erase(pending_.begin());
  pending_[{peer, seq}] = Pending{who.name, who.role, std::move(action)};
}

void AuditLog::answered(const std::string& peer, std::string_view frame, std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  if (pending_.empty()) return;
  protocol::DecodeError error;
  const std::optional<protocol::Envelope> envelope = protocol::decode_envelope(frame, error);
  if (!envelope) return;
  const auto found = pending_.find({peer, envelope->seq});
  if (found == pending_.end()) return;
  const Outcome outcome = outcome_of(frame);
  write(found->second, outcome.known ? outcome.result : "unknown", outcome.name, outcome.message,
        now_ms);
  pending_.erase(found);
}

void AuditLog::refused(const Principal& who, const AuditedAction& action, std::string_view why,
                       std::int64_t now_ms) {
  record(who, action, "forbidden", why, now_ms);
}

void AuditLog::record(const Principal& who, const AuditedAction& action, std::string_view result,
                      std::string_view message, std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  write(Pending{who.name, who.role, action}, result, "", message, now_ms);
}

void AuditLog::write(const Pending& entry, std::string_view result, std::string_view object_name,
                     std::string_view message, std::int64_t now_ms) {
  nlohmann::ordered_json line = {
      {"time", format_utc(now_ms)},
      {"key", entry.key},
      {"role", role_name(entry.role)},
      {"action", entry.action.action},
      {"kind", entry.action.kind},
      {"name", entry.action.name.empty() ? std::string(object_name) : entry.action.name},
      {"result", result},
      {"message", message},
  };
  const std::string text =
      line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0) {
    spdlog::error("audit log {}: cannot write: {}", path_.string(), std::strerror(errno));
  }
}

}  // namespace gantry::actors
