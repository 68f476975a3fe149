// The server on a loopback port, in process: OpenAI's routes answer what the batched transcriber
// gives, bad requests get OpenAI's error JSON with the right status while the server goes on, and
// stop() lets a request in flight finish.
#include "server/transcription_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "auris/audio.h"
#include "auris/batch.h"
#include "auris/error.h"
#include "auris/output.h"
#include "test_support.h"

namespace auris::server {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Whether /metrics shows one request in flight within `polls` looks 50 ms apart.
bool one_request_in_flight(httplib::Client& client, int polls) {
  for (int i = 0; i < polls; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto r = client.Get("/metrics");
    if (r && r->body.find("auris_requests_in_flight 1") != std::string::npos) return true;
  }
  return false;
}

// A server on a free loopback port, serving from a thread until the object goes.
class RunningServer {
 public:
  RunningServer(std::shared_ptr<const Model> model, ServerOptions options) {
    options.port = 0;
    options.log = [this](const std::string& line) {
      std::lock_guard lock(mutex_);
      log_.push_back(line);
    };
    server_ = std::make_unique<TranscriptionServer>(std::vector<ServedModel>{{"tiny.en", std::move(model)}}, options);
    port_ = server_->bind();
    thread_ = std::thread([this] { server_->serve(); });
  }
  ~RunningServer() { stop(); }
  void stop() {
    if (!thread_.joinable()) return;
    server_->stop();
    thread_.join();
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(120, 0);
    return c;
  }
  int port() const { return port_; }
  std::vector<std::string> log() {
    std::lock_guard lock(mutex_);
    return log_;
  }

 private:
  std::unique_ptr<TranscriptionServer> server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::vector<std::string> log_;
};

httplib::MultipartFormDataItems form(const std::string& audio, std::vector<std::pair<std::string, std::string>> fields = {}) {
  httplib::MultipartFormDataItems items = {{"file", audio, "audio.flac", "application/octet-stream"}};
  for (auto& [name, value] : fields) items.push_back({name, value, "", ""});
  return items;
}

// A raw connection to the server on loopback, for what an HTTP client will not send; -1 on failure.
int connect_to(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) return fd;
  close(fd);
  return -1;
}

// The error JSON's message, checking its shape.
std::string error_message(const httplib::Result& r) {
  if (!r) return "(no answer)";
  const auto body = nlohmann::json::parse(r->body, nullptr, false);
  if (!body.contains("error")) return "(not an error body: " + r->body + ")";
  const auto& e = body["error"];
  EXPECT_TRUE(e.contains("type") && e.contains("param") && e.contains("code")) << r->body;
  return e.value("message", "");
}

class TranscriptionServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string path = test::cached_model("tiny.en");
    data_ = test::shared_data_dir();
    if (path.empty() || data_.empty()) return;
    model_ = Model::load(path, ComputeType::kFloat16);
    jfk_ = read_file(data_ + "/audio/jfk.flac");
  }
  static void TearDownTestSuite() { model_.reset(); }
  void SetUp() override {
    if (!model_) GTEST_SKIP() << "needs ../shared/data and tiny.en (scripts/fetch_models.sh)";
  }
  static ServerOptions small_limits() {
    ServerOptions o;
    o.max_batch = 2;
    o.max_queue = 4;
    o.max_upload_bytes = 4 << 20;  // the long-form file is 3 MB
    o.request_timeout_s = 3;
    o.threads = 1;
    return o;
  }
  static inline std::shared_ptr<const Model> model_;
  // jfk four times over (44 s, two chunks): a request that stays in flight a while, short enough
  // for the sanitizers.
  static std::string jfk_four_times() {
    const std::vector<float> once = load_audio(data_ + "/audio/jfk.flac");
    std::vector<float> four;
    for (int i = 0; i < 4; ++i) four.insert(four.end(), once.begin(), once.end());
    return read_file(test::write_wav(test::temp_dir() + "/jfk4.wav", four));
  }
  static inline std::string data_, jfk_;
};

// An address that is no address is named as such, not taken for one in use.
TEST_F(TranscriptionServerTest, AHostThatIsNoAddressIsNamed) {
  ServerOptions o = small_limits();
  o.host = "999.1.1.1";
  o.port = 0;
  TranscriptionServer server(std::vector<ServedModel>{{"tiny.en", model_}}, o);
  try {
    server.bind();
    ADD_FAILURE() << "bound to 999.1.1.1";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not an address or a host name"), std::string::npos) << e.what();
  }
}

