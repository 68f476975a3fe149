#include "server/transcription_server.h"

#include <httplib.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "audio/duration_limit.h"
#include "audio/sample_source.h"
#include "auris/error.h"
#include "batch/batch_scheduler.h"
#include "server/client_connection.h"
#include "server/connection_guard.h"
#include "server/http_error.h"
#include "server/openai_responses.h"
#include "server/realtime_endpoint.h"
#include "server/server_metrics.h"
#include "server/socket_endpoints.h"
#include "server/transcription_form.h"
#include "server/upload_file.h"
#include "server/web_page.h"
#include "util/number_text.h"
#include "util/shown_text.h"

namespace auris::server {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxFieldBytes = 64 * 1024;  // a text field (a prompt is at most a few hundred tokens)
// The text fields in all, kept in memory while the file goes to disk: without these bounds, a form
// of a million one-byte fields held three times its own size.
constexpr size_t kMaxTextFields = 1000;
constexpr size_t kMaxTextBytes = 1 << 20;
// How much more than --max-upload-mb a refused request's body may be for it to be read and dropped
// rather than its connection closed.
constexpr size_t kDrainSlackBytes = size_t{16} << 20;
constexpr auto kPollInterval = std::chrono::milliseconds(200);
// How long the body of a refused request (401, 429, 413...) is read and dropped before the
// connection is closed instead.
constexpr double kDrainSeconds = 10.0;
// Threads beyond the admitted requests, so that health checks, metrics and 429s never wait for a
// transcription to end.
constexpr int kSpareThreads = 16;
// A request's headers must arrive within this of its connection's opening (or of the answer before
// it on the connection): more than the keep-alive timeout, after which the connection closes anyway.
constexpr double kHeaderTimeoutSeconds = 10;
constexpr int kKeepAliveSeconds = 5;
// Connections the kernel holds for the accept thread.
constexpr int kListenBacklog = 1024;

// The time the current request arrived, for the access log and the latency histogram: the
// pre-routing handler, the handler, the content provider and the logger of one request all run on
// the thread that read it.
thread_local Clock::time_point request_start;
// Whether the current request reached the pre-routing handler: cpp-httplib answers a request line
// it cannot take (414, 400) without it, so such a request has no start of its own.
thread_local bool request_routed = false;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

void reply_error(httplib::Response& res, const HttpError& e) {
  res.status = e.status();
  if (e.status() == 429) res.set_header("Retry-After", "1");
  res.set_content(error_json(e), "application/json");
}

// The methods a route takes ("GET, HEAD": httplib answers HEAD with GET's handler), as an Allow
// header lists them; empty for a path that is no route. The routes are setup_routes()'s.
std::string allowed_methods(const std::string& path) {
  if (path == "/v1/audio/transcriptions" || path == "/v1/audio/translations") return "POST";
  if (path == "/" || path == "/health" || path == "/metrics" || path == "/v1/models" || path == "/v1/realtime" ||
      (path.rfind("/v1/models/", 0) == 0 && path.size() > 11))
    return "GET, HEAD";
  return "";
}

// Whether `method` is one of `allowed` ("GET, HEAD").
bool allows(const std::string& allowed, const std::string& method) {
  for (size_t at = 0; at < allowed.size();) {
    const size_t end = std::min(allowed.find(',', at), allowed.size());
    if (allowed.compare(at, end - at, method) == 0) return true;
    at = allowed.find_first_not_of(' ', end + 1);
    if (at == std::string::npos) break;
  }
  return false;
}

// cpp-httplib writes its own "Connection: close" where the client asked to close; a second one would
// repeat the header.
void close_after_answer(const httplib::Request& req, httplib::Response& res) {
  if (req.get_header_value("Connection") != "close") res.set_header("Connection", "close");
}

// A request answered without reading the body it declares closes its connection: the body's bytes
// must not be read as the next request's.
void close_if_body_unread(const httplib::Request& req, httplib::Response& res) {
  if (req.has_header("Transfer-Encoding") || req.get_header_value<uint64_t>("Content-Length") > 0)
    close_after_answer(req, res);
}

// What a request's method and framing say before its body is read: a path that is no route gets
// 404 and a method its route does not take 405 and an Allow header (OPTIONS: 204 and the header),
// their bodies unread (cpp-httplib would hold a whole body in memory before its own 404), and a body
// sent with neither a Content-Length nor chunked framing 411 at once (the HTTP library would wait
// for the connection to close, up to its read timeout). False for a request to route as usual.
bool answered_from_the_head(const httplib::Request& req, httplib::Response& res) {
  const std::string allowed = allowed_methods(req.path);
  if (allowed.empty()) {
    reply_error(res, HttpError(404, "no such route: see docs/SERVER.md for the endpoints"));
    close_if_body_unread(req, res);
    return true;
  }
  if (!allows(allowed, req.method)) {
    res.set_header("Allow", allowed);
    close_if_body_unread(req, res);
    if (req.method == "OPTIONS") {
      res.status = 204;
      return true;
    }
    reply_error(res, HttpError(405, shown(req.path) + " takes " + allowed + ", not " + shown(req.method), "", "method_not_allowed"));
    return true;
  }
  const bool may_have_body = req.method == "POST" || req.method == "PUT" || req.method == "PATCH";
  if (may_have_body && !req.has_header("Content-Length") &&
      req.get_header_value("Transfer-Encoding").find("chunked") == std::string::npos) {
    reply_error(res, HttpError(411, "the request has a body but no Content-Length: send its length, or send it chunked",
                               "", "length_required"));
    return true;
  }
  return false;
}

// What a transcription hands from the batch's threads to the thread answering the request.
struct Pending {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Segment> segments;  // decided, not yet streamed
  std::optional<Transcript> transcript;
  std::string error;
  bool done = false;

