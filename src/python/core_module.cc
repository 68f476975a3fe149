// auris._core: what the Python package (python/auris) needs from the engine. The package keeps
// faster-whisper's API in Python; here are a model, audio decoding, the model cache, and a
// transcription prepared eagerly (speech found, language detected: faster-whisper's
// TranscriptionInfo) whose segments are then pulled one at a time from a SegmentStream. Every call
// that decodes releases the GIL; auris::Error becomes auris.AurisError.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <exception>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

#include "api/cuda_plugin.h"
#include "api/engine_access.h"
#include "api/model_impl.h"
#include "api/segment_stream.h"
#include "audio/finite_samples.h"
#include "audio/mel_source.h"
#include "auris/audio.h"
#include "decoding/decoding_task.h"
#include "decoding/strip_whitespace.h"
#include "audio/sample_source.h"
#include "batch/batch_scheduler.h"
#include "auris/download.h"
#include "auris/error.h"
#include "auris/output.h"
#include "auris/stream.h"
#include "auris/transcribe.h"
#include "model/model_download.h"
#include "model/model_registry.h"
#include "transcribe/seek_loop.h"
#include "transcribe/temperature_fallback.h"
#include "transcribe/speech_only_audio.h"
#include "transcribe/vad_filter.h"
#include "util/alternate_signal_stack.h"
#include "vad/silero_vad.h"
#include "vad/speech_chunks.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace auris {
namespace {

using Audio = nb::ndarray<const float, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// Runs f on a thread of its own that ends with it, the GIL released. libgomp keeps a thread pool for
// every thread that ran a parallel region; once a process holds more pool threads than cores, its
// threads stop spinning between regions and sleep: a transcription on the SegmentStream's thread
// after a model load on Python's made 48,000 context switches instead of 600 and ran 20% slower.
template <typename F>
void on_own_thread(F&& f) {
  nb::gil_scoped_release release;
  std::exception_ptr error;
  std::thread([&] {
    try {
      f();
    } catch (...) {
      error = std::current_exception();
    }
  }).join();
  if (error) std::rethrow_exception(error);
}

// A loaded Whisper model and the VAD models its transcriptions asked for (loaded once, shared by
// threads: both are read-only once loaded).
class PyModel {
 public:
  PyModel(const std::string& path_or_name, const std::string& compute_type, const std::string& device) {
    const ComputeType type = parse_compute_type(compute_type);
    const Device where = parse_device(device);
    on_own_thread([&] { model_ = Model::load(path_or_name, type, where); });
  }
  const std::shared_ptr<const Model>& model() const { return model_; }

  const SileroVad& vad(const std::string& name_or_path) {
    const std::string path = resolve_vad_model_path(name_or_path, model_cache_dir());
    std::lock_guard lock(vad_mutex_);
    std::unique_ptr<SileroVad>& vad = vads_[path];
    if (!vad) vad = std::make_unique<SileroVad>(path);
    return *vad;
  }

