// Base64 as kubeconfigs, webhook patches and etcd's gateway need it: the
// RFC 4648 vectors both ways, every byte value, line breaks skipped, and
// what is not base64 refused.
#include "support/base64.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gantry::support {
namespace {

TEST(Base64, Rfc4648VectorsBothWays) {
  const std::pair<std::string, std::string> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"},
                                                         {std::string("\xff\xfe\x00", 3), "//4A"}};
  for (const auto& [bytes, text] : vectors) {
    EXPECT_EQ(encode_base64(bytes), text);
    EXPECT_EQ(decode_base64(text), bytes) << text;
  }
}

TEST(Base64, EveryByteValueRoundTrips) {
  std::string bytes;
  for (int byte = 255; byte >= 0; --byte) bytes.push_back(static_cast<char>(byte));
  EXPECT_EQ(decode_base64(encode_base64(bytes)), bytes);
}

TEST(Base64, LineBreaksAreSkippedAndWhatIsNotBase64IsRefused) {
  EXPECT_EQ(decode_base64("aGVs\nbG8h"), "hello!");
  EXPECT_EQ(decode_base64(" aGVsbG8=\r\n"), "hello");
  EXPECT_FALSE(decode_base64("aGVsbG8"));   // length not a multiple of 4
  EXPECT_FALSE(decode_base64("aGV*bG8h"));  // not in the alphabet
  EXPECT_FALSE(decode_base64("aG=sbG8h"));  // padding inside
  EXPECT_FALSE(decode_base64("aGVsb==="));  // three padding characters
}

}  // namespace
}  // namespace gantry::support