  // The request's resources live as long as its windows may run, which can be after its client left.
  std::unique_ptr<UploadFile> upload;
  std::function<void()> release;  // frees its admission
  ~Pending() {
    if (release) release();
  }
};

}  // namespace

struct TranscriptionServer::Impl {
  enum class BodyRead { kUnread, kPartlyRead, kRead };

  struct Model {
    std::string name;
    std::shared_ptr<const auris::Model> model;
    std::unique_ptr<BatchScheduler> scheduler;
  };
  // OpenAI's model object.
  static nlohmann::json model_object(const Model& m) {
    return {{"id", m.name}, {"object", "model"}, {"created", 0}, {"owned_by", "auris"}};
  }

  Impl(std::vector<ServedModel> served, ServerOptions o) : options(std::move(o)) {
    if (served.empty()) throw Error("serve needs at least one model (--model NAME)");
    if (options.max_queue < 1) throw Error("--max-queue must be at least 1, got " + std::to_string(options.max_queue));
    if (options.max_upload_bytes < 1) throw Error("--max-upload-mb must be at least 1");
    if (!(options.request_timeout_s > 0)) throw Error("--request-timeout must be more than 0 seconds");
    if (!options.log) options.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    std::set<std::string> names;
    for (ServedModel& m : served) {
      if (!names.insert(m.name).second) throw Error("two models are served as '" + m.name + "': give each its own name");
      models.push_back({m.name, m.model, std::make_unique<BatchScheduler>(m.model, options.max_batch, options.threads)});
    }
    RealtimeEndpoint::Options realtime_options;
    realtime_options.api_key = options.api_key;
    realtime_options.max_sessions = options.max_sessions;
    realtime_options.environment.vad_model = options.vad_model;
    realtime_options.environment.threads = options.threads;
    realtime_options.environment.find_model = [this](const std::string& name) {
      const Model& m = find_model(name);
      return std::make_pair(m.name, std::shared_ptr<const auris::Model>(m.model));
    };
    realtime = std::make_unique<RealtimeEndpoint>(std::move(realtime_options), metrics);
    setup_routes();
  }

  // A served model by the request's name; "" and OpenAI's "whisper-1" pick the first. Never a path.
  Model& find_model(const std::string& name) {
    if (name.empty() || name == "whisper-1") return models.front();
    for (Model& m : models)
      if (m.name == name) return m;
    std::string served;
    for (const Model& m : models) served += (served.empty() ? "" : ", ") + m.name;
    throw HttpError(404, "the model '" + name + "' is not served here; pick one of: " + served, "model", "model_not_found");
  }