 private:
  std::shared_ptr<const Model> model_;
  std::mutex vad_mutex_;
  std::map<std::string, std::unique_ptr<SileroVad>> vads_;
};

// What an option of type T must be, in the words of its TypeError.
template <typename T>
constexpr const char* expected_type() {
  if constexpr (std::is_same_v<T, bool>) return "True or False";
  else if constexpr (std::is_integral_v<T>) return "an integer";
  else if constexpr (std::is_floating_point_v<T>) return "a number";
  else if constexpr (std::is_same_v<T, std::string>) return "a string";
  else if constexpr (std::is_same_v<T, std::vector<int>>) return "a list of 32-bit integers";
  else if constexpr (std::is_same_v<T, std::vector<double>>) return "a list of numbers";
  else return "a dict";
}

// An option of the dict as T. nanobind's own failure says only "std::bad_cast"; this names the
// option and what it must be (a string with a lone surrogate is no UTF-8 text).
template <typename T>
T option(const nb::dict& d, const char* key) {
  const nb::object value = d[key];
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    // Python's True is the int 1: as a number it is a mistake, never meant.
    if (nb::isinstance<nb::bool_>(value))
      throw nb::type_error((std::string(key) + " must be " + expected_type<T>() + ", got bool").c_str());
  }
  try {
    return nb::cast<T>(value);
  } catch (const nb::cast_error&) {
    const std::string given = nb::cast<std::string>(nb::str(value.type().attr("__name__")));
    if constexpr (std::is_same_v<T, std::string>) {
      if (nb::isinstance<nb::str>(value)) throw nb::value_error((std::string(key) + " is not valid UTF-8 text (it holds a lone surrogate)").c_str());
    }
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (nb::isinstance<nb::int_>(value))
        throw nb::value_error((std::string(key) + " is out of range: " + nb::cast<std::string>(nb::str(value)) +
                               " does not fit a " + std::to_string(8 * sizeof(T)) + "-bit integer").c_str());
    }
    throw nb::type_error((std::string(key) + " must be " + expected_type<T>() + ", got " + given).c_str());
  }
}

std::optional<double> optional_double(const nb::dict& d, const char* key) {
  if (!d.contains(key) || d[key].is_none()) return std::nullopt;
  return option<double>(d, key);
}

// faster-whisper's all_language_probs: (code, probability), the most probable first.
std::vector<std::pair<std::string, float>> most_probable_first(const LanguageDetection& detection) {
  std::vector<std::pair<std::string, float>> all(detection.probabilities.begin(), detection.probabilities.end());
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return all;
}

// The package's VadOptions (python/auris/vad.py, as a dict) as the engine's.
VadParameters vad_parameters(const nb::dict& v) {
  VadParameters p;
  p.threshold = option<double>(v, "threshold");
  p.neg_threshold = optional_double(v, "neg_threshold");
  p.min_speech_duration_ms = option<int>(v, "min_speech_duration_ms");
  p.max_speech_duration_s = option<double>(v, "max_speech_duration_s");
  p.min_silence_duration_ms = option<int>(v, "min_silence_duration_ms");
  p.speech_pad_ms = option<int>(v, "speech_pad_ms");
  p.model = option<std::string>(v, "model");
  return p;
}

