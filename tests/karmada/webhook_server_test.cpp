// The admission webhook over real HTTPS: a throw-away CA signs a serving
// certificate for 127.0.0.1 (openssl CLI), the server listens on a port the
// kernel picks, and a Beast client that verifies the chain and the IP SAN
// talks to it like Karmada's API server would. With a client CA set, clients
// present certificates from the kube tests' PKI (tests/kube/test_pki.hpp),
// whose CA is apart from the serving one.
#include "karmada/webhook_server.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

#include "support/temp_dir.hpp"
#include "tests/kube/test_pki.hpp"

namespace gantry::karmada {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using nlohmann::json;
using Response = http::response<http::string_body>;

// Extensions for the CA and the serving certificate, independent of the
// system's openssl.cnf.
constexpr const char* kOpensslConfig = R"([req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca_ext]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1
authorityKeyIdentifier = keyid
)";

// A CA and a server certificate + key signed by it, made once for the suite.
struct Pki {
  support::TempDir dir{"gantry-webhook-test"};
  std::filesystem::path ca_cert() const { return dir.path() / "ca.crt"; }
  std::filesystem::path server_cert() const { return dir.path() / "tls.crt"; }
  std::filesystem::path server_key() const { return dir.path() / "tls.key"; }

  // Runs `openssl ARGS` in the directory; returns false (with the log kept)
  // when it fails.
  bool openssl(const std::string& args) const {
    const std::string command =
        "cd '" + dir.path().string() + "' && openssl " + args + " >>openssl.log 2>&1";
    return std::system(command.c_str()) == 0;
  }

  bool make() {
    dir.write("openssl.cnf", kOpensslConfig);
    const std::string ec_key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    const bool made =
        openssl("req -x509 -config openssl.cnf -extensions ca_ext " + ec_key +
                " -keyout ca.key -out ca.crt -days 2 -subj '/CN=gantry webhook test CA'") &&
        openssl("req -new -config openssl.cnf " + ec_key +
                " -keyout tls.key -out tls.csr -subj '/CN=gantry-hub.gantry-system.svc'") &&
        openssl(
            "x509 -req -in tls.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2"
            " -extfile openssl.cnf -extensions server_ext -out tls.crt");
    if (!made) dir.keep();
    return made;
  }
};

std::string base64_decode(const std::string& text) {
  std::string bytes(text.size() / 4 * 3, '\0');
  const int length = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(bytes.data()),
                                     reinterpret_cast<const unsigned char*>(text.data()),
                                     static_cast<int>(text.size()));
  if (length < 0) throw std::runtime_error("not base64: " + text);
  // EVP_DecodeBlock counts the padding as zero bytes.
  std::size_t padding = 0;
  for (auto it = text.rbegin(); it != text.rend() && *it == '='; ++it) ++padding;
  bytes.resize(static_cast<std::size_t>(length) - padding);
  return bytes;
}

// A client certificate and its key, PEM files.
struct ClientCertificate {
  std::filesystem::path cert;
  std::filesystem::path key;
};

// An HTTPS/1.1 client that trusts only the test CA and checks the server's
// certificate names 127.0.0.1, over one kept-alive connection; it presents
// `certificate` when given one.
class HttpsClient {
 public:
  HttpsClient(std::uint16_t port, const std::filesystem::path& ca_cert,
              const std::optional<ClientCertificate>& certificate = std::nullopt)
      : tls_(client_tls(ca_cert, certificate)), stream_(io_, tls_) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(stream_.native_handle()), "127.0.0.1");
    stream_.next_layer().connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
    stream_.handshake(ssl::stream_base::client);
  }

  Response send(http::verb method, const std::string& target, const std::string& body = "") {
    http::request<http::string_body> request(method, target, 11);
    request.set(http::field::host, "127.0.0.1");
    request.set(http::field::content_type, "application/json");
    request.keep_alive(true);
    request.body() = body;
    request.prepare_payload();
    http::write(stream_, request);
    return receive();
  }

  // Sends bytes as they are (a request head the client never finishes).
  Response send_raw(const std::string& bytes) {
    net::write(stream_, net::buffer(bytes));
    return receive();
  }

  Response post_review(const json& review) {
    return send(http::verb::post, "/mutate-resourcebindings?timeout=10s", review.dump());
  }

 private:
  static ssl::context client_tls(const std::filesystem::path& ca_cert,
                                 const std::optional<ClientCertificate>& certificate) {
    ssl::context tls(ssl::context::tls_client);
    tls.load_verify_file(ca_cert.string());
    tls.set_verify_mode(ssl::verify_peer);
    if (certificate) {
      tls.use_certificate_chain_file(certificate->cert.string());
      tls.use_private_key_file(certificate->key.string(), ssl::context::pem);
    }
    return tls;
  }

  Response receive() {
    Response response;
    http::read(stream_, buffer_, response);
    return response;
  }

  net::io_context io_;
  ssl::context tls_;
  ssl::stream<tcp::socket> stream_;
  beast::flat_buffer buffer_;
};