  void check_api_key(const httplib::Request& req) const {
    if (options.api_key.empty()) return;
    if (req.get_header_value("Authorization") != "Bearer " + options.api_key)
      throw HttpError(401, "a valid API key is needed: send the header 'Authorization: Bearer KEY' with the key the server was started with",
                      "", "invalid_api_key");
  }

  HttpError busy() const {
    return HttpError(429, "the server is busy: " + std::to_string(options.max_queue) +
                              " requests are in flight (--max-queue); retry after the time in Retry-After",
                     "", "queue_full");
  }
  HttpError shutting_down() const {
    return HttpError(503, "the server is shutting down; retry on another instance", "", "shutting_down");
  }
  HttpError upload_too_large() const {
    return HttpError(413, "the upload is larger than this server takes (" + limit_text() + ")", "file", "file_too_large");
  }

  // Admits a request (up to max_queue at once); the returned function frees its place.
  std::function<void()> admit() {
    if (stopping) throw shutting_down();
    if (in_flight.fetch_add(1) >= options.max_queue) {
      in_flight.fetch_sub(1);
      throw busy();
    }
    return [this] { in_flight.fetch_sub(1); };
  }

  // A client that asks before sending its body (Expect: 100-continue, as curl does for large
  // uploads) is refused before it sends it, for whatever would refuse it once sent.
  int before_the_body(const httplib::Request& req, httplib::Response& res) {
    if (answered_from_the_head(req, res)) return res.status;
    if (allowed_methods(req.path) == "POST") {
      try {
        check_api_key(req);
        if (stopping) throw shutting_down();
        if (in_flight.load() >= options.max_queue) throw busy();
        if (req.get_header_value<uint64_t>("Content-Length") > options.max_upload_bytes + kMaxFieldBytes)
          throw upload_too_large();
      } catch (const HttpError& e) {
        reply_error(res, e);
        close_after_answer(req, res);
        return e.status();
      }
    }
    return 100;
  }

  // No Content-Length, or one in digits: "-5" would read as 2^64 - 5, and two leave the body's end in
  // doubt (a body read by one and not the other could carry a request of its own).
  static bool content_length_is_plain(const httplib::Request& req) {
    if (req.get_header_value_count("Content-Length") > 1) return false;
    const std::string length = req.get_header_value("Content-Length");
    return !req.has_header("Content-Length") || (!length.empty() && length.find_first_not_of("0123456789") == std::string::npos);
  }

