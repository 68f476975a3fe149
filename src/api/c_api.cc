// The C API (include/auris/auris.h) over the C++ one. Handles own C++ objects; every exception is
// caught at this boundary and becomes a status and the calling thread's message. Options are checked
// against the model before any audio is read, so that a bad option is never reported as bad audio.
#include "auris/auris.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "api/model_impl.h"
#include "auris/download.h"
#include "auris/error.h"
#include "auris/model.h"
#include "auris/transcribe.h"
#include "decoding/decoding_task.h"
#include "model/model_download.h"
#include "model/model_registry.h"
#include "transcribe/seek_loop.h"
#include "transcribe/temperature_fallback.h"
#include "tokenizer/utf8.h"
#include "util/thread_count.h"
#include "util/out_of_memory.h"
#include "util/shown_text.h"

struct auris_model {
  std::shared_ptr<const auris::Model> model;
};

struct auris_result {
  auris::Transcript transcript;
  std::vector<std::vector<auris_word>> words;  // per segment, pointing into transcript
};

namespace auris {
namespace {

thread_local std::string last_error;

// An Error whose status is known where it is thrown; any other Error takes the call's own status.
class StatusError : public Error {
 public:
  StatusError(auris_status status, const std::string& message) : Error(message), status(status) {}
  auris_status status;
};

// Runs body, turning every exception into a status and the thread's message. errors: the status of
// an auris::Error the body does not classify itself.
auris_status guarded(auris_status errors, const std::function<void()>& body) {
  auris_status status = AURIS_OK;
  try {
    body();
  } catch (const StatusError& e) {
    status = e.status;
    last_error = e.what();
  } catch (const Cancelled& e) {
    status = AURIS_CANCELLED;
    last_error = e.what();
  } catch (const Error& e) {
    status = errors;
    last_error = e.what();
  } catch (const std::bad_alloc& e) {
    status = AURIS_INTERNAL_ERROR;
    last_error = std::string(dynamic_cast<const OutOfMemory*>(&e) ? e.what() : "out of memory") +
                 ": use a smaller model, int8, or fewer threads transcribing at once";
  } catch (const std::exception& e) {
    status = AURIS_INTERNAL_ERROR;
    last_error = std::string("internal error in auris (please report it): ") + e.what();
  } catch (...) {
    status = AURIS_INTERNAL_ERROR;
    last_error = "internal error in auris (please report it): an unknown exception";
  }
  if (status == AURIS_OK) last_error.clear();
  return status;
}

void require(bool condition, const std::string& message) {
  if (!condition) throw StatusError(AURIS_INVALID_ARGUMENT, message);
}

// openai's schedule (fallback_temperatures), its errors an invalid argument.
std::vector<double> temperature_schedule(double start, double increment) {
  try {
    return fallback_temperatures(start, increment);
  } catch (const Error& e) {
    throw StatusError(AURIS_INVALID_ARGUMENT, e.what());
  }
}

std::vector<auris_word> word_views(const Segment& segment) {
  std::vector<auris_word> words;
  words.reserve(segment.words.size());
  for (const Word& w : segment.words) words.push_back({w.word.c_str(), w.start, w.end, w.probability});
  return words;
}

auris_segment_view segment_view(const Segment& s, const std::vector<auris_word>& words) {
  return {s.id, s.start, s.end, s.text.c_str(), s.avg_logprob, s.no_speech_prob, words.size(),
          words.empty() ? nullptr : words.data()};
}

TranscribeOptions to_options(const auris_transcribe_options& c) {
  TranscribeOptions o;
  DecodingOptions& d = o.decoding;
  if (c.language) d.language = c.language;
  if (c.task) d.task = c.task;
  require(c.beam_size >= 0, "beam_size must be 0 (greedy) or more, got " + std::to_string(c.beam_size));
  require(c.best_of >= 0, "best_of must be 0 (one candidate) or more, got " + std::to_string(c.best_of));
  if (c.beam_size > 0) d.beam_size = c.beam_size;
  if (c.best_of > 0) d.best_of = c.best_of;
  o.temperatures = temperature_schedule(c.temperature, c.temperature_increment);
  o.word_timestamps = c.word_timestamps != 0;
  if (c.initial_prompt) o.initial_prompt = c.initial_prompt;
  o.condition_on_previous_text = c.condition_on_previous_text != 0;
  if (c.hotwords) o.hotwords = c.hotwords;
  o.language_detection_segments = c.language_detection_segments;
  o.language_detection_threshold = c.language_detection_threshold;
  o.multilingual = c.multilingual != 0;
  d.repetition_penalty = c.repetition_penalty;
  d.no_repeat_ngram_size = c.no_repeat_ngram_size;
  if (c.vad) {
    o.vad.emplace();
    if (c.vad_model) o.vad->model = c.vad_model;
  }
  if (c.on_segment) {
    o.on_segment = [callback = c.on_segment, user = c.user_data](const Segment& segment) {
      const std::vector<auris_word> words = word_views(segment);
      const auris_segment_view view = segment_view(segment, words);
      if (callback(&view, user) != 0) throw Cancelled();
    };
  }
  if (c.on_progress) {
    o.on_progress = [callback = c.on_progress, user = c.user_data](double done, double total) {
      if (callback(done, total, user) != 0) throw Cancelled();
    };
  }
  return o;
}

// What the seek loop and each decoding attempt would refuse, refused before the audio is read.
void check_options(const ModelImpl& m, const TranscribeOptions& o) {
  try {
    check_transcribe_options(o);
    for (double t : o.temperatures) DecodingTask(m.tokenizer, m.weights.dims, options_at_temperature(o.decoding, t));
    for (const auto& [name, text] : {std::pair{"initial_prompt", o.initial_prompt ? std::get_if<std::string>(&*o.initial_prompt) : nullptr},
                                     std::pair{"hotwords", o.hotwords ? &*o.hotwords : nullptr}})
      if (text && !is_valid_utf8(*text)) throw Error(std::string(name) + " is not valid UTF-8 text: convert it to UTF-8");
    if (o.initial_prompt) prompt_tokens(m.tokenizer, *o.initial_prompt);
  } catch (const Error& e) {
    throw StatusError(AURIS_INVALID_ARGUMENT, e.what());
  }
  require(!o.word_timestamps || !m.weights.dims.alignment_heads.empty(),
          "this model has no alignment heads, so it cannot give word timestamps: set word_timestamps to 0");
  if (o.vad) {
    try {
      validate(*o.vad);
    } catch (const Error& e) {
      throw StatusError(AURIS_MODEL_ERROR, e.what());
    }
  }
}

// One call: its own Transcriber (decoding state, thread count) over the shared model.
auris_status transcribe(const auris_model* model, const auris_transcribe_options* c_options, auris_result** result,
                        const std::function<Transcript(Transcriber&, const TranscribeOptions&)>& run) {
  if (result) *result = nullptr;
  return guarded(AURIS_AUDIO_ERROR, [&] {
    require(model != nullptr, "model is NULL: load one with auris_model_load");
    require(result != nullptr, "result is NULL: pass the address of an auris_result* to receive the result");
    auris_transcribe_options defaults;
    auris_transcribe_options_init(&defaults);
    const auris_transcribe_options& c = c_options ? *c_options : defaults;
    require(c.threads >= 0 && c.threads <= kMostThreads, "threads must be 0 (all cores) to " +
                                                            std::to_string(kMostThreads) + ", got " + std::to_string(c.threads));
    const TranscribeOptions options = to_options(c);
    check_options(model_impl(*model->model), options);
    Transcriber transcriber(model->model);
    transcriber.set_threads(c.threads);
    auto out = std::make_unique<auris_result>();
    out->transcript = run(transcriber, options);
    for (const Segment& s : out->transcript.segments) out->words.push_back(word_views(s));
    *result = out.release();
  });
}

}  // namespace
}  // namespace auris