// A Volcano Job's ResourceBinding as Karmada's resource detector creates it
// (policy with schedulerName gantry, Divided replicas), in an admission.k8s.io/v1
// AdmissionReview for its CREATE.
json binding_create_review(const std::string& uid) {
  const json binding = {
      {"apiVersion", "work.karmada.io/v1alpha2"},
      {"kind", "ResourceBinding"},
      {"metadata",
       {{"name", "ddp-a100-job"},
        {"namespace", "research"},
        {"labels", {{"propagationpolicy.karmada.io/permanent-id", "3c5d6a1e-1111"}}},
        {"ownerReferences",
         {{{"apiVersion", "batch.volcano.sh/v1alpha1"},
           {"kind", "Job"},
           {"name", "ddp-a100"},
           {"uid", "9b1f0c3e-2222"},
           {"controller", true},
           {"blockOwnerDeletion", true}}}}}},
      {"spec",
       {{"resource",
         {{"apiVersion", "batch.volcano.sh/v1alpha1"},
          {"kind", "Job"},
          {"namespace", "research"},
          {"name", "ddp-a100"},
          {"uid", "9b1f0c3e-2222"},
          {"resourceVersion", "48151"}}},
        {"replicaRequirements",
         {{"resourceRequest", {{"cpu", "8"}, {"memory", "64Gi"}, {"nvidia.com/gpu", "8"}}}}},
        {"replicas", 4},
        {"placement",
         {{"clusterAffinity", {{"clusterNames", {"east", "west"}}}},
          {"replicaScheduling",
           {{"replicaSchedulingType", "Divided"}, {"replicaDivisionPreference", "Aggregated"}}}}},
        {"schedulerName", "gantry"},
        {"conflictResolution", "Abort"}}}};
  return {
      {"apiVersion", "admission.k8s.io/v1"},
      {"kind", "AdmissionReview"},
      {"request",
       {{"uid", uid},
        {"kind",
         {{"group", "work.karmada.io"}, {"version", "v1alpha2"}, {"kind", "ResourceBinding"}}},
        {"resource",
         {{"group", "work.karmada.io"}, {"version", "v1alpha2"}, {"resource", "resourcebindings"}}},
        {"requestKind",
         {{"group", "work.karmada.io"}, {"version", "v1alpha2"}, {"kind", "ResourceBinding"}}},
        {"requestResource",
         {{"group", "work.karmada.io"}, {"version", "v1alpha2"}, {"resource", "resourcebindings"}}},
        {"name", "ddp-a100-job"},
        {"namespace", "research"},
        {"operation", "CREATE"},
        {"userInfo",
         {{"username", "system:serviceaccount:karmada-system:karmada-controller-manager"},
          {"groups", {"system:serviceaccounts", "system:authenticated"}}}},
        {"object", binding},
        {"oldObject", nullptr},
        {"dryRun", false},
        {"options", {{"apiVersion", "meta.k8s.io/v1"}, {"kind", "CreateOptions"}}}}}};
}

class WebhookServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    pki_ = new Pki;
    ASSERT_TRUE(pki_->make()) << "openssl failed, see " << pki_->dir.path() / "openssl.log";
  }
  static void TearDownTestSuite() {
    delete pki_;
    pki_ = nullptr;
  }

  void SetUp() override {
    server_ = std::make_unique<WebhookServer>(options());
    server_->start();
  }

  static WebhookOptions options() {
    WebhookOptions options;
    options.listen = "127.0.0.1:0";
    options.cert_pem_file = pki_->server_cert().string();
    options.key_pem_file = pki_->server_key().string();
    return options;
  }

  HttpsClient client() const { return HttpsClient(server_->port(), pki_->ca_cert()); }

  // Asserts a good review is answered 200 with the uid echoed.
  void expect_review_answered(HttpsClient& https, const std::string& uid) const {
    const Response response = https.post_review(binding_create_review(uid));
    ASSERT_EQ(response.result(), http::status::ok) << response.body();
    EXPECT_EQ(json::parse(response.body()).at("response").at("uid"), uid);
  }

  static Pki* pki_;
  std::unique_ptr<WebhookServer> server_;
};

