#include "config/kube_names.hpp"

#include "config/input_limits.hpp"
#include "hub/field_error.hpp"

namespace gantry::config {

using hub::FieldError;

namespace {

bool is_lower_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool is_alnum(char c) {
  return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool is_dns_label(std::string_view text) {
  if (text.empty() || text.size() > kMaxDnsLabelBytes) return false;
  if (!is_lower_alnum(text.front()) || !is_lower_alnum(text.back())) return false;
  for (const char c : text)
    if (!is_lower_alnum(c) && c != '-') return false;
  return true;
}

// Labels joined by '.', at most 253 characters.
bool is_dns_subdomain(std::string_view text) {
  if (text.empty() || text.size() > kMaxSubdomainBytes) return false;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = text.find('.', start);
    if (!is_dns_label(text.substr(start, dot == std::string_view::npos ? dot : dot - start)))
      return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63: a label value or the
// name part of a qualified name.
bool is_label_name(std::string_view text) {
  if (text.empty() || text.size() > kMaxLabelNameBytes) return false;
  if (!is_alnum(text.front()) || !is_alnum(text.back())) return false;
  for (const char c : text)
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

void check_qualified_name(const std::string& field, const std::string& key) {
  const std::size_t slash = key.find('/');
  const std::string_view name =
      slash == std::string::npos ? std::string_view(key) : std::string_view(key).substr(slash + 1);
  if (slash != std::string::npos) {
    const std::string_view prefix = std::string_view(key).substr(0, slash);
    if (!is_dns_subdomain(prefix))
      throw FieldError(field, key,
                       "the key's prefix must be a DNS subdomain of at most " +
                           std::to_string(kMaxLabelPrefixBytes) + " characters");
  }
  if (!is_label_name(name))
    throw FieldError(field, key,
                     "the key's name must be at most " + std::to_string(kMaxLabelNameBytes) +
                         " letters, digits, '-', '_' and '.', starting and ending with a letter "
                         "or digit");
}

}  // namespace

void check_dns_subdomain(const std::string& field, const std::string& name) {
  if (name.empty()) throw FieldError(field, "", "is required");
  if (!is_dns_subdomain(name))
    throw FieldError(field, name,
                     "must be a DNS-1123 subdomain of at most " +
                         std::to_string(kMaxSubdomainBytes) +
                         " characters: lowercase letters, digits, '-' and '.', starting and "
                         "ending with a letter or digit");
}

void check_dns_label(const std::string& field, const std::string& name) {
  if (name.empty()) throw FieldError(field, "", "is required");
  if (!is_dns_label(name))
    throw FieldError(field, name,
                     "must be a DNS-1123 label of at most " + std::to_string(kMaxDnsLabelBytes) +
                         " characters: lowercase letters, digits and '-', starting and ending "
                         "with a letter or digit");
}

void check_labels(const protocol::Labels& labels, const std::string& field) {
  if (labels.size() > kMaxLabels)
    throw FieldError(
        field, "",
        std::to_string(labels.size()) + " entries exceed the limit " + std::to_string(kMaxLabels));
  for (const auto& [key, value] : labels) {
    const std::string item = field + "." + key;
    check_qualified_name(item, key);
    if (!value.empty() && !is_label_name(value))
      throw FieldError(item, value,
                       "a label value must be empty or at most " +
                           std::to_string(kMaxLabelValueBytes) +
                           " letters, digits, '-', '_' and '.', starting and ending with a "
                           "letter or digit");
  }
}

void check_annotations(const protocol::Labels& annotations, const std::string& field) {
  std::size_t total = 0;
  for (const auto& [key, value] : annotations) {
    check_qualified_name(field + "." + key, key);
    total += key.size() + value.size();
  }
  if (total > kMaxAnnotationsBytes)
    throw FieldError(field, "",
                     std::to_string(total) + " bytes of keys and values exceed the limit " +
                         std::to_string(kMaxAnnotationsBytes));
}

}  // namespace gantry::config
