// The Karmada mutating webhook's request body, read as the webhook server's
// review_reply does: JSON, then admission_response, then the answer dumped.
// A body that is not JSON or not a well-formed AdmissionReview throws (the
// server answers 400); nothing may crash.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <string_view>

#include "karmada/admission.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  nlohmann::json review;
  try {
    review = nlohmann::json::parse(body);
  } catch (const nlohmann::json::exception&) {  // parse_error, or out_of_range (1e999)
    return 0;
  }
  try {
    (void)gantry::karmada::admission_response(review).dump();
  } catch (const std::exception&) {
  }
  return 0;
}