// The Python layer's option dict (keys of TranscribeOptions, already checked there) as options,
// for a model with this tokenizer.
TranscribeOptions transcribe_options(const nb::dict& d, const Tokenizer& tokenizer) {
  TranscribeOptions o;
  DecodingOptions& dec = o.decoding;
  dec.task = option<std::string>(d, "task");
  if (!d["language"].is_none()) dec.language = option<std::string>(d, "language");
  // A beam of one is greedy decoding (and then has no patience), as in faster-whisper.
  const int beams = option<int>(d, "beam_size");
  if (beams < 1) throw nb::value_error(("beam_size must be 1 or more, got " + std::to_string(beams)).c_str());
  if (beams > 1) {
    dec.beam_size = beams;
    dec.patience = option<double>(d, "patience");
  }
  dec.best_of = option<int>(d, "best_of");
  if (!d["max_new_tokens"].is_none()) dec.sample_len = option<int>(d, "max_new_tokens");
  dec.length_exponent = optional_double(d, "length_exponent");
  dec.repetition_penalty = option<double>(d, "repetition_penalty");
  dec.no_repeat_ngram_size = option<int>(d, "no_repeat_ngram_size");
  // faster-whisper's prefix is CTranslate2's: the first window's first tokens, decoded as if sampled
  // and part of its text, after <|0.00|> where there are timestamps (openai's prefix, the engine's
  // DecodingOptions::prefix, precedes every window and is not in its text).
  if (!d["prefix"].is_none()) {
    const std::string prefix = strip_whitespace(option<std::string>(d, "prefix"));
    if (!prefix.empty()) {
      if (!option<bool>(d, "without_timestamps")) dec.forced_tokens.push_back(tokenizer.timestamp_begin());
      const std::vector<int> text = tokenizer.encode(" " + prefix);
      dec.forced_tokens.insert(dec.forced_tokens.end(), text.begin(), text.end());
    }
  }
  dec.suppress_blank = option<bool>(d, "suppress_blank");
  dec.suppress_tokens = TextOrTokens(option<std::vector<int>>(d, "suppress_tokens"));
  dec.without_timestamps = option<bool>(d, "without_timestamps");
  dec.max_initial_timestamp = optional_double(d, "max_initial_timestamp");
  o.temperatures = option<std::vector<double>>(d, "temperatures");
  o.compression_ratio_threshold = optional_double(d, "compression_ratio_threshold");
  o.logprob_threshold = optional_double(d, "log_prob_threshold");
  o.no_speech_threshold = optional_double(d, "no_speech_threshold");
  o.condition_on_previous_text = option<bool>(d, "condition_on_previous_text");
  o.language_detection_segments = option<int>(d, "language_detection_segments");
  o.language_detection_threshold = option<double>(d, "language_detection_threshold");
  o.multilingual = option<bool>(d, "multilingual");
  o.prompt_reset_on_temperature = option<double>(d, "prompt_reset_on_temperature");
  if (!d["initial_prompt"].is_none()) {
    if (nb::isinstance<nb::str>(d["initial_prompt"]))
      o.initial_prompt = option<std::string>(d, "initial_prompt");
    else
      o.initial_prompt = option<std::vector<int>>(d, "initial_prompt");
  }
  if (!d["hotwords"].is_none()) o.hotwords = option<std::string>(d, "hotwords");
  o.word_timestamps = option<bool>(d, "word_timestamps");
  o.prepend_punctuations = option<std::string>(d, "prepend_punctuations");
  o.append_punctuations = option<std::string>(d, "append_punctuations");
  o.hallucination_silence_threshold = optional_double(d, "hallucination_silence_threshold");
  o.clip_timestamps = option<std::vector<double>>(d, "clip_timestamps");
  if (!d["vad"].is_none()) o.vad = vad_parameters(option<nb::dict>(d, "vad"));
  return o;
}

// Bad options fail at transcribe(), not at the first segment: each temperature's decoding options
// as the seek loop will use them.
void check_options(const TranscribeOptions& options, const Model& model) {
  check_transcribe_options(options);
  if (options.initial_prompt) prompt_tokens(model_impl(model).tokenizer, *options.initial_prompt);
  for (const double t : options.temperatures)
    DecodingTask(model_impl(model).tokenizer, model_impl(model).weights.dims, options_at_temperature(options.decoding, t));
}

// A Transcript rebuilt from the package's Segment objects (python/auris/transcribe.py, ids from 1),
// for the writers of include/auris/output.h.
Transcript transcript_of(const nb::list& segments, const std::string& language) {
  Transcript t;
  t.language = language;
  for (nb::handle py : segments) {
    Segment s;
    s.id = nb::cast<int>(py.attr("id")) - 1;
    s.seek = nb::cast<int>(py.attr("seek"));
    s.start = nb::cast<double>(py.attr("start"));
    s.end = nb::cast<double>(py.attr("end"));
    s.text = nb::cast<std::string>(py.attr("text"));
    s.tokens = nb::cast<std::vector<int>>(py.attr("tokens"));
    s.temperature = nb::cast<double>(py.attr("temperature"));
    s.avg_logprob = nb::cast<double>(py.attr("avg_logprob"));
    s.compression_ratio = nb::cast<double>(py.attr("compression_ratio"));
    s.no_speech_prob = nb::cast<double>(py.attr("no_speech_prob"));
    if (nb::object words = py.attr("words"); !words.is_none()) {
      t.word_timestamps = true;
      for (nb::handle w : words)
        s.words.push_back({nb::cast<std::string>(w.attr("word")), nb::cast<double>(w.attr("start")),
                           nb::cast<double>(w.attr("end")), nb::cast<double>(w.attr("probability"))});
    }
    t.text += s.text;
    t.segments.push_back(std::move(s));
  }
  return t;
}

