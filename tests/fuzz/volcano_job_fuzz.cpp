// A Volcano Job manifest as `gantryctl submit` sends it: parsed as the hub's
// submission path does (config::parse_volcano_job, then the core's
// make_job_request). Bad input may throw (hub::FieldError or another
// std::exception, which the hub answers with its message); nothing may crash.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string_view>

#include "config/volcano_job.hpp"
#include "hub/job_request.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view yaml(reinterpret_cast<const char*>(data), size);
  try {
    auto spec =
        std::make_shared<const gantry::protocol::JobSpec>(gantry::config::parse_volcano_job(yaml));
    (void)gantry::hub::make_job_request(std::move(spec));
  } catch (const std::exception&) {
  }
  return 0;
}
