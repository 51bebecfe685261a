// What a log line is about: the job, the cluster and the dispatch the code
// now handles, set for a scope on this thread. The JSON log format
// (support/log_format.hpp) adds them as keys; the text format leaves them out.
//
// A scope costs two string_views and an optional copied in and out, nothing
// is formatted or allocated: set it where one job or dispatch is handled,
// whatever the log level.
//
//   const support::LogScope log_scope({.job = job.name, .cluster = cluster});
//
// The views must outlive the scope. Loggers must be synchronous (spdlog's
// default): the formatter reads the fields on the thread that logs.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gantry::support {

// Default member initializers: GCC 12 warns about fields a designated
// initializer leaves out otherwise (-Wmissing-field-initializers).
struct LogFields {
  std::string_view job{};      // "": none
  std::string_view cluster{};  // "": none
  std::optional<std::uint64_t> dispatch{};
};

namespace log_fields_detail {
inline thread_local LogFields current;
}  // namespace log_fields_detail

// The fields of the innermost scope on this thread.
inline const LogFields& current_log_fields() {
  return log_fields_detail::current;
}

// Sets `fields` until it ends; a field it leaves unset keeps the outer
// scope's value (a cluster's message, then one job of it).
class LogScope {
 public:
  explicit LogScope(const LogFields& fields) : outer_(log_fields_detail::current) {
    LogFields& current = log_fields_detail::current;
    if (!fields.job.empty()) current.job = fields.job;
    if (!fields.cluster.empty()) current.cluster = fields.cluster;
    if (fields.dispatch) current.dispatch = fields.dispatch;
  }
  ~LogScope() { log_fields_detail::current = outer_; }
  LogScope(const LogScope&) = delete;
  LogScope& operator=(const LogScope&) = delete;

 private:
  LogFields outer_;
};

}  // namespace gantry::support