// faster-whisper's batched pipeline over one recording, its segments handed to o.on_segment in order
// as their chunks are done (the first ones while the rest decode). When on_segment throws Cancelled
// (the generator closed or abandoned), the chunks not yet started are dropped and only the running
// ones finish.
Transcript transcribe_batched(const std::shared_ptr<const Model>& model, int batch_size, int threads,
                              const std::vector<float>& samples, const SpeechDetection* speech,
                              const TranscribeOptions& o) {
  // Declared before the scheduler: its threads call back into these until it is destroyed.
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Segment> decided;
  bool ended = false;
  std::string error;
  Transcript transcript;
  BatchScheduler scheduler(model, batch_size, threads);
  TranscribeOptions plain = o;
  plain.on_segment = nullptr;
  plain.on_progress = nullptr;
  BatchScheduler::Callbacks callbacks;
  callbacks.on_segment = [&](const Segment& s) {
    std::lock_guard lock(mutex);
    decided.push_back(s);
    changed.notify_all();
  };
  callbacks.on_done = [&](Transcript t) {
    std::lock_guard lock(mutex);
    transcript = std::move(t);
    ended = true;
    changed.notify_all();
  };
  callbacks.on_error = [&](const std::string& message) {
    std::lock_guard lock(mutex);
    error = message;
    ended = true;
    changed.notify_all();
  };
  const std::shared_ptr<BatchScheduler::Ticket> ticket =
      scheduler.submit(std::make_unique<MemorySampleSource>(samples), plain, std::move(callbacks), speech);
  try {
    for (;;) {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return !decided.empty() || ended; });
      if (decided.empty()) break;
      const Segment s = std::move(decided.front());
      decided.pop_front();
      lock.unlock();
      o.on_segment(s);
    }
  } catch (const Cancelled&) {
    ticket->cancel();
    throw;
  }
  if (!error.empty()) throw Error(error);
  return transcript;
}

// One transcription: what faster-whisper's transcribe() knows before its first segment (found
// eagerly, as it does), then its segments pulled from a stream.
class PyTranscription {
 public:
  // The samples of an array the caller gave.
  PyTranscription(PyModel& py_model, Audio audio, const nb::dict& options_dict, int threads, int batch_size)
      : PyTranscription(py_model, std::vector<float>(audio.data(), audio.data() + audio.shape(0)), options_dict,
                        threads, batch_size) {}

  // A file decoded here, as the CLI does: no NumPy array, and NumPy need not even be imported.
  PyTranscription(PyModel& py_model, const std::string& path, const nb::dict& options_dict, int threads,
                  int batch_size)
      : PyTranscription(py_model, decoded(path), options_dict, threads, batch_size) {}

 private:
  static std::vector<float> decoded(const std::string& path) {
    nb::gil_scoped_release release;
    return load_audio(path);
  }

