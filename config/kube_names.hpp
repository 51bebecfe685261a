// Names, label keys and values, and annotations, validated as Kubernetes
// validates them (apimachinery's IsDNS1123Subdomain, IsDNS1123Label,
// IsQualifiedName, IsValidLabelValue, ValidateAnnotations), with the lengths of
// config/input_limits.hpp. Hand-written scanners rather than std::regex:
// libstdc++'s regex recurses once per character and a long enough input
// overflows the stack. Each throws hub::FieldError naming `field`.
#pragma once

#include <string>

#include "protocol/messages.hpp"

namespace gantry::config {

// Lowercase letters, digits, '-' and '.', starting and ending with a letter or
// digit, at most 253 characters: jobs, queues, PriorityClasses.
void check_dns_subdomain(const std::string& field, const std::string& name);

// Lowercase letters, digits and '-', starting and ending with a letter or
// digit, at most 63 characters: task names, which become host names.
void check_dns_label(const std::string& field, const std::string& name);

// metadata.labels (and nodeSelector): at most kMaxLabels entries, each key a
// qualified name ([prefix/]name), each value empty or a 63-character name.
void check_labels(const protocol::Labels& labels, const std::string& field);

// metadata.annotations: qualified-name keys, at most kMaxAnnotationsBytes of
// keys and values together.
void check_annotations(const protocol::Labels& annotations, const std::string& field);

}  // namespace gantry::config