  // A request answered before its body was read: the body is read and dropped where it is no larger
  // than an upload may be (plus slack), so that a client still sending gets the answer instead of a
  // reset connection; a larger one, or one cut off half-read, closes the connection instead.
  void discard_body(const httplib::Request& req, const httplib::ContentReader& reader, bool partly_read,
                    httplib::Response& res) const {
    const size_t length = req.get_header_value<uint64_t>("Content-Length");
    if (length == 0 && !req.has_header("Transfer-Encoding")) return;
    if (partly_read || length == 0 || length > options.max_upload_bytes + kDrainSlackBytes || !content_length_is_plain(req)) {
      close_after_answer(req, res);
      return;
    }
    // A refused client's body gets a few seconds, not --request-timeout: slow refused uploads must not
    // hold the threads that /health and the admitted requests need.
    const Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                          std::chrono::duration<double>(std::min(options.request_timeout_s, kDrainSeconds)));
    auto discard = [&](const char*, size_t) { return Clock::now() < deadline; };
    // cpp-httplib reads a multipart body only through its multipart reader.
    const bool read = req.is_multipart_form_data()
                          ? reader([](const httplib::MultipartFormData&) { return true; }, discard)
                          : reader(discard);
    if (!read) close_after_answer(req, res);
  }

  // Reads the multipart body: text fields into `fields`, the file into `upload`.
  // body says how far the body was read: once begun, it cannot be read (discarded) again.
  void read_form(const httplib::Request& req, const httplib::ContentReader& reader, FormFields& fields,
                 std::unique_ptr<UploadFile>& upload, std::string& filename, BodyRead& body) {
    if (!req.is_multipart_form_data())
      throw HttpError(400, "the request must be multipart/form-data with the audio in a 'file' field");
    if (!content_length_is_plain(req))
      throw HttpError(400, "the request needs one Content-Length header, a whole number of bytes (got '" +
                               req.get_header_value("Content-Length") + "'" +
                               (req.get_header_value_count("Content-Length") > 1 ? " and more" : "") + ")");
    if (req.has_header("Content-Length") &&
        req.get_header_value<uint64_t>("Content-Length") > options.max_upload_bytes + kMaxFieldBytes)
      throw upload_too_large();
    const Clock::time_point deadline = request_start + std::chrono::duration_cast<Clock::duration>(
                                                           std::chrono::duration<double>(options.request_timeout_s));
    std::string current;
    body = BodyRead::kPartlyRead;
    guard->body_started(req.remote_addr, req.remote_port);
    bool timed_out = false, too_large = false, disk_full = false, field_too_large = false, two_files = false,
         unnamed_part = false, form_text_too_large = false;
    size_t text_fields = 0, text_bytes = 0;
    const bool read = reader(
        [&](const httplib::MultipartFormData& part) {
          current = part.name;
          if (current.empty()) return !(unnamed_part = true);
          if (current == "file") {
            if (upload) {
              two_files = true;
              return false;
            }
            upload = std::make_unique<UploadFile>(uploads);
            filename = part.filename;
          } else {
            text_bytes += current.size();
            if (++text_fields > kMaxTextFields || text_bytes > kMaxTextBytes) return !(form_text_too_large = true);
            fields[current].emplace_back();
          }
          return true;
        },
        [&](const char* data, size_t size) {
          if (Clock::now() >= deadline) return !(timed_out = true);
          if (current == "file") {
            if (upload->size() + size > options.max_upload_bytes) return !(too_large = true);
            return upload->write(data, size) || !(disk_full = true);
          }
          std::string& value = fields[current].back();
          if (value.size() + size > kMaxFieldBytes) return !(field_too_large = true);
          text_bytes += size;
          if (text_bytes > kMaxTextBytes) return !(form_text_too_large = true);
          value.append(data, size);
          return true;
        });
    guard->body_ended(req.remote_addr, req.remote_port);
    if (read) body = BodyRead::kRead;
    if (timed_out)
      throw HttpError(408, "the request body did not arrive within " + number_text(options.request_timeout_s) +
                               " s (--request-timeout)", "", "timeout");
    if (too_large) throw upload_too_large();
    if (disk_full) throw HttpError(507, "the server could not store the upload (its disk is full)", "file", "", "server_error");
    if (field_too_large) throw HttpError(400, "the field '" + current + "' is longer than 64 KiB", current, "invalid_value");
    if (form_text_too_large)
      throw HttpError(400, "the form has more than " + std::to_string(kMaxTextFields) + " text fields or more than 1 MiB of them in all",
                      "", "invalid_value");
    if (two_files) throw HttpError(400, "send one 'file' field, not several", "file", "invalid_value");
    if (unnamed_part)
      throw HttpError(400, "a part of the form has no name: each part needs a Content-Disposition header with "
                           "name=\"...\" (a line break inside a quoted filename ends that header early)");
    if (!read) {
      if (Clock::now() >= deadline)
        throw HttpError(408, "the request body did not arrive within " + number_text(options.request_timeout_s) +
                                 " s (--request-timeout)", "", "timeout");
      throw HttpError(400, "the request body could not be read as multipart/form-data (cut off, or malformed)");
    }
    if (!upload) throw HttpError(400, "the request has no 'file' field: send the audio as a file named 'file'", "file", "missing_file");
    if (!upload->finish()) throw HttpError(507, "the server could not store the upload", "file", "", "server_error");
    if (upload->size() == 0) throw HttpError(400, "the uploaded file is empty: there is no audio to transcribe", "file", "empty_file");
  }

  std::string limit_text() const { return std::to_string(options.max_upload_bytes >> 20) + " MB, --max-upload-mb"; }

  void transcription(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader,
                     bool translate) {
    BodyRead body = BodyRead::kUnread;
    try {
      try {
        check_api_key(req);
        auto pending = std::make_shared<Pending>();
        pending->release = admit();
        FormFields fields;
        std::string filename;
        read_form(req, reader, fields, pending->upload, filename, body);
        Model& model = find_model(form_model(fields));
        TranscriptionForm form =
            parse_transcription_form(fields, translate, model.model->info().multilingual, options.vad_model);
        if (form.options.vad) {
          try {
            validate(*form.options.vad);
          } catch (const Error& e) {
            throw HttpError(400, std::string("vad_filter: ") + e.what(), "vad_filter", "invalid_value");
          }
        }
        start(req, res, model, form, filename, pending);
      } catch (const HttpError& e) {
        reply_error(res, e);
        if (body != BodyRead::kRead) discard_body(req, reader, body == BodyRead::kPartlyRead, res);
      }
    } catch (const HttpError& e) {
      reply_error(res, e);
    } catch (const std::exception& e) {
      // Out of file descriptors or memory, say: the body's rest is not read as a next request, and
      // the message (it may name the private upload directory) stays in the server's log.
      options.log(std::string("auris serve: a request failed: ") + e.what());
      reply_error(res, HttpError(500, "the server failed to take the request; retry later", "", "", "server_error"));
      close_after_answer(req, res);
    }
  }

  // Submits the upload to the model's batch and answers: at once with a stream, or once it is done.
  void start(const httplib::Request& req, httplib::Response& res, Model& model, const TranscriptionForm& form,
             const std::string& filename, const std::shared_ptr<Pending>& pending) {
    BatchScheduler::Callbacks callbacks;
    const std::weak_ptr<Pending> weak = pending;
    // The callbacks hold the request's state (and its upload) until its last window is done.
    callbacks.on_segment = [pending](const Segment& s) {
      std::lock_guard lock(pending->mutex);
      pending->segments.push_back(s);
      pending->changed.notify_all();
    };
    callbacks.on_done = [pending, this](Transcript t) {
      metrics.add_audio_seconds(t.duration);
      std::lock_guard lock(pending->mutex);
      pending->transcript = std::move(t);
      pending->done = true;
      pending->changed.notify_all();
    };
    callbacks.on_error = [pending](const std::string& error) {
      std::lock_guard lock(pending->mutex);
      pending->error = error;
      pending->done = true;
      pending->changed.notify_all();
    };
    std::shared_ptr<BatchScheduler::Ticket> ticket;
    try {
      std::unique_ptr<SampleSource> audio = std::make_unique<AudioFileSource>(pending->upload->path());
      if (options.max_audio_seconds > 0)
        audio = std::make_unique<DurationLimitedSource>(std::move(audio), options.max_audio_seconds);
      ticket = model.scheduler->submit(std::move(audio), form.options, std::move(callbacks));
    } catch (const Error& e) {
      // The decoder names the file it read: the client knows it by its own name.
      std::string message = e.what();
      for (size_t at; (at = message.find(pending->upload->path())) != std::string::npos;)
        message.replace(at, pending->upload->path().size(), filename.empty() ? "the upload" : filename);
      if (dynamic_cast<const AudioTooLong*>(&e)) throw HttpError(413, message, "file", "audio_too_long");
      throw HttpError(400, message, "file", "invalid_audio");
    }
    const std::string task = form.options.decoding.task;
    auto connection = std::make_shared<ClientConnection>(req.remote_addr, req.remote_port, req.local_port);
    if (!form.stream) {
      std::unique_lock lock(pending->mutex);
      while (!pending->changed.wait_for(lock, kPollInterval, [&] { return pending->done; }))
        if (!ticket->cancelled() && !connection->connected()) ticket->cancel();
      if (!pending->error.empty()) {
        if (ticket->cancelled()) throw HttpError(499, "the client closed the connection", "", "cancelled");
        throw HttpError(500, "the transcription failed: " + pending->error, "", "", "server_error");
      }
      const Body body = transcription_body(*pending->transcript, form.format, task);
      res.set_content(body.content, body.content_type);
      return;
    }
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider(
        "text/event-stream", [pending, ticket](size_t, httplib::DataSink& sink) {
          std::unique_lock lock(pending->mutex);
          pending->changed.wait_for(lock, kPollInterval, [&] { return pending->done || !pending->segments.empty(); });
          std::string out;
          for (; !pending->segments.empty(); pending->segments.pop_front()) out += delta_event(pending->segments.front());
          const bool done = pending->done;
          if (done) {
            out += pending->error.empty()
                       ? done_event(*pending->transcript)
                       : error_event(error_json(HttpError(500, "the transcription failed: " + pending->error, "", "", "server_error")));
          }
          lock.unlock();
          if (!sink.is_writable() || (!out.empty() && !sink.write(out.data(), out.size()))) {
            ticket->cancel();  // the client went away
            return false;
          }
          if (done) sink.done();
          return true;
        });
  }

  void setup_routes() {
    http.set_expect_100_continue_handler(
        [this](const httplib::Request& req, httplib::Response& res) { return before_the_body(req, res); });
    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      request_start = Clock::now();
      request_routed = true;
      guard->request_started(req.remote_addr, req.remote_port);
      return answered_from_the_head(req, res) ? httplib::Server::HandlerResponse::Handled
                                              : httplib::Server::HandlerResponse::Unhandled;
    });
    http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
      guard->request_ended(req.remote_addr, req.remote_port, res.get_header_value("Connection") == "close");
      const double seconds = request_routed ? seconds_since(request_start) : 0.0;
      metrics.record_request(res.status, seconds);
      char took[32] = "-";
      if (request_routed) std::snprintf(took, sizeof took, "%.3f", seconds);
      char line[512];
      std::snprintf(line, sizeof(line), "%s \"%s %s\" %d %s %s", req.remote_addr.empty() ? "-" : req.remote_addr.c_str(),
                    req.method.c_str(), req.path.substr(0, 200).c_str(), res.status,
                    res.body.empty() ? "-" : std::to_string(res.body.size()).c_str(), took);
      request_routed = false;
      options.log(line);
    });
    http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr error) {
      std::string message = "internal error";
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        message = e.what();
      } catch (...) {
      }
      reply_error(res, HttpError(500, "the server failed: " + message, "", "", "server_error"));
    });
    http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
      if (!res.body.empty()) return;  // a handler's own error
      const int status = res.status;
      // (A path that is no route never gets here: answered_from_the_head answers it.)
      const std::string message = status == 413   ? "the upload is larger than this server takes"
                                  : status == 408 ? "the request did not arrive in time"
                                                  : "the request could not be handled";
      reply_error(res, HttpError(status, message));
    });
    http.Post("/v1/audio/transcriptions",
              [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
                transcription(req, res, reader, /*translate=*/false);
              });
    http.Post("/v1/audio/translations",
              [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
                transcription(req, res, reader, /*translate=*/true);
              });
    http.Get("/v1/realtime", [this](const httplib::Request& req, httplib::Response& res) {
      try {
        realtime->serve(req, res);
      } catch (const HttpError& e) {
        reply_error(res, e);
      }
    });
    http.Get("/v1/models", [this](const httplib::Request& req, httplib::Response& res) {
      try {
        check_api_key(req);
      } catch (const HttpError& e) {
        return reply_error(res, e);
      }
      nlohmann::json data = nlohmann::json::array();
      for (const Model& m : models) data.push_back(model_object(m));
      res.set_content(nlohmann::json{{"object", "list"}, {"data", data}}.dump(), "application/json");
    });
    // OpenAI's "retrieve model" (client.models.retrieve(id)); an id may be a Hub repository's, owner/name.
    http.Get(R"(/v1/models/(.+))", [this](const httplib::Request& req, httplib::Response& res) {
      try {
        check_api_key(req);
        for (const Model& m : models)
          if (m.name == req.matches[1].str()) return res.set_content(model_object(m).dump(), "application/json");
        throw HttpError(404, "the model '" + shown(req.matches[1].str()) +
                                 "' does not exist on this server (GET /v1/models lists them)",
                        "model", "model_not_found");
      } catch (const HttpError& e) {
        reply_error(res, e);
      }
    });
    http.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
      res.status = stopping ? 503 : 200;
      res.set_content(stopping ? R"({"status":"shutting_down"})" : R"({"status":"ok"})", "application/json");
    });
    http.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      std::vector<std::pair<std::string, BatchScheduler::Stats>> stats;
      for (const Model& m : models) stats.emplace_back(m.name, m.scheduler->stats());
      res.set_content(metrics.prometheus(in_flight.load(), stats), "text/plain; version=0.0.4");
    });
    http.Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(web_page()), "text/html; charset=utf-8");
    });

    const int threads = options.max_queue + kSpareThreads;
    http.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
    http.set_payload_max_length(options.max_upload_bytes + kMaxFieldBytes);
    http.set_read_timeout(10, 0);
    http.set_write_timeout(10, 0);
    http.set_keep_alive_timeout(kKeepAliveSeconds);
  }

  ServerOptions options;
  UploadDirectory uploads;
  ServerMetrics metrics;
  std::unique_ptr<RealtimeEndpoint> realtime;
  httplib::Server http;
  std::unique_ptr<ConnectionGuard> guard;  // from bind() on, when the port is known
  std::atomic<int> in_flight{0};
  std::atomic<bool> stopping{false};
  std::atomic<bool> serving{false};  // inside serve()
  // Last, so destroyed first: a scheduler finishes its windows in flight before the metrics and
  // uploads their callbacks use are gone.
  std::vector<Model> models;
};