  PyTranscription(PyModel& py_model, std::vector<float> samples, const nb::dict& options_dict, int threads,
                  int batch_size) {
    TranscribeOptions options = transcribe_options(options_dict, model_impl(*py_model.model()).tokenizer);
    const std::shared_ptr<const Model> model = py_model.model();
    const Tokenizer& tokenizer = model_impl(*model).tokenizer;
    auto transcriber = std::make_shared<Transcriber>(model);
    transcriber->set_threads(threads);
    if (samples.empty()) throw Error("the audio is empty: there is nothing to transcribe");
    require_finite_samples(samples);
    if (batch_size < 0 || batch_size > 256) throw Error("batch_size must be 1 to 256, got " + std::to_string(batch_size));
    if (options.vad) validate(*options.vad);
    check_options(options, *model);
    // What is transcribed (the speech VAD found, or all of it) as one spectrogram, computed once for
    // the language detection and the transcription (a batched run reads the samples instead).
    std::shared_ptr<InMemoryMel> mel;
    SpeechDetection speech;
    on_own_thread([&] {
      duration_ = static_cast<double>(samples.size()) / kSampleRate;
      duration_after_vad_ = duration_;
      std::vector<float> speech_samples;
      if (options.vad) {
        SpeechTimestampsOptions vad_options = speech_timestamps_options(*options.vad);
        // Batched, the speech is cut into chunks of at most a window, as the scheduler cuts it:
        // it is handed this detection instead of finding it again.
        if (batch_size > 0) vad_options.max_speech_duration_s = std::min<double>(vad_options.max_speech_duration_s, kChunkSeconds);
        speech = detect_speech(py_model.vad(options.vad->model), samples, vad_options);
        speech_samples = collect_speech(samples, speech.spans);
        duration_after_vad_ = static_cast<double>(speech.speech_samples()) / kSampleRate;
      }
      const std::span<const float> heard =
          options.vad ? std::span<const float>(speech_samples) : std::span<const float>(samples);
      if (batch_size == 0 && !heard.empty()) mel = std::make_shared<InMemoryMel>(heard, model_impl(*model).weights.dims.n_mels);
      if (options.decoding.language) {
        language_ = *options.decoding.language;
        language_probability_ = 1.0;
      } else if (!tokenizer.multilingual()) {
        language_ = "en";
        language_probability_ = 1.0;
      } else if (!heard.empty()) {
        // As transcribe() would detect it: the first 30 s of what is transcribed. The transcriber
        // keeps that window, so the transcription does not encode it again.
        std::shared_ptr<MelSource> detection_mel = mel;
        if (!detection_mel) detection_mel = std::make_shared<InMemoryMel>(heard, model_impl(*model).weights.dims.n_mels);
        // faster-whisper detects from the first clip's start (openai from the audio's).
        const double clip_frame = options.clip_timestamps.empty() ? 0.0 : options.clip_timestamps[0] * kSampleRate / kHopLength;
        const int first_frame = clip_frame >= 0 && clip_frame < detection_mel->content_frames() ? static_cast<int>(clip_frame) : 0;
        const LanguageDetection detection =
            EngineAccess::detect_language(*transcriber, *detection_mel, options, first_frame);
        all_language_probs_ = most_probable_first(detection);
        language_ = detection.code;
        language_probability_ = detection.probability;
        options.decoding.language = language_;
      }
    });
    SegmentStream::Transcription run;
    if (batch_size > 0) {
      auto shared_samples = std::make_shared<const std::vector<float>>(std::move(samples));
      auto found = options.vad ? std::make_shared<const SpeechDetection>(std::move(speech)) : nullptr;
      run = [model, batch_size, threads, shared_samples, found](const TranscribeOptions& o) {
        return transcribe_batched(model, batch_size, threads, *shared_samples, found.get(), o);
      };
    } else if (options.vad) {
      run = [transcriber, mel, speech = std::move(speech)](const TranscribeOptions& o) {
        return EngineAccess::transcribe_speech(*transcriber, mel.get(), speech, o);
      };
    } else {
      run = [transcriber, mel](const TranscribeOptions& o) { return EngineAccess::transcribe(*transcriber, *mel, o); };
    }
    stream_ = std::make_unique<SegmentStream>(std::move(run), std::move(options));
  }

 public:
  // (segment or None, finished): waits up to wait_ms with the GIL released.
  nb::object next(int wait_ms) {
    Segment s;
    SegmentStream::Next n;
    {
      nb::gil_scoped_release release;
      n = stream_->next(s, std::chrono::milliseconds(wait_ms));
    }
    if (n == SegmentStream::Next::kSegment) return nb::cast(std::move(s));
    if (n == SegmentStream::Next::kEnd) return nb::cast(true);
    return nb::none();
  }

