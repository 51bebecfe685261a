// Writes the seed corpus of fuzz_envelope: one frame of every wire message,
// with every field set (tests/protocol/sample_messages.hpp), as DIR/<Name>.
// Run it again when a message changes:
//   build-fuzz/bin/make_envelope_seeds tests/fuzz/corpus/envelope
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "protocol/envelope.hpp"
#include "tests/protocol/sample_messages.hpp"

namespace {

using namespace gantry::protocol;

template <class Message>
void write_sample(const std::filesystem::path& dir, std::uint64_t seq) {
  std::ofstream(dir / Message::kWireName, std::ios::binary)
      << encode(gantry::protocol::testing::sample<Message>(), seq);
}

template <class... Messages>
void write_samples(const std::filesystem::path& dir, MessageList<Messages...>) {
  std::uint64_t seq = 1;
  (write_sample<Messages>(dir, seq++), ...);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  write_samples(dir, AllMessages{});
  return 0;
}
