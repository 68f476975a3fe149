// A libFuzzer target over what a client sends `auris serve`, apart from the socket, run by
// scripts/fuzz.sh (and its seeds replayed by ctest through tests/fuzz/replay.cc). AURIS_FUZZ_FORMAT
// picks what the input is:
// - form: a transcription request's form fields, one "name=value" a line; the first byte's low bits
//   pick the /translations route and a multilingual model. The fields must parse into a request or
//   end in an HttpError of status 4xx whose OpenAI error body is JSON.
// - realtime-event: a realtime session's client event (JSON text). Its session object, when it has
//   one, goes through session.update as GA and as beta: each must apply or end in a
//   RealtimeEventError with a code and a message, and the session object sent back must be JSON.
// - realtime-audio: a session's audio. The first byte picks the format (16-bit PCM at one of seven
//   rates, G.711 mu-law or A-law), the second whether the rest is base64 text or raw bytes, and the
//   third where the rest is cut into chunks. Raw bytes must always decode; base64 may end in
//   auris::Error. Every sample must be finite and no more must come out than the rates allow.
// Anything else, a crash or a sanitizer report is a finding. With AURIS_FUZZ_SEEDS=DIR the program
// writes seeds to DIR/TARGET/ and exits.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "auris/error.h"
#include "fuzz/fuzz_support.h"
#include "server/http_error.h"
#include "server/realtime_audio.h"
#include "server/realtime_session_config.h"
#include "server/transcription_form.h"
#include "util/bounded_json.h"

namespace {

using auris::server::RealtimeAudioFormat;
using nlohmann::json;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "finding: %s\n", what.c_str());
  std::abort();
}

void fuzz_form(std::string_view input) {
  const unsigned flags = input.empty() ? 0 : static_cast<unsigned char>(input[0]);
  if (!input.empty()) input.remove_prefix(1);
  auris::server::FormFields fields;
  while (!input.empty()) {
    const size_t end = std::min(input.find('\n'), input.size());
    const std::string_view line = input.substr(0, end);
    const size_t equals = line.find('=');
    if (equals != std::string_view::npos) fields[std::string(line.substr(0, equals))].emplace_back(line.substr(equals + 1));
    input.remove_prefix(std::min(end + 1, input.size()));
  }
  try {
    auris::server::parse_transcription_form(fields, flags & 1, flags & 2, "vad.bin");
  } catch (const auris::server::HttpError& e) {
    if (e.status() < 400 || e.status() >= 500) finding("a form refused with status " + std::to_string(e.status()));
    if (!json::accept(auris::server::error_json(e))) finding("the error body is not JSON: " + std::string(e.what()));
  }
  // Anything else thrown escapes and is a finding.
}

void fuzz_realtime_event(std::string_view input) {
  json event;
  try {
    event = auris::parse_bounded_json(input);
  } catch (const json::exception&) {
    return;  // the session answers invalid_json
  }
  const json* session = event.is_object() ? auris::server::json_member(event, "session") : nullptr;
  if (!session || !session->is_object()) return;
  auris::server::RealtimeEnvironment env;
  env.find_model = [](const std::string& name) {
    if (!name.empty() && name != "whisper-1" && name != "tiny.en") throw auris::Error("the model '" + name + "' is not served here");
    return std::make_pair(std::string("tiny.en"), std::shared_ptr<const auris::Model>());
  };
  for (const bool beta : {false, true}) {
    auris::server::RealtimeConfig config;
    try {
      if (beta) auris::server::apply_beta_session(*session, env, config);
      else auris::server::apply_session(*session, env, config);
    } catch (const auris::server::RealtimeEventError& e) {
      if (e.code.empty() || e.message.empty()) finding("an error event without a code or message");
      continue;
    }
    config.beta = beta;
    const std::string sent = auris::server::session_json(config, "sess").dump(-1, ' ', false, json::error_handler_t::replace);
    if (!json::accept(sent)) finding("the session object sent back is not JSON");
  }
}