  void close() {
    nb::gil_scoped_release release;
    stream_->close();
  }

  std::string language_;
  double language_probability_ = 0;
  std::vector<std::pair<std::string, float>> all_language_probs_;
  double duration_ = 0, duration_after_vad_ = 0;

 private:
  std::unique_ptr<SegmentStream> stream_;
};

nb::ndarray<nb::numpy, float, nb::ndim<1>> to_numpy(std::vector<float> samples) {
  auto* owned = new std::vector<float>(std::move(samples));
  nb::capsule free_it(owned, [](void* p) noexcept { delete static_cast<std::vector<float>*>(p); });
  return nb::ndarray<nb::numpy, float, nb::ndim<1>>(owned->data(), {owned->size()}, free_it);
}

// A live stream (auris/stream.h) for auris.StreamingTranscriber: samples pushed as they arrive,
// committed and tentative words back. Each decode runs on_own_thread, the GIL released.
class PyStream {
 public:
  using Update = std::tuple<std::vector<Word>, std::vector<Word>, bool>;

  PyStream(PyModel& py_model, const nb::dict& options_dict, double step_seconds, double trim_seconds, int threads) {
    TranscribeOptions transcribe = transcribe_options(options_dict, model_impl(*py_model.model()).tokenizer);
    StreamOptions options;
    options.step_seconds = step_seconds;
    options.trim_seconds = trim_seconds;
    options.vad = transcribe.vad;  // the stream's own, live VAD
    transcribe.vad.reset();
    transcribe.clip_timestamps.clear();
    options.transcribe = std::move(transcribe);
    check_options(options.transcribe, *py_model.model());
    on_own_thread([&] { stream_ = std::make_unique<StreamingTranscriber>(py_model.model(), options); });
    stream_->set_threads(threads);
  }

  // The lock is taken with the GIL released: a thread waiting for it while holding the GIL would
  // keep the decoding thread from taking the GIL back.
  Update push(Audio audio) {
    StreamUpdate update;
    on_own_thread([&] {
      std::lock_guard lock(mutex_);
      // The updates one push makes (an utterance the VAD closed, then the next), as one.
      stream_->push_and_update(std::span<const float>(audio.data(), audio.shape(0)), [&](StreamUpdate u) {
        update.committed.insert(update.committed.end(), u.committed.begin(), u.committed.end());
        update.tentative = std::move(u.tentative);
        update.utterance_ended = update.utterance_ended || u.utterance_ended;
      });
    });
    return {std::move(update.committed), std::move(update.tentative), update.utterance_ended};
  }

  Update finish() {
    StreamUpdate update;
    on_own_thread([&] {
      std::lock_guard lock(mutex_);
      update = stream_->finish();
    });
    return {std::move(update.committed), std::move(update.tentative), update.utterance_ended};
  }

  nb::dict stats() {
    StreamStats s;
    {
      nb::gil_scoped_release release;
      std::lock_guard lock(mutex_);
      s = stream_->stats();
    }
    nb::dict d;
    d["received_seconds"] = s.received_seconds;
    d["decoded_seconds"] = s.decoded_seconds;
    d["decodes"] = s.decodes;
    d["compute_seconds"] = s.compute_seconds;
    d["forced_tokens"] = s.forced_tokens;
    d["buffered_seconds"] = s.buffered_seconds;
    return d;
  }

 private:
  std::mutex mutex_;  // a StreamingTranscriber is one thread's: Python threads take turns
  std::unique_ptr<StreamingTranscriber> stream_;
};