Pki* WebhookServerTest::pki_ = nullptr;

TEST_F(WebhookServerTest, ResourceBindingCreateIsSuspendedForGantryByJsonPatch) {
  HttpsClient https = client();
  const Response response = https.post_review(binding_create_review("705ab4f5-6393-11e8-b7cc"));

  ASSERT_EQ(response.result(), http::status::ok) << response.body();
  EXPECT_EQ(response[http::field::content_type], "application/json");
  const json review = json::parse(response.body());
  EXPECT_EQ(review.at("apiVersion"), "admission.k8s.io/v1");
  EXPECT_EQ(review.at("kind"), "AdmissionReview");
  const json& answer = review.at("response");
  EXPECT_EQ(answer.at("uid"), "705ab4f5-6393-11e8-b7cc");
  EXPECT_EQ(answer.at("allowed"), true);
  EXPECT_EQ(answer.at("patchType"), "JSONPatch");
  const json patch = json::parse(base64_decode(answer.at("patch").get<std::string>()));
  EXPECT_EQ(patch, json::parse(R"([
    {"op": "add", "path": "/spec/suspension", "value": {"scheduling": true}},
    {"op": "add", "path": "/spec/schedulerName", "value": "gantry"}
  ])"));
  EXPECT_EQ(server_->requests_served(), 1u);
}

