// Prometheus' text format as support/prometheus_text.hpp writes it; the real
// parser reads it in tests/e2e/metrics_test.py.
#include "support/prometheus_text.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

namespace gantry::support {
namespace {

TEST(PrometheusText, AFamilyHasItsHelpAndTypeThenItsSamples) {
  PrometheusText out;
  out.family("gantry_x", "gauge", "What x is.\nSecond line with a \\.");
  out.sample("gantry_x", {}, 3);
  out.sample("gantry_x", {{"queue", "a"}, {"resource", "cpu"}}, 0.25);
  EXPECT_EQ(out.text(),
            "# HELP gantry_x What x is.\\nSecond line with a \\\\.\n"
            "# TYPE gantry_x gauge\n"
            "gantry_x 3\n"
            "gantry_x{queue=\"a\",resource=\"cpu\"} 0.25\n");
}

TEST(PrometheusText, LabelValuesEscapeQuotesBackslashesAndNewlines) {
  PrometheusText out;
  out.sample("m", {{"l", "a\"b\\c\nd"}}, 1);
  EXPECT_EQ(out.text(), "m{l=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST(PrometheusText, ValuesAreShortestAndSpecialsSpelledAsTheFormatWants) {
  EXPECT_EQ(metric_value(3), "3");
  EXPECT_EQ(metric_value(0.1), "0.1");
  EXPECT_EQ(metric_value(-2.5), "-2.5");
  EXPECT_EQ(metric_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(metric_value(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(metric_value(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

TEST(PrometheusText, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  Histogram histogram({1, 2, 4});
  for (const double value : {0.5, 1.0, 3.0, 9.0}) histogram.observe(value);
  PrometheusText out;
  out.histogram("w", {{"q", "a"}}, histogram);
  EXPECT_EQ(out.text(),
            "w_bucket{q=\"a\",le=\"1\"} 2\n"  // 0.5 and 1: a bucket is "less than or equal"
            "w_bucket{q=\"a\",le=\"2\"} 2\n"
            "w_bucket{q=\"a\",le=\"4\"} 3\n"
            "w_bucket{q=\"a\",le=\"+Inf\"} 4\n"
            "w_sum{q=\"a\"} 13.5\n"
            "w_count{q=\"a\"} 4\n");
}

TEST(PrometheusText, AHistogramWithoutLabelsGetsOnlyLe) {
  Histogram histogram({0.5});
  histogram.observe(0.1);
  PrometheusText out;
  out.histogram("p", {}, histogram);
  EXPECT_EQ(out.text(), "p_bucket{le=\"0.5\"} 1\np_bucket{le=\"+Inf\"} 1\np_sum 0.1\np_count 1\n");
}

TEST(PrometheusText, ExponentialBucketsDouble) {
  EXPECT_EQ(exponential_buckets(1, 2, 4), (std::vector<double>{1, 2, 4, 8}));
  EXPECT_THROW(Histogram({2, 1}), std::invalid_argument);
}

}  // namespace
}  // namespace gantry::support