// faster-whisper's WhisperModel.detect_language: the language of what transcribe() would hear (the
// speech VAD finds, with a "vad" option) by its rule over language_detection_segments windows, as
// (language, probability, [(language, probability), ...] most probable first).
nb::tuple detect_language_of(PyModel& py_model, Audio audio, const nb::dict& options_dict, int threads) {
  TranscribeOptions options;
  options.language_detection_segments = option<int>(options_dict, "language_detection_segments");
  options.language_detection_threshold = option<double>(options_dict, "language_detection_threshold");
  if (!options_dict["vad"].is_none()) options.vad = vad_parameters(option<nb::dict>(options_dict, "vad"));
  check_transcribe_options(options);
  if (options.vad) validate(*options.vad);
  const std::shared_ptr<const Model> model = py_model.model();
  if (!model_impl(*model).tokenizer.multilingual())
    throw Error("this model is English-only and has no language tokens, so it cannot detect the language; "
                "use a multilingual model");
  std::vector<float> samples(audio.data(), audio.data() + audio.size());
  LanguageDetection detection;
  {
    nb::gil_scoped_release release;
    require_finite_samples(samples);
    if (options.vad) {
      const SpeechDetection speech =
          detect_speech(py_model.vad(options.vad->model), samples, speech_timestamps_options(*options.vad));
      samples = collect_speech(samples, speech.spans);
      if (samples.empty()) throw Error("voice activity detection found no speech, so there is no language to detect");
    }
    require_a_frame("the audio", static_cast<int64_t>(samples.size()), "detect its language");
    Transcriber transcriber(model);
    transcriber.set_threads(threads);
    InMemoryMel mel(samples, model_impl(*model).weights.dims.n_mels);
    detection = EngineAccess::detect_language(transcriber, mel, options);
  }
  return nb::make_tuple(detection.code, detection.probability, most_probable_first(detection));
}

}  // namespace
}  // namespace auris