// A ConfigMap's binding passes as it came: allowed, no patch, no patchType.
TEST_F(WebhookServerTest, ConfigMapBindingPassesUnchanged) {
  HttpsClient https = client();
  json review = binding_create_review("config-map-uid");
  review["request"]["object"]["spec"]["resource"] = {
      {"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"namespace", "research"}, {"name", "settings"}};
  const Response response = https.post_review(review);
  ASSERT_EQ(response.result(), http::status::ok) << response.body();
  EXPECT_EQ(json::parse(response.body()).at("response"),
            (json{{"uid", "config-map-uid"}, {"allowed", true}}));
}

TEST_F(WebhookServerTest, MutateAliasAnswersTheSameReview) {
  HttpsClient https = client();
  const Response response =
      https.send(http::verb::post, "/mutate", binding_create_review("alias-uid").dump());
  ASSERT_EQ(response.result(), http::status::ok) << response.body();
  EXPECT_EQ(json::parse(response.body()).at("response").at("uid"), "alias-uid");
}

TEST_F(WebhookServerTest, BodyThatIsNotJsonIsRefusedAndTheServerKeepsServing) {
  HttpsClient https = client();
  const Response response =
      https.send(http::verb::post, "/mutate-resourcebindings", "{\"apiVersion\": admission");
  EXPECT_EQ(response.result(), http::status::bad_request);
  EXPECT_NE(response.body().find("request body is not JSON"), std::string::npos) << response.body();

  // The same kept-alive connection, then a fresh one, are still answered.
  expect_review_answered(https, "after-bad-json");
  HttpsClient another = client();
  expect_review_answered(another, "fresh-connection");
  EXPECT_EQ(server_->requests_served(), 3u);
}

// The issue's crash: 100,000 nested arrays (200 KB) killed the hub with
// SIGSEGV when the body was dumped for an error message.
TEST_F(WebhookServerTest, DeeplyNestedBodyIsRefusedWithTheLimitAndTheServerKeepsServing) {
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  HttpsClient https = client();
  const Response response = https.send(http::verb::post, "/mutate-resourcebindings", deep);
  EXPECT_EQ(response.result(), http::status::bad_request);
  EXPECT_NE(response.body().find("AdmissionReview: nested deeper than 128 levels"),
            std::string::npos)
      << response.body().substr(0, 300);
  EXPECT_LT(response.body().size(), 1000u);
  expect_review_answered(https, "after-deep-json");
}

// Found by fuzz_admission: nlohmann::json throws out_of_range, not
// parse_error, for a number too large for a double.
TEST_F(WebhookServerTest, BodyWithAnOutOfRangeNumberIsRefusedAndTheServerKeepsServing) {
  HttpsClient https = client();
  const Response response =
      https.send(http::verb::post, "/mutate-resourcebindings", "{\"apiVersion\": 1e999}");
  EXPECT_EQ(response.result(), http::status::bad_request);
  EXPECT_NE(response.body().find("request body is not JSON"), std::string::npos) << response.body();
  expect_review_answered(https, "after-huge-number");
}

TEST_F(WebhookServerTest, ReviewWithoutRequestUidIsRefusedNamingTheField) {
  json review = binding_create_review("dropped");
  review.at("request").erase("uid");
  HttpsClient https = client();
  const Response response = https.post_review(review);
  EXPECT_EQ(response.result(), http::status::bad_request);
  EXPECT_NE(response.body().find("request.uid"), std::string::npos) << response.body();
}

TEST_F(WebhookServerTest, UnknownPathIsNotFoundAndWrongMethodNotAllowed) {
  HttpsClient https = client();
  const Response unknown =
      https.send(http::verb::post, "/validate", binding_create_review("x").dump());
  EXPECT_EQ(unknown.result(), http::status::not_found);
  EXPECT_NE(unknown.body().find("/validate"), std::string::npos) << unknown.body();

  const Response wrong_method = https.send(http::verb::get, "/mutate-resourcebindings");
  EXPECT_EQ(wrong_method.result(), http::status::method_not_allowed);
  EXPECT_EQ(wrong_method[http::field::allow], "POST");
}

TEST_F(WebhookServerTest, HealthzAnswersOk) {
  HttpsClient https = client();
  const Response response = https.send(http::verb::get, "/healthz");
  EXPECT_EQ(response.result(), http::status::ok);
  EXPECT_EQ(response.body(), "ok\n");
}

TEST_F(WebhookServerTest, BodyOverFourMebibytesIsRefusedBeforeItIsRead) {
  HttpsClient https = client();
  // Only the head: the server must answer from Content-Length alone.
  const Response response = https.send_raw(
      "POST /mutate-resourcebindings HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      "Content-Type: application/json\r\nContent-Length: 4194305\r\n\r\n");
  EXPECT_EQ(response.result(), http::status::payload_too_large);
  EXPECT_FALSE(response.keep_alive());

  HttpsClient another = client();
  expect_review_answered(another, "after-too-large");
}

TEST_F(WebhookServerTest, GarbageInsideTlsIsABadRequest) {
  HttpsClient https = client();
  const Response response = https.send_raw("THIS IS NOT HTTP\r\n\r\n");
  EXPECT_EQ(response.result(), http::status::bad_request);
  EXPECT_NE(response.body().find("malformed HTTP request"), std::string::npos) << response.body();

  HttpsClient another = client();
  expect_review_answered(another, "after-bad-http");
}

TEST_F(WebhookServerTest, GarbageAndStalledConnectionsDoNotStopOthersBeingServed) {
  net::io_context io;
  const tcp::endpoint endpoint(net::ip::make_address("127.0.0.1"), server_->port());
  // A client that connects and never speaks holds its own strand only.
  tcp::socket stalled(io);
  stalled.connect(endpoint);

  tcp::socket garbage(io);
  garbage.connect(endpoint);
  // Plain HTTP to the TLS port, the garbage a misconfigured client sends.
  net::write(garbage, net::buffer(std::string("POST /mutate HTTP/1.1\r\nHost: x\r\n\r\n")));
  // The server gives up on the handshake and closes: reading ends (EOF or
  // reset) instead of blocking forever.
  char byte = 0;
  boost::system::error_code ec;
  while (!ec) garbage.read_some(net::buffer(&byte, 1), ec);
  EXPECT_TRUE(ec == net::error::eof || ec == net::error::connection_reset) << ec.message();

  HttpsClient https = client();
  expect_review_answered(https, "after-garbage");
}

TEST_F(WebhookServerTest, StopIsPromptWithAStalledConnectionOpen) {
  net::io_context io;
  tcp::socket stalled(io);
  stalled.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), server_->port()));
  HttpsClient https = client();
  expect_review_answered(https, "before-stop");

  server_->stop();  // returns without waiting out the 30 s timeouts

  // Its connections are closed, not left hanging.
  char byte = 0;
  boost::system::error_code ec;
  while (!ec) stalled.read_some(net::buffer(&byte, 1), ec);
  EXPECT_TRUE(ec == net::error::eof || ec == net::error::connection_reset) << ec.message();
}