TranscriptionServer::TranscriptionServer(std::vector<ServedModel> models, ServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(models), std::move(options))) {}

TranscriptionServer::~TranscriptionServer() = default;

int TranscriptionServer::bind() {
  const ServerOptions& o = impl_->options;
  int port = o.port;
  if (port == 0) port = impl_->http.bind_to_any_port(o.host);
  else if (!impl_->http.bind_to_port(o.host, port)) port = -1;
  if (port < 0) {
    addrinfo hints{};
    hints.ai_flags = AI_PASSIVE;
    addrinfo* found = nullptr;
    const int rc = ::getaddrinfo(o.host.c_str(), nullptr, &hints, &found);
    if (found) ::freeaddrinfo(found);
    if (rc != 0)
      throw Error("cannot listen on '" + o.host + "': it is not an address or a host name (" + ::gai_strerror(rc) +
                  "); give --host an address of this machine, such as 127.0.0.1 or 0.0.0.0");
    throw Error("cannot listen on " + o.host + ":" + std::to_string(o.port) +
                ": the address is in use or not this machine's (pick another --port or --host)");
  }
  // cpp-httplib 0.11 (Debian 12's, compiled) listens with a backlog of 5: 32 clients connecting at
  // once, while both cores decode, overflowed the accept queue and some were reset. Listening
  // again on the same socket only widens its queue (the kernel caps it at net.core.somaxconn).
  for (int fd : listening_sockets(port)) ::listen(fd, kListenBacklog);
  const std::string timeout = error_json(HttpError(408, "the request did not arrive within " + number_text(o.request_timeout_s) +
                                                       " s (--request-timeout; headers within " +
                                                       number_text(kHeaderTimeoutSeconds) + " s)",
                                                   "", "timeout"));
  impl_->guard = std::make_unique<ConnectionGuard>(
      port, kHeaderTimeoutSeconds, o.request_timeout_s,
      "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nContent-Length: " +
          std::to_string(timeout.size()) + "\r\nConnection: close\r\n\r\n" + timeout);
  return port;
}

void TranscriptionServer::serve() {
  if (!impl_->guard) throw Error("serve() needs bind() first");
  impl_->serving = true;
  if (!impl_->stopping) impl_->http.listen_after_bind();  // a stop() before it (a signal while loading)
  impl_->serving = false;
}

void TranscriptionServer::stop() {
  impl_->stopping = true;
  impl_->realtime->stop();
  // The requests in flight finish first: once stopped, cpp-httplib ends a streamed (chunked) answer
  // where it is, without its last events. New ones get 503 meanwhile.
  while (impl_->in_flight.load() > 0) std::this_thread::sleep_for(kPollInterval);
  // cpp-httplib's stop() does nothing until it listens: a stop() while serve() starts waits for that.
  while (impl_->serving && !impl_->http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  impl_->http.stop();
}

}  // namespace auris::server
