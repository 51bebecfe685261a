#include "support/prometheus_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace gantry::support {

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(bounds_.size() + 1, 0) {
  if (!std::is_sorted(bounds_.begin(), bounds_.end()))
    throw std::invalid_argument("histogram bounds must be ascending");
}

void Histogram::observe(double value) {
  // The first bound at or above the value: buckets are "less than or equal".
  const auto bucket = std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin();
  ++counts_[static_cast<std::size_t>(bucket)];
  sum_ += value;
  ++count_;
}

std::vector<double> exponential_buckets(double first, double factor, int count) {
  std::vector<double> bounds;
  for (double bound = first; static_cast<int>(bounds.size()) < count; bound *= factor)
    bounds.push_back(bound);
  return bounds;
}

std::string metric_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // The shortest text that reads back as the same double: "3", "0.25".
  char text[32];
  const auto written = std::to_chars(text, text + sizeof text, value);
  return std::string(text, written.ptr);
}

namespace {

// Label values escape backslash, double quote and newline; HELP text escapes
// backslash and newline.
void append_escaped(std::string& out, std::string_view text, bool quote) {
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

}  // namespace

void PrometheusText::family(std::string_view name, std::string_view type, std::string_view help) {
  text_ += "# HELP ";
  text_ += name;
  text_ += ' ';
  append_escaped(text_, help, false);
  text_ += "\n# TYPE ";
  text_ += name;
  text_ += ' ';
  text_ += type;
  text_ += '\n';
}

void PrometheusText::labelled(std::string_view name, const MetricLabels& labels,
                              std::string_view le) {
  text_ += name;
  if (labels.empty() && le.empty()) return;
  char separator = '{';
  for (const auto& [label, value] : labels) {
    text_ += separator;
    text_ += label;
    text_ += "=\"";
    append_escaped(text_, value, true);
    text_ += '"';
    separator = ',';
  }
  if (!le.empty()) {
    text_ += separator;
    text_ += "le=\"";
    text_ += le;
    text_ += '"';
  }
  text_ += '}';
}

void PrometheusText::sample(std::string_view name, const MetricLabels& labels, double value) {
  labelled(name, labels, "");
  text_ += ' ';
  text_ += metric_value(value);
  text_ += '\n';
}

void PrometheusText::histogram(std::string_view name, const MetricLabels& labels,
                               const Histogram& histogram) {
  const std::string bucket = std::string(name) + "_bucket";
  std::uint64_t cumulative = 0;
  const auto& counts = histogram.counts();
  for (std::size_t i = 0; i < counts.size(); ++i) {
    cumulative += counts[i];
    const bool last = i == histogram.upper_bounds().size();
    labelled(bucket, labels, last ? "+Inf" : metric_value(histogram.upper_bounds()[i]));
    text_ += ' ';
    text_ += metric_value(static_cast<double>(cumulative));
    text_ += '\n';
  }
  sample(std::string(name) + "_sum", labels, histogram.sum());
  sample(std::string(name) + "_count", labels, static_cast<double>(histogram.count()));
}

}  // namespace gantry::support