TEST_F(WebhookServerTest, MissingCertificateFileIsNamed) {
  WebhookOptions bad = options();
  bad.cert_pem_file = (pki_->dir.path() / "absent.crt").string();
  try {
    WebhookServer server(bad);
    FAIL() << "constructed without a certificate";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("absent.crt"), std::string::npos) << error.what();
  }
}

TEST_F(WebhookServerTest, KeyOfAnotherCertificateIsRefused) {
  WebhookOptions bad = options();
  bad.key_pem_file = (pki_->dir.path() / "ca.key").string();
  try {
    WebhookServer server(bad);
    FAIL() << "constructed with the CA's key for the server certificate";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("ca.key"), std::string::npos) << error.what();
  }
}

TEST_F(WebhookServerTest, AddressInUseIsNamed) {
  WebhookOptions taken = options();
  taken.listen = "127.0.0.1:" + std::to_string(server_->port());
  try {
    WebhookServer server(taken);
    FAIL() << "bound a port already in use";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find(taken.listen), std::string::npos) << error.what();
  }
}

TEST_F(WebhookServerTest, ListenWithoutPortIsNamed) {
  WebhookOptions bad = options();
  bad.listen = "127.0.0.1";
  try {
    WebhookServer server(bad);
    FAIL() << "accepted a listen address without a port";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("host:port"), std::string::npos) << error.what();
  }
}

// The webhook with --webhook-client-ca: the serving certificate comes from the
// suite's CA, client certificates from the kube tests' PKI, whose CA is the
// only one the server trusts for clients.
class WebhookClientCertificateTest : public WebhookServerTest {
 protected:
  static void SetUpTestSuite() {
    WebhookServerTest::SetUpTestSuite();
    client_pki_dir_ = new support::TempDir("gantry-webhook-client-pki");
    client_pki_ = new kube::testing::TestPki(kube::testing::make_test_pki(client_pki_dir_->path()));
  }
  static void TearDownTestSuite() {
    delete client_pki_;
    client_pki_ = nullptr;
    delete client_pki_dir_;
    client_pki_dir_ = nullptr;
    WebhookServerTest::TearDownTestSuite();
  }

  void SetUp() override {
    server_ = std::make_unique<WebhookServer>(mtls_options());
    server_->start();
  }

  static WebhookOptions mtls_options() {
    WebhookOptions options = WebhookServerTest::options();
    options.client_ca_pem_file = client_pki_->ca_file.string();
    return options;
  }

  static ClientCertificate signed_by_client_ca() {
    return {client_pki_->client_cert_file, client_pki_->client_key_file};
  }
  static ClientCertificate signed_by_another_ca() {
    return {client_pki_->stranger_cert_file, client_pki_->stranger_key_file};
  }

  // Connects presenting `certificate` (none when nullopt) and posts a review.
  // Returns what stopped it, or nullopt when an HTTP answer came back. Under
  // TLS 1.3 the client finishes its side of the handshake before the server
  // checks the certificate, so a refusal may surface on the first read rather
  // than in handshake(): either way, no answer.
  std::optional<std::string> failure_of_review(
      const std::optional<ClientCertificate>& certificate) const {
    try {
      HttpsClient https(server_->port(), pki_->ca_cert(), certificate);
      const Response response = https.post_review(binding_create_review("refused-uid"));
      ADD_FAILURE() << "answered " << response.result_int() << ": " << response.body();
      return std::nullopt;
    } catch (const boost::system::system_error& error) {
      return error.what();
    }
  }

  // A TLS 1.2 handshake presenting `certificate`: there the server checks
  // the certificate before its Finished, so a refusal is the handshake's own
  // error. Returns that error (none when the handshake completes).
  boost::system::error_code tls12_handshake(
      const std::optional<ClientCertificate>& certificate) const {
    ssl::context tls(ssl::context::tls_client);
    SSL_CTX_set_max_proto_version(tls.native_handle(), TLS1_2_VERSION);
    tls.load_verify_file(pki_->ca_cert().string());
    tls.set_verify_mode(ssl::verify_peer);
    if (certificate) {
      tls.use_certificate_chain_file(certificate->cert.string());
      tls.use_private_key_file(certificate->key.string(), ssl::context::pem);
    }
    net::io_context io;
    ssl::stream<tcp::socket> stream(io, tls);
    stream.next_layer().connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), server_->port()));
    boost::system::error_code ec;
    stream.handshake(ssl::stream_base::client, ec);
    return ec;
  }

  static support::TempDir* client_pki_dir_;
  static kube::testing::TestPki* client_pki_;
};

