// The error every user-input parser throws: it names the field and the value.
// The message quotes a bounded excerpt of the value (support/text_excerpt.hpp):
// values come from outside and may be huge or not UTF-8.
#pragma once

#include <stdexcept>
#include <string>

#include "support/text_excerpt.hpp"

namespace gantry::hub {

class FieldError : public std::runtime_error {
 public:
  // A field path holds keys from the input (label keys, map keys): bounded too.
  static constexpr std::size_t kMaxFieldBytes = 512;

  FieldError(std::string field, std::string value, const std::string& problem)
      : std::runtime_error(
            support::text_excerpt(field, kMaxFieldBytes) + ": " + problem +
            (value.empty() ? "" : " (got \"" + support::text_excerpt(value) + "\")")),
        field_(std::move(field)),
        value_(std::move(value)) {}
  const std::string& field() const { return field_; }
  const std::string& value() const { return value_; }

 private:
  std::string field_;
  std::string value_;
};

}  // namespace gantry::hub
