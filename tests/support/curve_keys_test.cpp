#include "support/curve_keys.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "support/temp_dir.hpp"

namespace gantry::support {
namespace {

mode_t mode_of(const std::filesystem::path& file) {
  struct stat status {};
  EXPECT_EQ(::stat(file.c_str(), &status), 0) << file;
  return status.st_mode & 0777;
}

std::string text_of(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The message of the runtime_error `read` throws; fails the test when none.
template <class Read>
std::string error_from(Read read) {
  try {
    read();
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  ADD_FAILURE() << "no error thrown";
  return {};
}

TEST(CurveKeys, GeneratedKeysAreFortyZ85CharactersAndDiffer) {
  const CurveKeyPair first = generate_curve_keypair("alice");
  const CurveKeyPair second = generate_curve_keypair("alice");
  EXPECT_EQ(first.name, "alice");
  EXPECT_TRUE(is_z85_key(first.public_key));
  EXPECT_TRUE(is_z85_key(first.secret_key));
  EXPECT_NE(first.public_key, first.secret_key);
  EXPECT_NE(first.public_key, second.public_key);
}

TEST(CurveKeys, WrittenFilesReadBackWithTheirModes) {
  TempDir dir;
  const CurveKeyPair keys = generate_curve_keypair("east-agent");
  write_key_files(keys, dir.path() / "keys");

  EXPECT_EQ(mode_of(dir.path() / "keys"), 0700u);
  EXPECT_EQ(mode_of(dir.path() / "keys" / "east-agent.key"), 0600u);
  EXPECT_EQ(mode_of(dir.path() / "keys" / "east-agent.pub"), 0644u);

  const CurveKeyPair read = read_secret_key_file(dir.path() / "keys" / "east-agent.key");
  EXPECT_EQ(read.name, "east-agent");
  EXPECT_EQ(read.public_key, keys.public_key);
  EXPECT_EQ(read.secret_key, keys.secret_key);
  EXPECT_EQ(read_public_key_file(dir.path() / "keys" / "east-agent.pub"), keys.public_key);
  EXPECT_EQ(read_public_key_file(dir.path() / "keys" / "east-agent.key"), keys.public_key);
}

TEST(CurveKeys, PublicFileHoldsNoSecretAndIsZcertShaped) {
  TempDir dir;
  const CurveKeyPair keys = generate_curve_keypair("alice");
  write_key_files(keys, dir.path());
  const std::string public_text = text_of(dir.path() / "alice.pub");
  EXPECT_EQ(public_text.find(keys.secret_key), std::string::npos);
  EXPECT_EQ(public_text.find("secret-key"), std::string::npos);
  EXPECT_NE(public_text.find("metadata\n    name = \"alice\"\ncurve\n    public-key = \"" +
                             keys.public_key + "\""),
            std::string::npos);
}

TEST(CurveKeys, ReadsABareKeyAndAHandWrittenZcert) {
  TempDir dir;
  const CurveKeyPair keys = generate_curve_keypair("bob");
  EXPECT_EQ(read_public_key_file(dir.write("bare.pub", "# pasted\n\n" + keys.public_key + "\n")),
            keys.public_key);
  const auto zcert = dir.write("bob.key",
                               "#   ZeroMQ CURVE **Secret** Certificate\n"
                               "metadata\n"
                               "curve\n"
                               "    public-key = \"" +
                                   keys.public_key +
                                   "\"\n"
                                   "    secret-key = \"" +
                                   keys.secret_key + "\"\n");
  const CurveKeyPair read = read_secret_key_file(zcert);
  EXPECT_EQ(read.name, "bob");  // no metadata name: the file's stem
  EXPECT_EQ(read.secret_key, keys.secret_key);
}

TEST(CurveKeys, RefusesToOverwriteASecretKey) {
  TempDir dir;
  write_key_files(generate_curve_keypair("alice"), dir.path());
  const std::string before = text_of(dir.path() / "alice.key");
  const std::string message =
      error_from([&] { write_key_files(generate_curve_keypair("alice"), dir.path()); });
  EXPECT_NE(message.find((dir.path() / "alice.key").string()), std::string::npos) << message;
  EXPECT_NE(message.find("already exists"), std::string::npos) << message;
  EXPECT_EQ(text_of(dir.path() / "alice.key"), before);
}

TEST(CurveKeys, RefusesNamesThatAreNotPlainFileNames) {
  for (const std::string name : {"", "../evil", "a/b", ".hidden", "quote\"d", "new\nline"}) {
    EXPECT_THROW(generate_curve_keypair(name), std::runtime_error) << name;
  }
}

TEST(CurveKeys, BadFilesAreRefusedNamingTheFile) {
  TempDir dir;
  const CurveKeyPair keys = generate_curve_keypair("alice");
  const CurveKeyPair other = generate_curve_keypair("other");
  write_key_files(keys, dir.path());

  struct Case {
    std::filesystem::path file;
    std::string expected;
    bool secret;
  };
  const Case cases[] = {
      {dir.path() / "missing.key", "cannot read", true},
      {dir.path() / "alice.pub", "no secret-key", true},
      {dir.write("empty.pub", ""), "no public-key", false},
      {dir.write("short.pub", "curve\n    public-key = \"abc\"\n"), "not a 40-character Z85",
       false},
      {dir.write("junk.pub", "curve\n    what is this\n"), "line 2", false},
      {dir.write("mismatch.key", "curve\n    public-key = \"" + other.public_key +
                                     "\"\n    secret-key = \"" + keys.secret_key + "\"\n"),
       "does not belong", true},
      {dir.write("huge.pub", std::string(100 * 1024, '#')), "at most", false},
  };
  for (const Case& bad : cases) {
    const std::string message = error_from([&] {
      if (bad.secret) {
        read_secret_key_file(bad.file);
      } else {
        read_public_key_file(bad.file);
      }
    });
    EXPECT_NE(message.find(bad.file.string()), std::string::npos) << message;
    EXPECT_NE(message.find(bad.expected), std::string::npos) << message;
  }
}

TEST(CurveKeys, Z85KeyCheck) {
  EXPECT_TRUE(is_z85_key(generate_curve_keypair("x").public_key));
  EXPECT_FALSE(is_z85_key(""));
  EXPECT_FALSE(is_z85_key(std::string(39, 'a')));
  EXPECT_FALSE(is_z85_key(std::string(40, '"')));  // outside the alphabet
  EXPECT_FALSE(is_z85_key(std::string(40, '#')));  // alphabet, but overflows 32 bits
}

}  // namespace
}  // namespace gantry::support
