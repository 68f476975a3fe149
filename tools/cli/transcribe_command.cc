// `auris transcribe FILE... --model NAME|PATH [options]`: openai/whisper's CLI options and defaults.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "api/engine_access.h"
#include "auris/audio.h"
#include "audio/mel.h"
#include "auris/batch.h"
#include "auris/error.h"
#include "auris/output.h"
#include "auris/transcribe.h"
#include "commands.h"
#include "model_fetch.h"
#include "progress_bar.h"
#include "stop_signals.h"
#include "tokenizer/utf8.h"
#include "engine_timings.h"
#include "transcript_format.h"
#include "util/number_text.h"
#include "util/thread_count.h"

namespace auris::cli {
namespace {

struct TranscribeArgs {
  std::vector<std::string> files;
  std::string model = "tiny.en";
  std::string language;
  int language_detection_segments = 1;
  bool multilingual = false;
  double language_detection_threshold = 0.5;
  std::string task = "transcribe";
  double temperature = 0.0;
  double temperature_increment = 0.2;
  int beam_size = 5;
  int best_of = 5;
  double patience = -1;
  double length_penalty = -1;
  double repetition_penalty = 1.0;
  int no_repeat_ngram_size = 0;
  std::string suppress_tokens = "-1";
  std::string initial_prompt;
  std::string hotwords;
  std::string prefix;
  bool condition_on_previous_text = true;
  double prompt_reset_on_temperature = 0.5;
  bool without_timestamps = false;
  double compression_ratio_threshold = 2.4;
  double logprob_threshold = -1.0;
  double no_speech_threshold = 0.6;
  int threads = 0;
  bool verbose = false;
  std::string output_format;  // empty: text on stdout only
  std::string output_dir;
  bool word_timestamps = false;
  std::string prepend_punctuations = kDefaultPrependPunctuations;
  std::string append_punctuations = kDefaultAppendPunctuations;
  std::string clip_timestamps = "0";
  bool carry_initial_prompt = false;
  double hallucination_silence_threshold = -1;
  int max_line_width = 0, max_line_count = 0, max_words_per_line = 0;
  bool highlight_words = false;
  std::string device = "cpu";
  // The fastest type that gives openai's tokens on every parity fixture, on either device: float16.
  // int8 is faster on the CPU and within 0.3 WER points of float32's (docs/BENCHMARKS.md), but its
  // tokens are its own.
  std::string compute_type = "float16";
  bool print_timings = false;
  EngineAblations ablations;
  bool vad = false;
  VadParameters vad_parameters;  // neg_threshold from vad_neg_threshold
  double vad_neg_threshold = std::numeric_limits<double>::quiet_NaN();  // NaN: unset
  std::vector<CLI::Option*> vad_options;  // the --vad-* options, which need --vad
  int batch_size = 0;  // 0: openai's sequential transcribe()
  bool pack = false;
};

bool given(const TranscribeArgs& a, const std::string& flag) {
  for (const CLI::Option* option : a.vad_options)
    if (option->get_name() == flag) return option->count() > 0;
  return false;
}

// --batch-size: faster-whisper's batched pipeline (include/auris/batch.h). Each file's text goes to
// stdout in the order of the files, as soon as those before it are out; its output files as soon as
// it is done.
int transcribe_batched(const TranscribeArgs& a, const std::shared_future<std::shared_ptr<const Model>>& model,
                       TranscribeOptions options,
                       const std::function<void(const std::string&, const Transcript&)>& write_files,
                       const std::function<void(const std::string&, const EngineCounters&)>& print_timings) {
  const EngineAblations& x = a.ablations;
  if (x.recompute_cross_kv_each_step || x.attend_full_self_cache || x.fused_encoder_attention || x.cudnn_encoder_attention ||
      x.host_step_tail || x.fused_decode_step || x.programmatic_launch)
    throw Error("--recompute-cross-kv, --attend-full-cache, --fused-encoder-attention, --cudnn-encoder-attention, "
                "--host-step-tail, --fused-decode-step and --programmatic-launch are switches of the sequential engine: "
                "drop --batch-size");
  if (options.vad) {  // faster-whisper's batched VAD defaults, where the flags do not say otherwise
    const VadParameters batched = batched_vad_parameters();
    if (!given(a, "--vad-min-silence-ms")) options.vad->min_silence_duration_ms = batched.min_silence_duration_ms;
    if (!given(a, "--vad-max-speech-s")) options.vad->max_speech_duration_s = batched.max_speech_duration_s;
  }
  BatchTranscriber batch(model, a.batch_size);
  batch.set_packing(a.pack);
  // Each file's line once it is known; a failed file has none (as in the sequential mode).
  std::vector<std::optional<std::optional<std::string>>> lines(a.files.size());
  size_t printed = 0;
  int failures = 0;
  auto print_ready = [&] {
    for (; printed < lines.size() && lines[printed]; ++printed)
      if (*lines[printed]) std::printf("%s\n", lines[printed]->value().c_str());
    std::fflush(stdout);
  };
  batch.transcribe_files(
      a.files, options,
      [&](size_t i, Transcript t) {
        try {
          write_files(a.files[i], t);
          lines[i].emplace(trim(t.text));
        } catch (const Error& e) {
          ++failures;
          std::fprintf(stderr, "auris: error: %s\n", e.what());
          lines[i].emplace(std::nullopt);
        }
        print_ready();
      },
      [&](size_t i, const std::string& error) {
        ++failures;  // one bad file must not lose the others' transcripts
        std::fprintf(stderr, "auris: error: %s\n", error.c_str());
        lines[i].emplace(std::nullopt);
        print_ready();
      });
  print_timings(a.files.empty() ? "" : a.files[0], engine_counters(batch));
  return failures == 0 ? 0 : 1;
}

TranscribeOptions to_options(const TranscribeArgs& a) {
  // The tokenizer would refuse them too, but without saying which option holds them.
  for (const auto& [flag, text] : {std::pair{"--initial-prompt", &a.initial_prompt}, std::pair{"--hotwords", &a.hotwords},
                                   std::pair{"--prefix", &a.prefix}})
    if (!is_valid_utf8(*text)) throw Error(std::string(flag) + " is not valid UTF-8 text: write it in UTF-8");
  TranscribeOptions o;
  DecodingOptions& d = o.decoding;
  d.task = a.task;
  if (!a.language.empty()) d.language = a.language;
  if (a.beam_size > 0) d.beam_size = a.beam_size;
  if (a.best_of > 0) d.best_of = a.best_of;
  if (a.patience > 0) d.patience = a.patience;
  if (a.length_penalty >= 0) d.length_penalty = a.length_penalty;
  d.repetition_penalty = a.repetition_penalty;
  d.no_repeat_ngram_size = a.no_repeat_ngram_size;
  d.suppress_tokens = TextOrTokens(a.suppress_tokens);
  if (!a.prefix.empty()) d.prefix = TextOrTokens(a.prefix);
  d.without_timestamps = a.without_timestamps;
  o.temperatures = fallback_temperatures(a.temperature, a.temperature_increment);
  o.compression_ratio_threshold = a.compression_ratio_threshold;
  o.logprob_threshold = a.logprob_threshold;
  o.no_speech_threshold = a.no_speech_threshold;
  o.condition_on_previous_text = a.condition_on_previous_text;
  o.prompt_reset_on_temperature = a.prompt_reset_on_temperature;
  o.language_detection_segments = a.language_detection_segments;
  o.language_detection_threshold = a.language_detection_threshold;
  o.multilingual = a.multilingual;
  if (!a.initial_prompt.empty()) o.initial_prompt = a.initial_prompt;
  if (!a.hotwords.empty()) o.hotwords = a.hotwords;
  o.carry_initial_prompt = a.carry_initial_prompt;
  o.word_timestamps = a.word_timestamps;
  o.prepend_punctuations = a.prepend_punctuations;
  o.append_punctuations = a.append_punctuations;
  o.clip_timestamps = parse_clip_timestamps(a.clip_timestamps);
  if (a.hallucination_silence_threshold > 0) o.hallucination_silence_threshold = a.hallucination_silence_threshold;
  if (a.vad) {
    o.vad = a.vad_parameters;
    if (!std::isnan(a.vad_neg_threshold)) o.vad->neg_threshold = a.vad_neg_threshold;
  }
  return o;
}

// validate(), its messages naming the flags the user typed rather than VadParameters' fields.
void validate_vad_flags(const VadParameters& vad) {
  try {
    validate(vad);
  } catch (const Error& e) {
    static const std::pair<std::string, std::string> kFlags[] = {
        {"VAD option threshold ", "--vad-threshold "},
        {"VAD option neg_threshold ", "--vad-neg-threshold "},
        {"VAD option min_speech_duration_ms ", "--vad-min-speech-ms "},
        {"VAD option max_speech_duration_s ", "--vad-max-speech-s "},
        {"VAD option min_silence_duration_ms ", "--vad-min-silence-ms "},
        {"VAD option speech_pad_ms ", "--vad-speech-pad-ms "},
    };
    const std::string message = e.what();
    for (const auto& [field, flag] : kFlags)
      if (message.rfind(field, 0) == 0) throw Error(flag + message.substr(field.size()));
    throw;
  }
}

// faster-whisper's vad_filter and VadOptions, under their own heading of --help.
void add_vad_options(CLI::App& cmd, TranscribeArgs& a) {
  const std::string group = "Voice activity detection (faster-whisper's vad_filter)";
  cmd.add_flag("--vad", a.vad, "Transcribe only the speech Silero VAD finds; timestamps stay the audio's")->group(group);
  VadParameters& p = a.vad_parameters;
  a.vad_options = {
      cmd.add_option("--vad-model", p.model, "VAD model: silero-vad (downloaded into the cache the first time) or a ggml file path")
          ->capture_default_str(),
      cmd.add_option("--vad-threshold", p.threshold, "Speech probability (0-1) at which speech starts")->capture_default_str(),
      cmd.add_option("--vad-neg-threshold", a.vad_neg_threshold,
                     "Probability below which speech ends (0 to the threshold; default: threshold - 0.15)"),
      cmd.add_option("--vad-min-speech-ms", p.min_speech_duration_ms, "Drop speech shorter than this")->capture_default_str(),
      cmd.add_option("--vad-max-speech-s", p.max_speech_duration_s, "Cut speech longer than this at a silence")
          ->capture_default_str(),
      cmd.add_option("--vad-min-silence-ms", p.min_silence_duration_ms, "Silence that ends speech")->capture_default_str(),
      cmd.add_option("--vad-speech-pad-ms", p.speech_pad_ms, "Audio kept on each side of the speech")->capture_default_str(),
  };
  for (CLI::Option* option : a.vad_options) option->group(group);
}

}  // namespace

Command add_transcribe_command(CLI::App& app) {
  auto a = std::make_shared<TranscribeArgs>();
  CLI::App* cmd = app.add_subcommand("transcribe", "Transcribe (or translate) audio files");
  cmd->add_option("files", a->files, "Audio files (any format FFmpeg reads; - for stdin)")->required();
  cmd->add_option("-m,--model", a->model, "Model: a name (tiny.en, base, small, ...) or a Hub repository id (owner/name), downloaded into the cache the first time, or a path")
      ->capture_default_str();
  cmd->add_option("-l,--language", a->language, "Spoken language (code or name); detected when omitted");
  cmd->add_option("--language-detection-segments", a->language_detection_segments,
                  "Detect the language on up to this many 30-s windows, until one passes the threshold")
      ->check(within(1, TranscribeOptions::kMostLanguageDetectionSegments))
      ->capture_default_str();
  cmd->add_flag("--multilingual", a->multilingual,
                "Detect each 30-s window's language and decode it in that language (multilingual models)");
  cmd->add_option("--language-detection-threshold", a->language_detection_threshold,
                  "Probability a window's language must exceed to decide the language")
      ->check(within(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--task", a->task, "transcribe, or translate to English")
      ->check(CLI::IsMember({"transcribe", "translate"}))
      ->capture_default_str();
  cmd->add_option("--temperature", a->temperature, "Sampling temperature")->check(within(0.0, 10.0))
      ->capture_default_str();
  cmd->add_option("--temperature-increment-on-fallback", a->temperature_increment,
                  "Temperature step on fallback (0 disables fallback)")
      ->check(within(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--beam-size", a->beam_size, "Beams in beam search at temperature 0 (0: greedy)")
      ->check(within(0, 64))
      ->capture_default_str();
  cmd->add_option("--best-of", a->best_of, "Candidates when sampling with temperature > 0")
      ->check(within(1, 64))
      ->capture_default_str();
  cmd->add_option("--patience", a->patience, "Beam search patience (default 1.0)")->check(positive_number());
  cmd->add_option("--length-penalty", a->length_penalty, "Length penalty alpha (default: length normalisation)")
      ->check(within(0.0, 1.0));
  cmd->add_option("--repetition-penalty", a->repetition_penalty,
                  "Divide the logits of tokens already in the window's text by this (faster-whisper's; 1: off)")
      ->check(within(0.001, 1000.0))
      ->capture_default_str();
  cmd->add_option("--no-repeat-ngram-size", a->no_repeat_ngram_size,
                  "Forbid repeating any n-gram of this many tokens in a window (faster-whisper's; 0: off)")
      ->check(within(0, std::numeric_limits<int>::max()))
      ->capture_default_str();
  cmd->add_option("--suppress-tokens", a->suppress_tokens, "Comma-separated token ids to suppress; -1: non-speech")
      ->capture_default_str();
  cmd->add_option("--initial-prompt", a->initial_prompt, "Text to condition the first window on");
  cmd->add_option("--hotwords", a->hotwords, "Words (names, terms) to prompt every window with, before its previous text");
  cmd->add_option("--prefix", a->prefix, "Text every window's transcript continues (openai's prefix; not in the output)");
  cmd->add_option("--condition-on-previous-text", a->condition_on_previous_text,
                  "Feed the previous window's text as prompt (true/false)")
      ->capture_default_str();
  cmd->add_option("--prompt-reset-on-temperature", a->prompt_reset_on_temperature,
                  "A window decoded above this temperature does not prompt the next (faster-whisper's)")
      ->check(within(-1000.0, 1000.0))
      ->capture_default_str();
  cmd->add_flag("--without-timestamps", a->without_timestamps, "Decode text only, no timestamp tokens");
  cmd->add_option("--compression-ratio-threshold", a->compression_ratio_threshold,
                  "Retry hotter when gzip ratio exceeds this")
      ->capture_default_str();
  cmd->add_option("--logprob-threshold", a->logprob_threshold, "Retry hotter when avg log-prob is below this")
      ->capture_default_str();
  cmd->add_option("--no-speech-threshold", a->no_speech_threshold, "Skip windows whose no-speech prob exceeds this")
      ->capture_default_str();
  cmd->add_option("-t,--threads", a->threads, "CPU threads (0: all cores)")->check(within(0, 256));
  cmd->add_flag("-v,--verbose", a->verbose,
                "Print segments with timestamps as they are decided (batched: a file's when it is done)");
  cmd->add_option("-f,--output-format", a->output_format, "Also write txt, vtt, srt, tsv, json or all")
      ->check(CLI::IsMember({"txt", "vtt", "srt", "tsv", "json", "all"}));
  cmd->add_option("-o,--output-dir", a->output_dir, "Directory for the files of --output-format (default .)");
  cmd->add_flag("--word-timestamps", a->word_timestamps, "Word-level timestamps (cross-attention alignment + DTW)");
  cmd->add_option("--prepend-punctuations", a->prepend_punctuations, "With word timestamps: merged into the next word");
  cmd->add_option("--append-punctuations", a->append_punctuations, "With word timestamps: merged into the previous word");
  cmd->add_option("--clip-timestamps", a->clip_timestamps, "Comma-separated start,end,... seconds to transcribe")
      ->capture_default_str();
  cmd->add_flag("--carry-initial-prompt", a->carry_initial_prompt, "Prepend the initial prompt to every window's prompt");
  cmd->add_option("--hallucination-silence-threshold", a->hallucination_silence_threshold,
                  "With word timestamps: skip silences longer than this (s) around a likely hallucination")
      ->check(positive_number());
  cmd->add_option("--max-line-width", a->max_line_width, "Subtitles: characters per line (needs --word-timestamps)")
      ->check(within(0, std::numeric_limits<int>::max()));
  cmd->add_option("--max-line-count", a->max_line_count, "Subtitles: lines per cue (needs --word-timestamps)")
      ->check(within(0, std::numeric_limits<int>::max()));
  cmd->add_option("--max-words-per-line", a->max_words_per_line, "Subtitles: words per line (needs --word-timestamps)")
      ->check(within(0, std::numeric_limits<int>::max()));
  cmd->add_flag("--highlight-words", a->highlight_words, "Subtitles: underline each word as it is spoken (needs --word-timestamps)");

  cmd->add_option("--device", a->device, "Where to run: cpu, or cuda (an NVIDIA GPU)")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--compute-type", a->compute_type,
                  "Arithmetic: float16 (on the CPU float32's arithmetic with an fp16 cross-attention cache: faster "
                  "decode steps), float32 (openai/whisper's arithmetic), int8 (int8 encoder products and decoder "
                  "weights: 1.20-1.21x faster than float16 greedy, 1.02-1.30x with beam 5, WER within 0.3 points "
                  "of float32's on Zen 3, 0.4-0.6 worse on base beam 5 on Zen 4), bfloat16, or int8_bfloat16 (int8, with the encoder's attention in bf16 where the "
                  "CPU has AVX-512 BF16)")
      ->check(CLI::IsMember({"float32", "bfloat16", "int8", "float16", "int8_bfloat16"}))
      ->capture_default_str();
  add_vad_options(*cmd, *a);
  cmd->add_option("--batch-size", a->batch_size,
                  "Decode this many 30-s chunks at once (faster-whisper's batched pipeline: chunks of the speech with "
                  "--vad, else plain 30-s windows; no previous-text prompt). 0: openai's sequential transcription")
      ->check(within(0, 256))
      ->capture_default_str()
      ->group("Batched transcription");
  cmd->add_flag("--pack", a->pack,
                "With --batch-size: chunks shorter than 20 s share a window (short files: one encoder pass for many), "
                "told apart by word timestamps")
      ->group("Batched transcription");
  cmd->add_flag("--print-timings", a->print_timings, "Print the engine's per-stage timings as JSON on stderr")
      ->group("Benchmarking");
  cmd->add_flag("--recompute-cross-kv", a->ablations.recompute_cross_kv_each_step,
                "Ablation: recompute cross-attention K/V at every decode step (slower, same output)")
      ->group("Benchmarking");
  cmd->add_flag("--attend-full-cache", a->ablations.attend_full_self_cache,
                "Ablation: attend over the whole static self-attention cache, masked (slower, same output)")
      ->group("Benchmarking");
  cmd->add_flag("--fused-encoder-attention", a->ablations.fused_encoder_attention,
                "Experiment, --device cuda in float16/bfloat16: the encoder's attention as one flash-attention kernel "
                "instead of two cuBLAS products around a softmax (not yet measured faster)")
      ->group("Benchmarking");
  cmd->add_flag("--cudnn-encoder-attention", a->ablations.cudnn_encoder_attention,
                "Experiment, --device cuda in float16/bfloat16: the encoder's attention through cuDNN's fused attention "
                "(libcudnn.so.9 on the loader's path; not yet measured)")
      ->excludes("--fused-encoder-attention")
      ->group("Benchmarking");
  cmd->add_flag("--host-step-tail", a->ablations.host_step_tail,
                "Ablation, --device cuda: copy each decode step's logits to the host and filter and choose there, instead "
                "of in the step's graph (slower, same output)")
      ->group("Benchmarking");
  cmd->add_flag("--fused-decode-step", a->ablations.fused_decode_step,
                "Experiment, --device cuda: each decode step's layer norms, residual adds and cache writes inside its "
                "gemv kernels, 8 kernels a layer instead of 12 (the same fp32 tokens; not yet measured faster)")
      ->group("Benchmarking");
  cmd->add_flag("--programmatic-launch", a->ablations.programmatic_launch,
                "Experiment, --device cuda on sm_90 (H100, H200): each decode-step kernel starts while the one before "
                "it finishes (programmatic dependent launch; same output; not yet measured faster)")
      ->group("Benchmarking");

  return {cmd, [a]() {
    set_cpu_threads(a->threads);
    const std::string format = !a->output_format.empty() ? a->output_format : (a->output_dir.empty() ? "" : "all");
    const std::string output_dir = a->output_dir.empty() ? "." : a->output_dir;
    if (!format.empty()) {
      require_writable_directory(output_dir);  // fail before hours of work, not after
      // Two inputs named alike (talk.wav, talk.flac) would write the same files, the second over the first.
      std::map<std::string, std::string> writer_of;
      for (const std::string& file : a->files) {
        const std::string path = output_path(file, output_dir, OutputFormat::kTxt);
        if (const auto [it, fresh] = writer_of.emplace(path, file); !fresh)
          throw Error("'" + it->second + "' and '" + file + "' would write the same transcript files (" + path +
                      ", ...): transcribe them into different --output-dir folders, or rename one");
      }
    }
    SubtitleOptions subtitles;
    if (a->max_line_width > 0) subtitles.max_line_width = a->max_line_width;
    if (a->max_line_count > 0) subtitles.max_line_count = a->max_line_count;
    if (a->max_words_per_line > 0) subtitles.max_words_per_line = a->max_words_per_line;
    subtitles.highlight_words = a->highlight_words;
    if (!a->word_timestamps && (a->max_line_width || a->max_line_count || a->max_words_per_line || a->highlight_words))
      throw Error("--max-line-width, --max-line-count, --max-words-per-line and --highlight-words need --word-timestamps");
    for (const std::string& w : subtitle_option_warnings(subtitles)) std::fprintf(stderr, "auris: warning: %s\n", w.c_str());
    if (a->word_timestamps && a->task == "translate")
      std::fprintf(stderr, "auris: warning: word timestamps of a translation may not line up with the speech\n");
    for (const CLI::Option* option : a->vad_options)
      if (option->count() > 0 && !a->vad) throw Error(option->get_name() + " needs --vad");
    if (a->pack && a->batch_size == 0) throw Error("--pack needs --batch-size");
    if (std::count(a->files.begin(), a->files.end(), "-") > 1)
      throw Error("standard input ('-') can be read once: give it once among the files");
    TranscribeOptions options = to_options(*a);  // validates --clip-timestamps before any work
    if (options.vad) {
      if (options.clip_timestamps.size() > 1 || (options.clip_timestamps.size() == 1 && options.clip_timestamps[0] != 0.0))
        throw Error("--vad chooses what to transcribe, so it cannot be combined with --clip-timestamps");
      options.vad->model = fetched_vad_model(options.vad->model);
      validate_vad_flags(*options.vad);  // its parameters and its model, before the Whisper model loads
    }
    const Device device = parse_device(a->device);
    const ComputeType compute_type = parse_compute_type(a->compute_type);
    a->model = fetched_model(a->model);  // a name that is not there fails now, not after reading the audio
    std::chrono::duration<double> load_time{};
    // Batched, the model loads on half the threads while the files are read and their speech found
    // on the other half (BatchTranscriber).
    const int load_threads = std::max(1, omp_get_max_threads() / 2);
    auto load = [&] {
      const ScopedThreadCount half(a->batch_size > 0 ? load_threads : 0);
      const auto load_start = std::chrono::steady_clock::now();
      auto loaded = Model::load(a->model, compute_type, device);
      load_time = std::chrono::steady_clock::now() - load_start;
      return loaded;
    };
    const std::shared_future<std::shared_ptr<const Model>> pending_model =
        a->batch_size > 0 ? std::async(std::launch::async, load).share() : std::shared_future<std::shared_ptr<const Model>>();
    // A file's output files (and what VAD kept, with --verbose).
    auto write_files = [&](const std::string& file, const Transcript& t) {
      if (a->verbose && a->batch_size > 0)  // batched, a file's segments are decided when its last chunk is
        for (const Segment& s : t.segments) std::fprintf(stderr, "%s\n", format_segment_line(s).c_str());
      if (a->verbose && options.vad)
        std::fprintf(stderr, "auris: %s: voice activity detection kept %.2f s of speech of %.2f s\n",
                     file == "-" ? "stdin" : file.c_str(), t.duration_after_vad, t.duration);
      if (format.empty()) return;
      const std::string name = file == "-" ? "stdin" : file;
      for (const std::string& path : write_transcript(t, name, output_dir, format, subtitles))
        std::fprintf(stderr, "auris: wrote %s\n", path.c_str());
    };
    std::shared_ptr<const Model> model;  // sequential: loaded here
    auto print_timings = [&](const std::string&, const EngineCounters& counters) {
      if (a->print_timings)
        std::fprintf(stderr, "auris: timings %s\n",
                     engine_timings_json(counters, (model ? model : pending_model.get())->info(), load_time.count()).c_str());
    };
    if (a->batch_size > 0) return transcribe_batched(*a, pending_model, options, write_files, print_timings);
    stop_on_signals();  // Ctrl-C: stop after the window being decoded, and keep what was transcribed
    model = load();
    Transcriber transcriber(model);
    set_engine_ablations(transcriber, a->ablations);
    if (a->verbose)
      options.on_segment = [](const Segment& s) { std::fprintf(stderr, "%s\n", format_segment_line(s).c_str()); };
    int failures = 0;
    for (const std::string& file : a->files) {
      try {
        if (stop_requested().load()) throw Cancelled();  // before the file's audio is read
        TranscribeOptions per_file = options;
        std::optional<ProgressBar> progress;
        if (!a->verbose && ProgressBar::enabled())
          progress.emplace(file == "-" ? std::string("stdin") : std::filesystem::path(file).filename().string());
        per_file.on_progress = [&progress](double done, double total) {
          if (progress) progress->update(done, total);
          if (stop_requested().load()) throw Cancelled();
        };
        const Transcript t = transcriber.transcribe_file(file, per_file);
        progress.reset();
        std::printf("%s\n", trim(t.text).c_str());
        std::fflush(stdout);
        write_files(file, t);
      } catch (const Cancelled& stopped) {
        // What was decided before the signal is printed and written like a whole transcript.
        if (stopped.partial) {
          std::printf("%s\n", trim(stopped.partial->text).c_str());
          std::fflush(stdout);
          write_files(file, *stopped.partial);
        }
        const std::string name = file == "-" ? "stdin" : file;
        const auto left = a->files.size() - static_cast<size_t>(&file - a->files.data()) - 1;
        std::string said = stopped.partial && !stopped.partial->segments.empty()
                               ? name + " transcribed up to " + number_text(stopped.partial->segments.back().end) +
                                     " s (that text is kept)"
                               : name + " not transcribed";
        if (left > 0) said += ", and the " + std::to_string(left) + " file(s) after it not";
        std::fprintf(stderr, "auris: interrupted: %s\n", said.c_str());
        return 130;
      } catch (const Error& e) {
        ++failures;  // one bad file must not lose the others' transcripts
        std::fprintf(stderr, "auris: error: %s\n", e.what());
      }
    }
    print_timings("", engine_counters(transcriber));
    return failures == 0 ? 0 : 1;
  }};
}

Command add_detect_language_command(CLI::App& app) {
  struct Args {
    std::vector<std::string> files;
    std::string model = "base";
    int threads = 0;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("detect-language", "Print the spoken language of audio files");
  cmd->add_option("files", a->files, "Audio files")->required();
  cmd->add_option("-m,--model", a->model, "Multilingual model: a name or a Hub repository id, downloaded into the cache the first time, or a path")->capture_default_str();
  cmd->add_option("-t,--threads", a->threads, "CPU threads (0: all cores)")->check(within(0, 256));
  return {cmd, [a]() {
    set_cpu_threads(a->threads);
    Transcriber transcriber(Model::load(fetched_model(a->model)));
    int failures = 0;
    for (const std::string& file : a->files) {
      try {
        const std::vector<float> samples = load_audio(file);
        // openai's transcribe() would name a language for the padding alone.
        require_a_frame(file, static_cast<int64_t>(samples.size()), "detect its language");
        const auto probs = transcriber.detect_language(samples, kSampleRate);
        std::string best;
        float best_p = -1;
        for (const auto& [code, p] : probs)
          if (p > best_p) best = code, best_p = p;
        std::printf("%s\t%s\t%.3f\n", file.c_str(), best.c_str(), best_p);
      } catch (const Error& e) {
        ++failures;
        std::fprintf(stderr, "auris: error: %s\n", e.what());
      }
    }
    return failures == 0 ? 0 : 1;
  }};
}

}  // namespace auris::cli