using namespace auris;

extern "C" {

const char* auris_last_error(void) { return last_error.c_str(); }

const char* auris_status_name(auris_status status) {
  switch (status) {
    case AURIS_OK: return "ok";
    case AURIS_INVALID_ARGUMENT: return "invalid argument";
    case AURIS_MODEL_ERROR: return "model error";
    case AURIS_AUDIO_ERROR: return "audio error";
    case AURIS_CANCELLED: return "cancelled";
    case AURIS_INTERNAL_ERROR: return "internal error";
  }
  return "unknown status";
}

auris_model* auris_model_load(const char* name_or_path, const char* compute_type, const char* device,
                              auris_status* status) {
  auris_model* model = nullptr;
  const auris_status s = guarded(AURIS_MODEL_ERROR, [&] {
    require(name_or_path != nullptr, "name_or_path is NULL: pass a model name (\"tiny.en\") or a model path");
    ComputeType type = ComputeType::kFloat32;
    Device where = Device::kCpu;
    try {
      if (compute_type) type = parse_compute_type(compute_type);
      if (device) where = parse_device(device);
    } catch (const Error& e) {
      throw StatusError(AURIS_INVALID_ARGUMENT, e.what());
    }
    model = new auris_model{Model::load(name_or_path, type, where)};
  });
  if (status) *status = s;
  return model;
}

void auris_model_free(auris_model* model) { delete model; }

auris_status auris_download(const char* name, auris_download_progress progress, void* user_data) {
  return guarded(AURIS_MODEL_ERROR, [&] {
    require(name != nullptr, "name is NULL: pass a model name (\"tiny.en\", \"base\", ...) or \"silero-vad\"");
    const bool vad = find_vad_model(name).has_value();
    if (!vad && !find_registry_model(name) && !is_hub_repo_id(name)) {
      std::string known;
      for (const std::string& model : available_models()) known += model + ", ";
      throw StatusError(AURIS_INVALID_ARGUMENT, "unknown model name '" + shown(name) + "': known are " + known +
                                                    "silero-vad, and hub repositories as owner/name");
    }
    DownloadProgress report;
    if (progress)
      report = [&](const std::string& file, long long done, long long total) { progress(file.c_str(), done, total, user_data); };
    if (vad) download_vad_model(name, "", report);
    else download_model(name, "", report);
  });
}

void auris_transcribe_options_init(auris_transcribe_options* options) {
  if (!options) return;
  *options = auris_transcribe_options{};
  options->beam_size = 5;
  options->best_of = 5;
  options->temperature = 0.0;
  options->temperature_increment = 0.2;
  options->condition_on_previous_text = 1;
  options->language_detection_segments = 1;
  options->language_detection_threshold = 0.5;
  options->repetition_penalty = 1.0;
}

auris_status auris_transcribe_file(const auris_model* model, const char* path, const auris_transcribe_options* options,
                                   auris_result** result) {
  return transcribe(model, options, result, [&](Transcriber& t, const TranscribeOptions& o) {
    require(path != nullptr, "path is NULL: pass the path of an audio file, or \"-\" for standard input");
    return t.transcribe_file(path, o);
  });
}

auris_status auris_transcribe_pcm(const auris_model* model, const float* samples, size_t n, int sample_rate,
                                  const auris_transcribe_options* options, auris_result** result) {
  return transcribe(model, options, result, [&](Transcriber& t, const TranscribeOptions& o) {
    require(samples != nullptr || n == 0, "samples is NULL but n is " + std::to_string(n));
    require(n <= static_cast<size_t>(PTRDIFF_MAX) / sizeof(float), "n is " + std::to_string(n) + ", more samples than any array holds");
    require(sample_rate == 16000, "sample_rate must be 16000 (mono), got " + std::to_string(sample_rate) +
                                      ": resample the audio first, or pass the file to auris_transcribe_file");
    return t.transcribe(std::span<const float>(samples, n), sample_rate, o);
  });
}

size_t auris_result_segment_count(const auris_result* result) {
  return result ? result->transcript.segments.size() : 0;
}

auris_status auris_result_segment(const auris_result* result, size_t index, auris_segment_view* segment) {
  return guarded(AURIS_INVALID_ARGUMENT, [&] {
    require(result != nullptr && segment != nullptr, "result and segment must not be NULL");
    const size_t count = result->transcript.segments.size();
    require(index < count, "segment " + std::to_string(index) + " is past the last one: the result has " +
                               std::to_string(count) + " (auris_result_segment_count)");
    *segment = segment_view(result->transcript.segments[index], result->words[index]);
  });
}

const char* auris_result_text(const auris_result* result) { return result ? result->transcript.text.c_str() : ""; }

const char* auris_result_language(const auris_result* result) {
  return result ? result->transcript.language.c_str() : "";
}

double auris_result_duration(const auris_result* result) { return result ? result->transcript.duration : 0.0; }

void auris_result_free(auris_result* result) { delete result; }

}  // extern "C"