void fuzz_realtime_audio(std::string_view input) {
  if (input.size() < 3) return;
  static const int kRates[] = {8000, 11025, 16000, 22050, 24000, 44100, 48000};
  const auto selector = static_cast<unsigned char>(input[0]);
  const bool base64 = input[1] & 1;
  const size_t cut = static_cast<unsigned char>(input[2]) + 1;
  input.remove_prefix(3);
  RealtimeAudioFormat format;
  if (selector % 9 == 7) format = {RealtimeAudioFormat::Encoding::kMuLaw, 8000};
  else if (selector % 9 == 8) format = {RealtimeAudioFormat::Encoding::kALaw, 8000};
  else format = {RealtimeAudioFormat::Encoding::kPcm16, kRates[selector % 9]};
  auris::server::RealtimeAudioDecoder decoder(format);
  const double bytes_per_sample = format.encoding == RealtimeAudioFormat::Encoding::kPcm16 ? 2 : 1;
  double bytes_in = 0;
  size_t samples_out = 0;
  for (size_t at = 0; at < input.size(); at += cut) {
    const std::string_view chunk = input.substr(at, cut);
    std::vector<float> samples;
    if (base64) {
      try {
        samples = decoder.decode_base64(chunk);
      } catch (const auris::Error&) {
        continue;
      }
      bytes_in += chunk.size() * 3.0 / 4;
    } else {
      samples = decoder.decode(reinterpret_cast<const unsigned char*>(chunk.data()), chunk.size());
      bytes_in += chunk.size();
    }
    for (const float s : samples)
      if (!std::isfinite(s)) finding("a sample that is not finite");
    samples_out += samples.size();
    // The resampler's delay may hold samples back, never make more than the rates allow.
    if (samples_out > bytes_in / bytes_per_sample * 16000 / format.rate + 64)
      finding(std::to_string(samples_out) + " samples out of " + std::to_string(bytes_in) + " bytes at " +
              std::to_string(format.rate) + " Hz");
  }
}

void write_seeds(const std::string& root) {
  const auto write = [&](const std::string& target, const std::vector<std::string>& inputs) {
    std::filesystem::create_directories(root + "/" + target);
    for (size_t i = 0; i < inputs.size(); ++i)
      std::ofstream(root + "/" + target + "/" + std::to_string(i), std::ios::binary) << inputs[i];
  };
  write("form", {"\x02model=tiny.en\nresponse_format=verbose_json\ntimestamp_granularities[]=word\n"
                 "timestamp_granularities[]=segment\nlanguage=de\ntemperature=0.2\nbeam_size=1",
                 "\x03prompt=Glossary\nhotwords=Kubernetes\nkeywords[]=kubectl\nvad_filter=true\nvad_threshold=0.6\n"
                 "vad_min_silence_duration_ms=500\nstream=false",
                 "\x02" R"(chunking_strategy={"type": "server_vad", "threshold": 0.4, "silence_duration_ms": 700})",
                 "\x04" "chunking_strategy[type]=server_vad\nchunking_strategy[prefix_padding_ms]=300\nchunking_strategy=auto",
                 "\x04" "language=fr\nresponse_format=srt\ntemperature=1e400\nbeam_size=17"});
  write("realtime-event",
        {R"({"type": "session.update", "session": {"type": "transcription", "audio": {"input": {"format": {"type": "audio/pcm",
            "rate": 16000}, "transcription": {"model": "tiny.en", "language": "en", "prompt": "x", "beam_size": 1},
            "turn_detection": {"type": "server_vad", "threshold": 0.5, "prefix_padding_ms": 300, "silence_duration_ms": 500}}},
            "include": ["auris.tentative"]}})",
         R"({"type": "transcription_session.update", "session": {"input_audio_format": "g711_ulaw",
            "input_audio_transcription": {"model": "whisper-1", "language": null}, "turn_detection": null}})",
         R"({"type": "session.update", "session": {"audio": {"input": {"format": {"type": "audio/pcmu"}, "turn_detection": null}}}})",
         R"({"type": "input_audio_buffer.append", "audio": "AAAA", "event_id": "e1"})"});
  std::string pcm("\x04\x00\x3f", 3), text = "\x02\x01\x0f";
  for (int i = 0; i < 400; ++i) pcm += static_cast<char>(i * 37);
  text += "AAABAAIAAwAEAAUABgAHAAgACQAKAAsADAANAA4ADwAQABEAEgATABQAFQAWABcAGAAZABoAGwAcAB0AHgAfACAAIQ==";
  write("realtime-audio", {pcm, text, std::string("\x07\x00\x10", 3) + pcm.substr(3), std::string("\x08\x01\x05", 3) + text.substr(3)});
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return auris::fuzz::write_seeds_if_asked(write_seeds); }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string target = [] {
    const char* format = std::getenv("AURIS_FUZZ_FORMAT");
    return std::string(format ? format : "");
  }();
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (target == "form") fuzz_form(input);
  else if (target == "realtime-event") fuzz_realtime_event(input);
  else if (target == "realtime-audio") fuzz_realtime_audio(input);
  else finding("set AURIS_FUZZ_FORMAT to form, realtime-event or realtime-audio");
  return 0;
}
