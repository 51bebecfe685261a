// Prometheus' text exposition format (version 0.0.4), written by hand because
// Debian has no C++ client library: metric families with their HELP and TYPE
// lines, samples with escaped labels, and histograms as cumulative buckets.
// https://prometheus.io/docs/instrumenting/exposition_formats/
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gantry::support {

// The Content-Type a scraper expects for this format.
inline constexpr std::string_view kPrometheusContentType =
    "text/plain; version=0.0.4; charset=utf-8";

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

// Observations counted into fixed upper bounds (seconds, bytes: base units).
// Kept per bucket; written cumulatively, as the format wants.
class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void observe(double value);

  const std::vector<double>& upper_bounds() const { return bounds_; }
  // Per bucket, not cumulative; one more than the bounds: the +Inf bucket.
  const std::vector<std::uint64_t>& counts() const { return counts_; }
  double sum() const { return sum_; }
  std::uint64_t count() const { return count_; }

 private:
  std::vector<double> bounds_;  // ascending
  std::vector<std::uint64_t> counts_;
  double sum_ = 0;
  std::uint64_t count_ = 0;
};

// `first * factor^i` for i < count, as client_golang's ExponentialBuckets.
std::vector<double> exponential_buckets(double first, double factor, int count);

class PrometheusText {
 public:
  // Starts a family: its HELP and TYPE lines. Every sample of the family
  // follows, before the next family starts (the format requires it).
  void family(std::string_view name, std::string_view type, std::string_view help);
  void sample(std::string_view name, const MetricLabels& labels, double value);
  // name_bucket{...,le="B"} cumulatively, then name_sum and name_count.
  void histogram(std::string_view name, const MetricLabels& labels, const Histogram& histogram);

  const std::string& text() const { return text_; }
  std::string take() { return std::move(text_); }

 private:
  void labelled(std::string_view name, const MetricLabels& labels, std::string_view le);

  std::string text_;
};

// A sample value as the format writes it: integers without a fraction,
// "+Inf", "-Inf", "NaN".
std::string metric_value(double value);

}  // namespace gantry::support