NB_MODULE(_core, m) {
  using namespace auris;
  // CPython's handlers ask for an alternate stack (SA_ONSTACK); the importing thread, the main one
  // as a rule, gets one, so that Ctrl-C inside oneDNN's sgemm leaves the heap alone.
  ensure_alternate_signal_stack();
  m.doc() = "The auris engine, as the auris package uses it (see auris.WhisperModel).";
  nb::exception<Error>(m, "AurisError", PyExc_RuntimeError);

  nb::class_<Word>(m, "Word")
      .def_ro("word", &Word::word)
      .def_ro("start", &Word::start)
      .def_ro("end", &Word::end)
      .def_ro("probability", &Word::probability);
  nb::class_<Segment>(m, "Segment")
      .def_ro("id", &Segment::id)
      .def_ro("seek", &Segment::seek)
      .def_ro("start", &Segment::start)
      .def_ro("end", &Segment::end)
      .def_ro("text", &Segment::text)
      .def_ro("tokens", &Segment::tokens)
      .def_ro("temperature", &Segment::temperature)
      .def_ro("avg_logprob", &Segment::avg_logprob)
      .def_ro("compression_ratio", &Segment::compression_ratio)
      .def_ro("no_speech_prob", &Segment::no_speech_prob)
      .def_ro("words", &Segment::words);

  nb::class_<PyModel>(m, "Model")
      .def(nb::init<const std::string&, const std::string&, const std::string&>(), "path_or_name"_a,
           "compute_type"_a = "float32", "device"_a = "cpu")
      .def_prop_ro("multilingual", [](const PyModel& p) { return p.model()->info().multilingual; })
      .def_prop_ro("n_mels", [](const PyModel& p) { return p.model()->info().n_mels; })
      .def_prop_ro("path", [](const PyModel& p) { return p.model()->info().path; })
      .def_prop_ro("compute_type", [](const PyModel& p) { return compute_type_name(p.model()->info().compute_type); })
      .def_prop_ro("languages", [](const PyModel& p) { return model_impl(*p.model()).tokenizer.language_codes(); });

  nb::class_<PyTranscription>(m, "Transcription")
      .def(nb::init<PyModel&, Audio, const nb::dict&, int, int>(), "model"_a, "audio"_a, "options"_a, "threads"_a,
           "batch_size"_a)
      .def(nb::init<PyModel&, const std::string&, const nb::dict&, int, int>(), "model"_a, "path"_a, "options"_a,
           "threads"_a, "batch_size"_a)
      .def("next", &PyTranscription::next, "wait_ms"_a,
           "The next Segment, True at the end, or None if none came within wait_ms.")
      .def("close", &PyTranscription::close, "Stops the transcription before its next window.")
      .def_ro("language", &PyTranscription::language_)
      .def_ro("language_probability", &PyTranscription::language_probability_)
      .def_ro("all_language_probs", &PyTranscription::all_language_probs_)
      .def_ro("duration", &PyTranscription::duration_)
      .def_ro("duration_after_vad", &PyTranscription::duration_after_vad_);

  nb::class_<PyStream>(m, "Stream")
      .def(nb::init<PyModel&, const nb::dict&, double, double, int>(), "model"_a, "options"_a, "step_seconds"_a,
           "trim_seconds"_a, "threads"_a)
      .def("push", &PyStream::push, "samples"_a,
           "Appends samples; decodes if a step of new audio came. (committed, tentative, utterance_ended).")
      .def("finish", &PyStream::finish, "The input ended: commits every word left. (committed, tentative, utterance_ended).")
      .def("stats", &PyStream::stats);

  m.def(
      "load_audio",
      [](const std::string& path) {
        std::vector<float> samples;
        {
          nb::gil_scoped_release release;
          samples = load_audio(path);
        }
        return to_numpy(std::move(samples));
      },
      "path"_a, "Decodes an audio or video file to mono float32 samples at 16 kHz (FFmpeg).");
  m.def(
      "load_stereo_audio",
      [](const std::string& path) {
        StereoAudio audio;
        {
          nb::gil_scoped_release release;
          audio = load_stereo_audio(path);
        }
        return nb::make_tuple(to_numpy(std::move(audio.left)), to_numpy(std::move(audio.right)));
      },
      "path"_a, "Decodes an audio or video file to its left and right channels, float32 at 16 kHz (FFmpeg).");
  m.def("detect_language", &detect_language_of, "model"_a, "audio"_a, "options"_a, "threads"_a,
        "faster-whisper's detect_language: (language, probability, all_language_probs).");
  // faster-whisper's device="auto": CUDA where its plugin loads and a GPU answers.
  m.def("cuda_available", [] {
    nb::gil_scoped_release release;  // the first call loads the plugin and the CUDA runtime
    try {
      cuda_backend();
      return true;
    } catch (const std::exception&) {
      return false;
    }
  });
  m.def("model_cache_dir", &model_cache_dir);
  m.def(
      "format_transcript",
      [](const nb::list& segments, const std::string& language, const std::string& format) {
        return format_transcript(transcript_of(segments, language), format);
      },
      "segments"_a, "language"_a, "format"_a,
      "The text `auris transcribe -f FORMAT` writes (txt, vtt, srt, tsv or json) for auris.Segment objects.");
  m.def("registry_models", &available_models);
  m.def("is_registry_model", [](const std::string& name) { return find_registry_model(name).has_value(); });
  m.def(
      "download_model",
      [](const std::string& name, const std::string& cache_dir) {
        nb::gil_scoped_release release;
        return download_model(name, cache_dir);
      },
      "name"_a, "cache_dir"_a, "Downloads a registry model (CTranslate2 format) into cache_dir; returns its path.");
  m.def("is_vad_model", [](const std::string& name) { return find_vad_model(name).has_value(); });
  m.def("is_hub_repo_id", &is_hub_repo_id);
  m.def("hub_repo_cache_path", &hub_repo_cache_path, "repo"_a, "cache_dir"_a);
  m.def(
      "download_vad_model",
      [](const std::string& name, const std::string& cache_dir) {
        nb::gil_scoped_release release;
        return download_vad_model(name, cache_dir);
      },
      "name"_a, "cache_dir"_a, "Downloads a VAD model (silero-vad) into cache_dir unless it is there; returns its path.");
}