TEST_F(TranscriptionServerTest, ABurstOfClientsWaitsInTheAcceptQueue) {
  // Bound but not serving: nothing accepts, so every connection waits in the kernel's accept queue,
  // as a burst does while the accept thread waits for a core. cpp-httplib's own backlog of 5 held 6.
  ServerOptions o = small_limits();
  o.host = "127.0.0.1";
  o.port = 0;
  TranscriptionServer server(std::vector<ServedModel>{{"tiny.en", model_}}, o);
  const int port = server.bind();
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  std::vector<int> clients;
  int connected = 0;
  for (int i = 0; i < 48; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    ASSERT_GE(fd, 0);
    clients.push_back(fd);
    connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address));
    pollfd p{fd, POLLOUT, 0};
    int error = -1;
    socklen_t size = sizeof(error);
    if (poll(&p, 1, 500) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 && error == 0) ++connected;
  }
  for (int fd : clients) close(fd);
  EXPECT_EQ(connected, 48);
}

TEST_F(TranscriptionServerTest, AnswersEveryFormatAsTheBatchedTranscriberWrites) {
  BatchTranscriber batch(model_, 2);
  TranscribeOptions options;  // greedy (beam_size=1 below), openai's fallback schedule: quick under ASan
  std::vector<Transcript> reference(1);
  batch.transcribe_files({data_ + "/audio/jfk.flac"}, options, [&](size_t, Transcript t) { reference[0] = std::move(t); },
                         [](size_t, const std::string& e) { FAIL() << e; });

  RunningServer server(model_, small_limits());
  auto client = server.client();
  auto r = client.Post("/v1/audio/transcriptions", form(jfk_, {{"model", "tiny.en"}, {"beam_size", "1"}}));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(" " + nlohmann::json::parse(r->body)["text"].get<std::string>(), reference[0].text);
  for (const auto& [format, output] : {std::pair{"srt", OutputFormat::kSrt}, {"vtt", OutputFormat::kVtt}, {"text", OutputFormat::kTxt}}) {
    r = client.Post("/v1/audio/transcriptions", form(jfk_, {{"response_format", format}, {"beam_size", "1"}}));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, format_transcript(reference[0], output)) << format;
  }
  r = client.Post("/v1/audio/transcriptions", form(jfk_, {{"response_format", "verbose_json"}, {"timestamp_granularities[]", "word"}, {"beam_size", "1"}}));
  ASSERT_TRUE(r);
  const auto verbose = nlohmann::json::parse(r->body);
  EXPECT_EQ(verbose["language"], "english");
  EXPECT_EQ(verbose["task"], "transcribe");
  EXPECT_NEAR(verbose["duration"].get<double>(), 11.0, 0.01);
  ASSERT_FALSE(verbose["segments"].empty());
  ASSERT_FALSE(verbose["words"].empty());
  EXPECT_EQ(verbose["words"][0]["word"], " And");

  r = client.Post("/v1/audio/transcriptions", form(jfk_, {{"stream", "true"}, {"beam_size", "1"}}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/event-stream");
  EXPECT_NE(r->body.find("\"type\":\"transcript.text.delta\""), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("\"type\":\"transcript.text.done\""), std::string::npos) << r->body;

  r = client.Get("/v1/models");
  ASSERT_TRUE(r);
  EXPECT_EQ(nlohmann::json::parse(r->body)["data"][0]["id"], "tiny.en");
  r = client.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_NE(r->body.find("auris_requests_total{status=\"200\"}"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("auris_audio_seconds_total 66"), std::string::npos) << "six 11-s answers:\n" << r->body;
  r = client.Get("/");
  ASSERT_TRUE(r);
  EXPECT_NE(r->body.find("<html"), std::string::npos);
  server.stop();
  EXPECT_GE(server.log().size(), 8u);
  EXPECT_NE(server.log()[0].find("\"POST /v1/audio/transcriptions\" 200"), std::string::npos) << server.log()[0];
}

TEST_F(TranscriptionServerTest, BadRequestsGetOpenaisErrorsAndTheServerGoesOn) {
  RunningServer server(model_, small_limits());
  auto client = server.client();
  auto expect = [&](httplib::Result r, int status, const std::string& words) {
    ASSERT_TRUE(r) << words;
    EXPECT_EQ(r->status, status) << r->body;
    EXPECT_NE(error_message(r).find(words), std::string::npos) << r->body;
  };
  expect(client.Post("/v1/audio/transcriptions", form("this is not audio, just text")), 400, "");
  expect(client.Post("/v1/audio/transcriptions", form("")), 400, "empty");
  expect(client.Post("/v1/audio/transcriptions", form(jfk_.substr(0, 200))), 400, "audio.flac");
  expect(client.Post("/v1/audio/transcriptions", httplib::MultipartFormDataItems{{"model", "tiny.en", "", ""}}), 400, "'file'");
  expect(client.Post("/v1/audio/transcriptions", "{}", "application/json"), 400, "multipart");
  expect(client.Post("/v1/audio/transcriptions", form(jfk_, {{"response_format", "docx"}})), 400, "response_format");
  expect(client.Post("/v1/audio/transcriptions", form(jfk_, {{"language", "xx"}})), 400, "language");
  expect(client.Post("/v1/audio/transcriptions", form(jfk_, {{"temperature", "-1"}})), 400, "temperature");
  expect(client.Post("/v1/audio/transcriptions", form(jfk_, {{"model", "/etc/passwd"}})), 404, "not served");
  expect(client.Post("/v1/audio/transcriptions", form(jfk_, {{"model", "../tiny.en"}})), 404, "not served");
  expect(client.Post("/v1/audio/transcriptions", form(std::string(5 << 20, 'x'))), 413, "larger");
  expect(client.Get("/v1/nothing"), 404, "no such route");
  // A route asked with a method it does not take: 405 and what it takes.
  auto put = client.Put("/v1/models", "", "text/plain");
  ASSERT_TRUE(put);
  EXPECT_EQ(put->get_header_value("Allow"), "GET, HEAD");
  expect(std::move(put), 405, "/v1/models takes GET, HEAD, not PUT");
  auto del = client.Delete("/v1/audio/transcriptions");
  ASSERT_TRUE(del);
  EXPECT_EQ(del->get_header_value("Allow"), "POST");
  expect(std::move(del), 405, "takes POST");
  auto options = client.Options("/v1/audio/translations");
  ASSERT_TRUE(options);
  EXPECT_EQ(options->status, 204);
  EXPECT_EQ(options->get_header_value("Allow"), "POST");

  // A body without a length is answered at once, not after the read timeout.
  for (const std::string method : {"POST", "PUT"}) {
    const int fd = connect_to(server.port());
    ASSERT_GE(fd, 0);
    const std::string head = method + " /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n\r\n";
    ASSERT_EQ(send(fd, head.data(), head.size(), 0), static_cast<ssize_t>(head.size()));
    timeval timeout{3, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    char answer[512] = {};
    ASSERT_GT(recv(fd, answer, sizeof(answer) - 1, 0), 0) << method << ": no answer within 3 s";
    close(fd);
    EXPECT_EQ(std::string(answer).rfind(method == "POST" ? "HTTP/1.1 411" : "HTTP/1.1 405", 0), 0u) << answer;
  }

  // A 1 GB upload is refused from its Content-Length, before any of it is sent.
  const int fd = connect_to(server.port());
  ASSERT_GE(fd, 0);
  const std::string head =
      "POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
      "Content-Length: 1073741824\r\n\r\n";
  ASSERT_EQ(send(fd, head.data(), head.size(), 0), static_cast<ssize_t>(head.size()));
  timeval timeout{10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  char answer[512] = {};
  ASSERT_GT(recv(fd, answer, sizeof(answer) - 1, 0), 0);
  close(fd);
  EXPECT_EQ(std::string(answer).rfind("HTTP/1.1 413", 0), 0u) << answer;

  auto r = client.Get("/health");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  r = client.Post("/v1/audio/transcriptions", form(jfk_));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << "still serving after the bad requests: " << r->body;
}

TEST_F(TranscriptionServerTest, AKeyIsAskedForAndAFullQueueAnswers429) {
  ServerOptions options = small_limits();
  options.api_key = "secret";
  options.max_queue = 1;
  RunningServer server(model_, options);
  auto client = server.client();
  auto r = client.Post("/v1/audio/transcriptions", form(jfk_));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_NE(error_message(r).find("Authorization: Bearer"), std::string::npos);
  client.set_bearer_token_auth("wrong");
  r = client.Get("/v1/models");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);

  client.set_bearer_token_auth("secret");
  const std::string long_ = jfk_four_times();
  auto first = std::async(std::launch::async, [&] {
    auto c = server.client();
    c.set_bearer_token_auth("secret");
    return c.Post("/v1/audio/transcriptions", form(long_, {{"beam_size", "1"}}));
  });
  // Once the long one is in flight the queue (of one) is full.
  ASSERT_TRUE(one_request_in_flight(client, 200));
  r = client.Post("/v1/audio/transcriptions", form(jfk_));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 429);
  EXPECT_EQ(r->get_header_value("Retry-After"), "1");
  EXPECT_NE(error_message(r).find("--max-queue"), std::string::npos);
  // stop() while the long request runs: it is still answered in full.
  server.stop();
  const auto long_answer = first.get();
  ASSERT_TRUE(long_answer);
  EXPECT_EQ(long_answer->status, 200);
  EXPECT_GT(nlohmann::json::parse(long_answer->body)["text"].get<std::string>().size(), 300u);
}

// stop() while an answer streams: its events go on to transcript.text.done (cpp-httplib, once
// stopped, ends a chunked answer where it is), and a request that comes meanwhile gets 503.
TEST_F(TranscriptionServerTest, StopLetsAStreamedAnswerFinish) {
  RunningServer server(model_, small_limits());
  const std::string long_ = jfk_four_times();
  auto streamed = std::async(std::launch::async, [&] {
    return server.client().Post("/v1/audio/transcriptions", form(long_, {{"stream", "true"}, {"beam_size", "1"}}));
  });
  auto client = server.client();
  ASSERT_TRUE(one_request_in_flight(client, 200));
  auto stopping = std::async(std::launch::async, [&] { server.stop(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto refused = client.Post("/v1/audio/transcriptions", form(jfk_));
  const auto answer = streamed.get();
  stopping.get();
  ASSERT_TRUE(answer) << "the stream was cut off: " << httplib::to_string(answer.error());
  EXPECT_EQ(answer->status, 200);
  EXPECT_NE(answer->body.find("\"type\":\"transcript.text.done\""), std::string::npos) << answer->body;
  if (refused) {
    EXPECT_EQ(refused->status, 503) << refused->body;
  }
}

// A SIGTERM while the models load reaches stop() before serve(): serve() then returns at once
// (cpp-httplib's own stop() does nothing before it listens, and the server served on).
TEST_F(TranscriptionServerTest, AStopBeforeServeEndsIt) {
  ServerOptions o = small_limits();
  o.port = 0;
  o.log = [](const std::string&) {};
  TranscriptionServer server(std::vector<ServedModel>{{"tiny.en", model_}}, o);
  server.bind();
  server.stop();
  auto served = std::async(std::launch::async, [&] { server.serve(); });
  const bool returned = served.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  if (!returned) server.stop();  // listening by now: this one stops it
  EXPECT_TRUE(returned);
}

TEST_F(TranscriptionServerTest, AClientThatLeavesCancelsItsWindows) {
  RunningServer server(model_, small_limits());
  const std::string audio = read_file(data_ + "/audio/longform/hifitts-dev-concat.flac");
  const std::string body = "--b\r\nContent-Disposition: form-data; name=\"beam_size\"\r\n\r\n1\r\n"
                           "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"long.flac\"\r\n\r\n" + audio +
                           "\r\n--b--\r\n";
  const std::string head = "POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; "
                           "boundary=b\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  const int fd = connect_to(server.port());
  ASSERT_GE(fd, 0);
  const std::string request = head + body;
  for (size_t sent = 0; sent < request.size();) {
    const ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    ASSERT_GT(n, 0);
    sent += static_cast<size_t>(n);
  }
  auto client = server.client();
  ASSERT_TRUE(one_request_in_flight(client, 100));
  close(fd);  // gone before its 8 chunks are through the batch of 2
  bool answered = false;  // once the (at most two) chunks running end: seconds, more under ASan
  for (int i = 0; i < 3000 && !answered; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (const std::string& line : server.log()) answered = answered || line.find("\"POST /v1/audio/transcriptions\"") != std::string::npos;
  }
  ASSERT_TRUE(answered);
  bool cancelled = false;
  for (const std::string& line : server.log()) cancelled = cancelled || line.find("\"POST /v1/audio/transcriptions\" 499") != std::string::npos;
  EXPECT_TRUE(cancelled) << "the request ends as cancelled, not transcribed to the end";
  const auto r = client.Get("/health");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

}  // namespace
}  // namespace auris::server
