// `auris stream [INPUT] --model NAME`: live transcription (include/auris/stream.h). Committed words
// as they are decided, the tentative tail marked as such; the end of the input, or Ctrl-C, flushes
// what is left.
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "auris/error.h"
#include "auris/stream.h"
#include "commands.h"
#include "model_fetch.h"
#include "stop_signals.h"
#include "stream_input.h"
#include "stream_output.h"

namespace auris::cli {
namespace {

struct StreamArgs {
  std::string input = "-";
  std::string input_format;
  bool realtime = false;
  std::string model = "tiny.en";
  std::string language;
  std::string task = "transcribe";
  int beam_size = 5;
  double hallucination_silence_threshold = -1;
  std::string initial_prompt;
  int step_ms = 500;
  double trim_seconds = 15.0;
  bool vad = false;
  VadParameters vad_parameters = [] {
    VadParameters p;  // live speech: utterances close at half a second of silence
    p.min_silence_duration_ms = 500;
    p.speech_pad_ms = 100;
    return p;
  }();
  std::string output_format = "text";
  int threads = 0;
  std::string compute_type;  // empty: int8_bfloat16 on the CPU, float16 on cuda
  std::string device = "cpu";
};

StreamOptions to_options(const StreamArgs& a) {
  StreamOptions o;
  DecodingOptions& d = o.transcribe.decoding;
  d.task = a.task;
  if (!a.language.empty()) d.language = a.language;
  if (a.beam_size > 0) d.beam_size = a.beam_size;
  if (!a.initial_prompt.empty()) o.transcribe.initial_prompt = a.initial_prompt;
  if (a.hallucination_silence_threshold > 0) o.transcribe.hallucination_silence_threshold = a.hallucination_silence_threshold;
  o.step_seconds = a.step_ms / 1000.0;
  o.trim_seconds = a.trim_seconds;
  if (a.vad) o.vad = a.vad_parameters;
  return o;
}

// A file read as fast as the decoder takes it: step-sized blocks, decoded after each, so the
// output does not depend on the machine's speed.
void run_offline(StreamInput& input, StreamingTranscriber& stream, StreamOutput& output, double step_seconds) {
  const size_t step = static_cast<size_t>(step_seconds * 16000);
  std::vector<float> block;
  while (true) {
    block.clear();
    while (block.size() < step && input.read(block, step - block.size()) > 0) {
    }
    if (block.empty()) return;
    stream.push(block);
    if (stream.ready()) output.print(stream.update());
  }
}

// Audio as it arrives: a reader thread queues it, and each decode takes everything queued since
// the last one (so a slow decode makes the next step longer, never the queue longer).
void run_live(StreamInput& input, StreamingTranscriber& stream, StreamOutput& output) {
  std::mutex mutex;
  std::condition_variable arrived;
  std::vector<float> queue;
  bool ended = false;
  std::exception_ptr failure;
  std::thread reader([&] {
    try {
      std::vector<float> block;
      while (true) {
        block.clear();
        if (input.read(block, 1600) == 0) break;  // 100 ms
        const std::lock_guard lock(mutex);
        queue.insert(queue.end(), block.begin(), block.end());
        arrived.notify_one();
      }
    } catch (...) {
      failure = std::current_exception();
    }
    const std::lock_guard lock(mutex);
    ended = true;
    arrived.notify_one();
  });
  try {
    std::vector<float> samples;
    bool done = false;
    while (!done) {
      {
        std::unique_lock lock(mutex);
        arrived.wait(lock, [&] { return !queue.empty() || ended; });
        samples.swap(queue);
        queue.clear();
        done = ended;
      }
      stream.push_and_update(samples, [&](const StreamUpdate& u) { output.print(u); });
      samples.clear();
    }
  } catch (...) {
    stop_requested().store(true);
    reader.join();
    throw;
  }
  reader.join();
  if (failure) {
    output.print(stream.finish());  // what was heard before the failure is not lost
    std::rethrow_exception(failure);
  }
}

int stream(const StreamArgs& a) {
  StreamOptions options = to_options(a);
  if (options.vad) options.vad->model = fetched_vad_model(options.vad->model);
  validate(options);  // and the VAD model, before the Whisper model loads
  // A live stream's words wait on its decodes: on the CPU, int8's faster ones commit them sooner
  // (docs/BENCHMARKS.md, "Live streaming"). The GPU engine has no int8.
  const std::string compute_type = !a.compute_type.empty() ? a.compute_type : a.device == "cuda" ? "float16" : "int8_bfloat16";
  const auto model = Model::load(fetched_model(a.model), parse_compute_type(compute_type), parse_device(a.device));
  StreamingTranscriber transcriber(model, options);
  transcriber.set_threads(a.threads);
  stop_on_signals();
  StreamInput input(a.input, a.input_format, a.realtime, stop_requested());
  // The events' times count from here, where the audio starts to arrive (and --realtime's clock
  // starts), not from before the model loaded.
  StreamOutput output(a.output_format, stdout);
  if (input.live())
    run_live(input, transcriber, output);
  else
    run_offline(input, transcriber, output, options.step_seconds);
  output.print(transcriber.finish());
  output.print_end(transcriber.stats());
  if (stop_requested().load()) std::fprintf(stderr, "auris: stopped; everything heard was transcribed\n");
  return 0;
}

}  // namespace

Command add_stream_command(CLI::App& app) {
  auto a = std::make_shared<StreamArgs>();
  CLI::App* cmd = app.add_subcommand(
      "stream", "Live transcription: audio in as it comes, committed words out within about a second");
  cmd->add_option("input", a->input,
                  "- for raw 16-kHz mono s16le PCM on stdin; a file or URL FFmpeg reads; a device with --input-format")
      ->capture_default_str();
  cmd->add_option("--input-format", a->input_format, "FFmpeg input device for INPUT, e.g. alsa (INPUT: default, hw:0) or pulse");
  cmd->add_flag("--realtime", a->realtime, "Feed a file at the speed it plays, as if it were live");
  cmd->add_option("-m,--model", a->model, "Model: a name (tiny.en, base, small, ...) or a Hub repository id (owner/name), downloaded into the cache the first time, or a path")
      ->capture_default_str();
  cmd->add_option("-l,--language", a->language, "Spoken language (code or name); detected when omitted");
  cmd->add_option("--task", a->task, "transcribe, or translate to English")
      ->check(CLI::IsMember({"transcribe", "translate"}))
      ->capture_default_str();
  cmd->add_option("--beam-size", a->beam_size, "Beams in beam search (0: greedy)")->check(within(0, 16))->capture_default_str();
  cmd->add_option("--initial-prompt", a->initial_prompt, "Text to condition the start on (spelling, vocabulary)");
  cmd->add_option("--hallucination-silence-threshold", a->hallucination_silence_threshold,
                  "Skip silences longer than this (s) around a likely hallucination, as transcribe does")
      ->check(positive_number());
  cmd->add_option("--step-ms", a->step_ms, "New audio that triggers the next decode")->check(within(100, 30000))->capture_default_str();
  cmd->add_option("--trim-s", a->trim_seconds, "Cut the buffer at a committed segment end once it is longer than this")
      ->check(within(1.0, 25.0))
      ->capture_default_str();
  const std::string vad_group = "Voice activity detection";
  cmd->add_flag("--vad", a->vad, "Silero VAD: skip silence, close utterances at pauses")->group(vad_group);
  VadParameters& p = a->vad_parameters;
  cmd->add_option("--vad-model", p.model, "VAD model: silero-vad (downloaded into the cache the first time) or a ggml file path")
      ->capture_default_str()->group(vad_group);
  cmd->add_option("--vad-threshold", p.threshold, "Speech probability (0-1) at which speech starts")
      ->capture_default_str()->group(vad_group);
  cmd->add_option("--vad-min-silence-ms", p.min_silence_duration_ms, "Silence that closes an utterance")
      ->capture_default_str()->group(vad_group);
  cmd->add_option("--vad-speech-pad-ms", p.speech_pad_ms, "Audio kept before and after speech")
      ->capture_default_str()->group(vad_group);
  cmd->add_option("-f,--output-format", a->output_format, "text (a terminal) or jsonl (programs)")
      ->check(CLI::IsMember({"text", "jsonl"}))
      ->capture_default_str();
  cmd->add_option("-t,--threads", a->threads, "CPU threads (0: all cores)")->check(within(0, 256));
  cmd->add_option("--compute-type", a->compute_type,
                  "float32, float16, bfloat16, int8 or int8_bfloat16 (default: int8_bfloat16 on the CPU, whose faster "
                  "decodes commit sooner; float16 on cuda). On a CPU with AVX-512 BF16, bfloat16 keeps tiny.en's "
                  "committed text with --vad within 1.5 points of its offline run's in 6 of 7 runs (docs/BENCHMARKS.md)")
      ->check(CLI::IsMember({"float32", "bfloat16", "int8", "float16", "int8_bfloat16"}));
  cmd->add_option("--device", a->device, "cpu, or cuda")->capture_default_str();
  return {cmd, [a] { return stream(*a); }};
}

}  // namespace auris::cli
