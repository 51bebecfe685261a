#include "tests/kube/test_pki.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace gantry::kube::testing {
namespace {

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void openssl(const std::filesystem::path& dir, const std::string& arguments) {
  const std::string command =
      "cd '" + dir.string() + "' && openssl " + arguments + " >>openssl.log 2>&1";
  if (std::system(command.c_str()) != 0) {
    throw std::runtime_error("openssl " + arguments + " failed:\n" +
                             read_text(dir / "openssl.log"));
  }
}

const char* kNewEcKey = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";

void make_ca(const std::filesystem::path& dir, const std::string& name) {
  openssl(dir, std::string("req -x509 ") + kNewEcKey + " -keyout " + name + ".key -out " + name +
                   ".crt -days 2 -subj /CN=" + name +
                   " -addext basicConstraints=critical,CA:TRUE"
                   " -addext keyUsage=critical,keyCertSign,cRLSign");
}

// A leaf certificate `name` (CN=name) signed by `ca`.crt with the extensions in `extensions`.
void make_leaf(const std::filesystem::path& dir, const std::string& name,
               const std::string& extensions, const std::string& ca = "ca") {
  make_test_leaf(dir, name, "/CN=" + name, extensions, ca);
}

}  // namespace

void make_test_leaf(const std::filesystem::path& dir, const std::string& name,
                    const std::string& subject, const std::string& extensions,
                    const std::string& ca) {
  std::ofstream(dir / (name + ".ext")) << extensions;
  openssl(dir, std::string("req ") + kNewEcKey + " -keyout " + name + ".key -out " + name +
                   ".csr -subj " + subject);
  openssl(dir, "x509 -req -in " + name + ".csr -CA " + ca + ".crt -CAkey " + ca +
                   ".key -CAcreateserial -out " + name + ".crt -days 2 -extfile " + name + ".ext");
}

TestPki make_test_pki(const std::filesystem::path& dir) {
  make_ca(dir, "ca");
  make_ca(dir, "other-ca");
  make_leaf(dir, "server",
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
  make_leaf(dir, "elsewhere", "subjectAltName=DNS:elsewhere.test\nextendedKeyUsage=serverAuth\n");
  make_leaf(dir, "client", "extendedKeyUsage=clientAuth\n");
  make_leaf(dir, "stranger", "extendedKeyUsage=clientAuth\n", "other-ca");

  TestPki pki;
  pki.dir = dir;
  pki.ca_file = dir / "ca.crt";
  pki.server_cert_file = dir / "server.crt";
  pki.server_key_file = dir / "server.key";
  pki.elsewhere_cert_file = dir / "elsewhere.crt";
  pki.elsewhere_key_file = dir / "elsewhere.key";
  pki.client_cert_file = dir / "client.crt";
  pki.client_key_file = dir / "client.key";
  pki.other_ca_file = dir / "other-ca.crt";
  pki.stranger_cert_file = dir / "stranger.crt";
  pki.stranger_key_file = dir / "stranger.key";
  pki.ca_pem = read_text(pki.ca_file);
  pki.other_ca_pem = read_text(pki.other_ca_file);
  pki.client_cert_pem = read_text(pki.client_cert_file);
  pki.client_key_pem = read_text(pki.client_key_file);
  return pki;
}

}  // namespace gantry::kube::testing
