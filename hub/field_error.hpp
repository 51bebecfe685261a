// The error every user-input parser throws: it names the field and the value.
#pragma once

#include <stdexcept>
#include <string>

namespace gantry::hub {

class FieldError : public std::runtime_error {
 public:
  FieldError(std::string field, std::string value, const std::string& problem)
      : std::runtime_error(field + ": " + problem +
                           (value.empty() ? "" : " (got \"" + value + "\")")),
        field_(std::move(field)),
        value_(std::move(value)) {}
  const std::string& field() const { return field_; }
  const std::string& value() const { return value_; }

 private:
  std::string field_;
  std::string value_;
};

}  // namespace gantry::hub