support::TempDir* WebhookClientCertificateTest::client_pki_dir_ = nullptr;
kube::testing::TestPki* WebhookClientCertificateTest::client_pki_ = nullptr;

TEST_F(WebhookClientCertificateTest, ClientWithACertificateFromTheClientCaIsAnswered) {
  HttpsClient https(server_->port(), pki_->ca_cert(), signed_by_client_ca());
  expect_review_answered(https, "karmada-apiserver-uid");
  // The kept-alive connection goes on being served.
  expect_review_answered(https, "second-on-the-connection");
  EXPECT_EQ(server_->requests_served(), 2u);
}

TEST_F(WebhookClientCertificateTest, ClientWithoutACertificateIsRefusedAtTheHandshake) {
  const std::optional<std::string> failure = failure_of_review(std::nullopt);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(server_->requests_served(), 0u) << "an HTTP request was read: " << *failure;

  HttpsClient https(server_->port(), pki_->ca_cert(), signed_by_client_ca());
  expect_review_answered(https, "after-no-certificate");
}

TEST_F(WebhookClientCertificateTest, ClientWithACertificateFromAnotherCaIsRefusedAtTheHandshake) {
  const std::optional<std::string> failure = failure_of_review(signed_by_another_ca());
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(server_->requests_served(), 0u) << "an HTTP request was read: " << *failure;

  HttpsClient https(server_->port(), pki_->ca_cert(), signed_by_client_ca());
  expect_review_answered(https, "after-another-ca");
}

// The serving certificate is signed by a CA the server does not trust for
// clients: presenting it (the server's own identity) gets nobody in.
TEST_F(WebhookClientCertificateTest, CertificateFromTheServingCaIsRefused) {
  const std::optional<std::string> failure =
      failure_of_review(ClientCertificate{pki_->server_cert(), pki_->server_key()});
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(server_->requests_served(), 0u) << "an HTTP request was read: " << *failure;
}

TEST_F(WebhookClientCertificateTest, UnderTls12TheRefusalIsTheHandshakeItself) {
  EXPECT_FALSE(tls12_handshake(signed_by_client_ca())) << "the good certificate must pass";
  const boost::system::error_code without = tls12_handshake(std::nullopt);
  EXPECT_TRUE(without) << "a client without a certificate finished the handshake";
  const boost::system::error_code stranger = tls12_handshake(signed_by_another_ca());
  EXPECT_TRUE(stranger) << "another CA's certificate finished the handshake";
  EXPECT_EQ(server_->requests_served(), 0u);
}

TEST_F(WebhookClientCertificateTest, RefusedClientsInTurnLeaveTheServerServing) {
  for (int round = 0; round < 3; ++round) {
    EXPECT_TRUE(failure_of_review(std::nullopt).has_value());
    EXPECT_TRUE(failure_of_review(signed_by_another_ca()).has_value());
  }
  HttpsClient https(server_->port(), pki_->ca_cert(), signed_by_client_ca());
  expect_review_answered(https, "after-six-refusals");
  EXPECT_EQ(server_->requests_served(), 1u);
}

TEST_F(WebhookClientCertificateTest, MissingClientCaFileIsNamedWithItsFlag) {
  WebhookOptions bad = mtls_options();
  bad.client_ca_pem_file = (pki_->dir.path() / "absent-client-ca.crt").string();
  try {
    WebhookServer server(bad);
    FAIL() << "constructed without its client CA";
  } catch (const std::runtime_error& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("--webhook-client-ca"), std::string::npos) << what;
    EXPECT_NE(what.find("absent-client-ca.crt"), std::string::npos) << what;
    EXPECT_NE(what.find("no such file"), std::string::npos) << what;
  }
}

TEST_F(WebhookClientCertificateTest, ClientCaFileWithoutCertificatesIsNamedWithItsFlag) {
  WebhookOptions bad = mtls_options();
  // A private key is PEM, but no CA to verify anyone against.
  bad.client_ca_pem_file = pki_->server_key().string();
  try {
    WebhookServer server(bad);
    FAIL() << "constructed with a key as its client CA";
  } catch (const std::runtime_error& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("--webhook-client-ca"), std::string::npos) << what;
    EXPECT_NE(what.find(bad.client_ca_pem_file), std::string::npos) << what;
    EXPECT_NE(what.find("not a PEM certificate bundle"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace gantry::karmada
