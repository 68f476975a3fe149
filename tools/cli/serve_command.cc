// `auris serve`: the OpenAI-compatible HTTP server (src/server, docs/SERVER.md).
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "auris/error.h"
#include "auris/model.h"
#include "auris/transcribe.h"
#include "commands.h"
#include "model/model_download.h"
#include "model_fetch.h"
#include "server/transcription_server.h"

namespace auris::cli {
namespace {

struct ServeArgs {
  std::vector<std::string> models;
  std::string compute_type = "float16";  // the CLI's default, so the server answers what transcribe prints
  std::string device = "cpu";
  int max_upload_mb = 100;
  double max_audio_minutes = 0;
  server::ServerOptions options;
  const CLI::Option* vad_model_option = nullptr;  // given: checked at start, not at the first request with VAD
};

// What a request's `model` field calls a model: the name or Hub repository id it was given, or a
// path's last component.
std::string served_name(const std::string& name_or_path) {
  std::error_code error;
  if (is_hub_repo_id(name_or_path) && !std::filesystem::exists(name_or_path, error)) return name_or_path;
  const std::filesystem::path path(name_or_path);
  const std::string last = path.has_filename() ? path.filename().string() : path.parent_path().filename().string();
  return last.empty() ? name_or_path : last;
}

int serve(const ServeArgs& a) {
  // SIGTERM and SIGINT go to one thread that stops the server; every thread started from here on
  // (the batch's, the HTTP pool's) inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  if (a.vad_model_option && a.vad_model_option->count() > 0) {
    VadParameters vad;
    vad.model = fetched_vad_model(a.options.vad_model);
    validate(vad);
  }
  std::vector<server::ServedModel> models;
  for (const std::string& m : a.models)
    models.push_back(
        {served_name(m), Model::load(fetched_model(m), parse_compute_type(a.compute_type), parse_device(a.device))});
  server::ServerOptions options = a.options;
  if (options.api_key.empty())
    if (const char* key = std::getenv("AURIS_API_KEY")) options.api_key = key;
  options.max_upload_bytes = static_cast<size_t>(a.max_upload_mb) << 20;
  options.max_audio_seconds = a.max_audio_minutes * 60;
  server::TranscriptionServer server(std::move(models), options);
  const int port = server.bind();
  std::fprintf(stderr, "auris: listening on http://%s:%d\n",
               options.host.find(':') != std::string::npos ? ("[" + options.host + "]").c_str() : options.host.c_str(), port);
  std::fflush(stderr);

  std::thread stopper([&] {
    int signal = 0;
    sigwait(&signals, &signal);
    std::fprintf(stderr, "auris: %s: finishing the requests in flight, then exiting\n", signal == SIGINT ? "SIGINT" : "SIGTERM");
    server.stop();
  });
  server.serve();
  stopper.join();  // serve() returns only after stop()
  std::fprintf(stderr, "auris: stopped\n");
  return 0;
}

}  // namespace

Command add_serve_command(CLI::App& app) {
  auto a = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand("serve", "Serve OpenAI's /v1/audio/transcriptions and /translations over HTTP (docs/SERVER.md)");
  cmd->add_option("-m,--model", a->models, "Model: a name or a Hub repository id (owner/name), downloaded into the cache the first time, or a path; repeat to serve several (the first is the default)")
      ->required();
  cmd->add_option("--host", a->options.host, "Address to listen on (loopback unless told otherwise)")->capture_default_str();
  cmd->add_option("--port", a->options.port, "Port (0: any free port)")->check(within(0, 65535))->capture_default_str();
  cmd->add_option("--api-key", a->options.api_key, "Require 'Authorization: Bearer KEY' (default: $AURIS_API_KEY, else none)");
  cmd->add_option("--max-batch", a->options.max_batch, "Windows decoded together per model")
      ->check(within(1, 256))
      ->capture_default_str();
  cmd->add_option("--max-queue", a->options.max_queue, "Requests in flight at once; more get 429")
      ->check(within(1, 4096))
      ->capture_default_str();
  cmd->add_option("--max-sessions", a->options.max_sessions, "Realtime WebSocket sessions (/v1/realtime) open at once; more get 429")
      ->check(within(0, 1024))
      ->capture_default_str();
  cmd->add_option("--max-upload-mb", a->max_upload_mb, "Largest upload; larger ones get 413")
      ->check(within(1, 16384))
      ->capture_default_str();
  cmd->add_option("--max-audio-minutes", a->max_audio_minutes,
                  "Longest audio an upload may hold, counted as it is decoded (longer ones get 413); 0: no limit")
      ->check(within(0.0, 1e6))
      ->capture_default_str();
  cmd->add_option("--request-timeout", a->options.request_timeout_s, "Seconds a request body may take to arrive (408 after)")
      ->check(within(0.1, 86400.0))
      ->capture_default_str();
  cmd->add_option("-t,--threads", a->options.threads, "CPU threads of the batched passes (0: all cores)")
      ->check(within(0, 1024))
      ->capture_default_str();
  cmd->add_option("--compute-type", a->compute_type, "float16 (default), float32, bfloat16, int8 or int8_bfloat16, as for transcribe")
      ->capture_default_str();
  cmd->add_option("--device", a->device, "cpu, or cuda (an NVIDIA GPU)")->capture_default_str();
  a->vad_model_option =
      cmd->add_option("--vad-model", a->options.vad_model, "VAD model for requests with vad_filter=true (silero-vad, downloaded at start when given, or a ggml path)")
          ->capture_default_str();
  return {cmd, [a] { return serve(*a); }};
}

}  // namespace auris::cli
