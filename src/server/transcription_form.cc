#include "server/transcription_form.h"

#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "auris/batch.h"
#include "server/http_error.h"
#include "tokenizer/languages.h"
#include "tokenizer/utf8.h"
#include "util/bounded_json.h"
#include "util/number_text.h"
#include "util/shown_text.h"

namespace auris::server {
namespace {

constexpr int kMaxBeamSize = 16;

const std::string* field(const FormFields& fields, const std::string& name) {
  const auto it = fields.find(name);
  return it == fields.end() || it->second.empty() ? nullptr : &it->second.back();
}

HttpError bad_field(const std::string& name, const std::string& message) {
  return HttpError(400, name + ": " + message, name, "invalid_value");
}

double number_field(const FormFields& fields, const std::string& name, double fallback, double low, double high) {
  const std::string* text = field(fields, name);
  if (!text) return fallback;
  char* end = nullptr;
  const double value = std::strtod(text->c_str(), &end);
  if (text->empty() || *end != '\0' || !std::isfinite(value))
    throw bad_field(name, "'" + *text + "' is not a number");
  if (value < low || value > high) {
    throw bad_field(name, number_text(value) + " is out of range: it must be " + number_text(low) + " to " + number_text(high));
  }
  return value;
}

int integer_field(const FormFields& fields, const std::string& name, int fallback, int low, int high) {
  const double value = number_field(fields, name, fallback, low, high);
  if (value != std::floor(value)) throw bad_field(name, "must be a whole number");
  return static_cast<int>(value);
}

bool bool_field(const FormFields& fields, const std::string& name) {
  const std::string* text = field(fields, name);
  if (!text) return false;
  if (*text == "true" || *text == "True" || *text == "1") return true;
  if (*text == "false" || *text == "False" || *text == "0" || text->empty()) return false;
  throw bad_field(name, "'" + *text + "' is not true or false");
}

ResponseFormat parse_format(const std::string* text) {
  if (!text || *text == "json") return ResponseFormat::kJson;
  if (*text == "text") return ResponseFormat::kText;
  if (*text == "srt") return ResponseFormat::kSrt;
  if (*text == "vtt") return ResponseFormat::kVtt;
  if (*text == "verbose_json") return ResponseFormat::kVerboseJson;
  throw bad_field("response_format", "'" + *text + "' is not one of json, text, srt, verbose_json, vtt");
}

// faster-whisper's VadOptions under the names speaches takes, over the batched pipeline's defaults.
VadParameters vad_fields(const FormFields& fields, const std::string& vad_model) {
  VadParameters p = batched_vad_parameters();
  p.model = vad_model;
  p.threshold = number_field(fields, "vad_threshold", p.threshold, 0.0, 1.0);
  if (field(fields, "vad_neg_threshold"))
    p.neg_threshold = number_field(fields, "vad_neg_threshold", 0.0, 0.0, p.threshold);
  constexpr double kHourMs = 3600000;
  p.min_speech_duration_ms = integer_field(fields, "vad_min_speech_duration_ms", p.min_speech_duration_ms, 0, kHourMs);
  p.max_speech_duration_s = number_field(fields, "vad_max_speech_duration_s", p.max_speech_duration_s, 1.0, 30.0);
  p.min_silence_duration_ms = integer_field(fields, "vad_min_silence_duration_ms", p.min_silence_duration_ms, 0, kHourMs);
  p.speech_pad_ms = integer_field(fields, "vad_speech_pad_ms", p.speech_pad_ms, 0, kHourMs);
  return p;
}

// OpenAI's chunking_strategy: "auto", or a server_vad object, sent as one JSON text or, as the openai
// client sends it in a form, as chunking_strategy[type], [threshold], [prefix_padding_ms] and
// [silence_duration_ms]. Its fields are those of a realtime session's turn detection, over the
// batched pipeline's VAD defaults. Unset: nullopt.
std::optional<VadParameters> chunking_strategy(const FormFields& fields, const std::string& vad_model) {
  static const std::string kName = "chunking_strategy";
  FormFields object;  // the server_vad object's fields, by their own names
  bool bracketed = false;
  for (const auto& [name, values] : fields) {
    if (!name.starts_with(kName + "[")) continue;
    const std::string key = name.substr(kName.size() + 1, name.size() - kName.size() - 2);
    if (name.back() != ']' || key.empty() || key.find_first_of("[]") != std::string::npos)
      throw bad_field(kName, "'" + shown(name) + "' is not a field of the form chunking_strategy[name]");
    object[key] = values;
    bracketed = true;
  }
  const std::string* text = field(fields, kName);
  if (text && bracketed) throw bad_field(kName, "send chunking_strategy as one value or as chunking_strategy[...] fields, not both");
  if (text) {
    if (text->find('\0') != std::string::npos) throw bad_field(kName, "the value holds a NUL byte");
    if (*text == "auto") {
      VadParameters p = batched_vad_parameters();
      p.model = vad_model;
      return p;
    }
    nlohmann::json parsed;
    try {
      parsed = parse_bounded_json(*text);
    } catch (const nlohmann::json::exception& e) {
      throw bad_field(kName, "'" + shown(*text) + "' is not \"auto\" or a server_vad object (" + shown(e.what()) + ")");
    }
    if (!parsed.is_object()) throw bad_field(kName, "'" + shown(*text) + "' is not \"auto\" or a server_vad object");
    for (const auto& [key, value] : parsed.items())
      object[key] = {value.is_string() ? value.get<std::string>() : value.dump()};
  }
  if (!text && !bracketed) return std::nullopt;
  for (const auto& [key, values] : object)
    if (key != "type" && key != "threshold" && key != "prefix_padding_ms" && key != "silence_duration_ms")
      throw bad_field(kName, "'" + shown(key) + "' is not a field of server_vad (type, threshold, prefix_padding_ms, silence_duration_ms)");
  const std::string* type = field(object, "type");
  if (!type || *type != "server_vad")
    throw bad_field(kName, "the object's type must be \"server_vad\", got " + (type ? "'" + shown(*type) + "'" : "none"));
  VadParameters p = batched_vad_parameters();
  p.model = vad_model;
  // The object's own checks, each message naming chunking_strategy.
  auto checked = [&](auto read) {
    try {
      return read();
    } catch (const HttpError& e) {
      throw bad_field(kName, e.what());
    }
  };
  p.threshold = checked([&] { return number_field(object, "threshold", p.threshold, 0.0, 1.0); });
  p.speech_pad_ms = checked([&] { return integer_field(object, "prefix_padding_ms", p.speech_pad_ms, 0, 10000); });
  p.min_silence_duration_ms =
      checked([&] { return integer_field(object, "silence_duration_ms", p.min_silence_duration_ms, 0, 30000); });
  return p;
}

}  // namespace

std::string form_model(const FormFields& fields) {
  const std::string* model = field(fields, "model");
  return model ? *model : "";
}

TranscriptionForm parse_transcription_form(const FormFields& fields, bool translate, bool multilingual,
                                           const std::string& vad_model) {
  TranscriptionForm form;
  form.model = form_model(fields);
  form.format = parse_format(field(fields, "response_format"));
  form.stream = bool_field(fields, "stream");
  if (form.stream && form.format != ResponseFormat::kJson && form.format != ResponseFormat::kText)
    throw bad_field("stream", "streaming answers json or text only, not the response_format asked for");

  TranscribeOptions& o = form.options;
  o.decoding.task = translate ? "translate" : "transcribe";
  if (const std::string* language = field(fields, "language"); language && !language->empty()) {
    const std::optional<std::string> code = to_language_code(*language);
    if (!code) throw bad_field("language", "'" + *language + "' is not a language Whisper knows (ISO-639-1 codes: en, de, ...)");
    if (!multilingual && *code != "en")
      throw bad_field("language", "this model is English-only; pick a multilingual model for '" + *language + "'");
    o.decoding.language = *code;
  }
  if (translate && !multilingual) throw HttpError(400, "this model is English-only and cannot translate; pick a multilingual model", "model", "invalid_value");
  if (const std::string* prompt = field(fields, "prompt"); prompt && !prompt->empty()) {
    if (!is_valid_utf8(*prompt)) throw bad_field("prompt", "the prompt is not valid UTF-8 text");
    o.initial_prompt = *prompt;
  }
  if (const std::string* hotwords = field(fields, "hotwords"); hotwords && !hotwords->empty()) {
    if (!is_valid_utf8(*hotwords)) throw bad_field("hotwords", "the hotwords are not valid UTF-8 text");
    o.hotwords = *hotwords;
  }
  // OpenAI's keywords (words or phrases to guide the transcription): faster-whisper's hotwords.
  std::string keywords;
  for (const char* name : {"keywords[]", "keywords"}) {
    const auto it = fields.find(name);
    if (it == fields.end()) continue;
    if (o.hotwords) throw bad_field(name, "keywords and hotwords both prompt every window: give one");
    for (const std::string& k : it->second) {
      if (!is_valid_utf8(k)) throw bad_field(name, "a keyword is not valid UTF-8 text");
      if (k.find_first_not_of(" \t\r\n") == std::string::npos) continue;
      keywords += (keywords.empty() ? "" : ", ") + k;
    }
  }
  if (!keywords.empty()) o.hotwords = keywords;

  // 0: openai's fallback schedule; t: t, t + 0.2, ... up to 1.
  const double temperature = number_field(fields, "temperature", 0.0, 0.0, 1.0);
  o.temperatures = fallback_temperatures(temperature, 0.2);

  // faster-whisper's beam_size: 1 is greedy decoding.
  const int beam_size = integer_field(fields, "beam_size", 5, 1, kMaxBeamSize);
  if (beam_size > 1) o.decoding.beam_size = beam_size;

  for (const char* name : {"timestamp_granularities[]", "timestamp_granularities"}) {
    const auto it = fields.find(name);
    if (it == fields.end()) continue;
    for (const std::string& g : it->second) {
      if (g == "word") o.word_timestamps = true;
      else if (g != "segment") throw bad_field(name, "'" + g + "' is not segment or word");
    }
  }
  if (bool_field(fields, "vad_filter")) o.vad = vad_fields(fields, vad_model);
  if (std::optional<VadParameters> chunks = chunking_strategy(fields, vad_model)) {
    if (o.vad) throw bad_field("chunking_strategy", "chunking_strategy and vad_filter both choose the speech: give one");
    o.vad = std::move(chunks);
  }
  return form;
}

}  // namespace auris::server
