// A Karmada ResourceBinding (and the workload it binds) as the gateway reads
// them from the Karmada API server: which bindings Gantry schedules, the
// binding's key and workload path, the Volcano Job document made of it (and
// parsed by Gantry's own reader), a released decision, and a member's
// progress. The input is one JSON value: a binding, or an array
// [binding, workload]. Bad objects may throw a std::exception (the gateway
// logs it and goes on); nothing may crash.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <string_view>

#include "config/volcano_job.hpp"
#include "karmada/binding_job.hpp"
#include "karmada/decision.hpp"
#include "karmada/scheduled_bindings.hpp"
#include "karmada/workload_status.hpp"

namespace {

using nlohmann::json;
using namespace gantry::karmada;

// Each reader on its own: one that throws does not hide the next.
template <class Read>
void guarded(Read&& read) {
  try {
    read();
  } catch (const std::exception&) {
  }
}

void read_binding(const json& binding, const json* workload) {
  guarded([&] { (void)gantry_schedules(binding); });
  guarded([&] { (void)job_name(binding_key(binding)); });
  guarded([&] { (void)workload_path(binding); });
  guarded([&] {
    if (workload) (void)split_refusal(*workload);
  });
  guarded([&] { (void)refused_split(binding, workload); });
  guarded([&] { (void)gantry::config::parse_volcano_job(job_document(binding, workload)); });
  guarded([&] { (void)is_suspended(binding); });
  guarded([&] {
    if (auto decision = released_decision(binding)) (void)parse_decision(decision_json(*decision));
  });
  guarded([&] { (void)part_progress(binding, "east"); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  json input;
  try {
    input = json::parse(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const json::exception&) {  // parse_error, or out_of_range (1e999)
    return 0;
  }
  if (input.is_array() && input.size() == 2) {
    read_binding(input[0], &input[1]);
  } else {
    read_binding(input, nullptr);
  }
  return 0;
}
