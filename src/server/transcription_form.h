// The fields of a POST /v1/audio/transcriptions or /translations request (OpenAI's, chunking_strategy
// and keywords[] among them, plus the VAD and beam fields whisper.cpp's server and speaches take)
// turned into transcription options, every value checked with a message that names the field.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "auris/transcribe.h"

namespace auris::server {

enum class ResponseFormat { kJson, kText, kSrt, kVtt, kVerboseJson };

// The form's text fields by name; a field sent several times (timestamp_granularities[]) keeps
// every value, in order.
using FormFields = std::map<std::string, std::vector<std::string>>;

struct TranscriptionForm {
  std::string model;  // as sent; empty: the default model
  ResponseFormat format = ResponseFormat::kJson;
  bool stream = false;
  TranscribeOptions options;
};

// translate: the /translations route (task translate; OpenAI takes no language there).
// multilingual: the chosen model's, to refuse a language an English-only model cannot transcribe.
// Throws HttpError 400 naming the field for a bad or unknown value.
// vad_model: the server's VAD model, for requests with vad_filter or a chunking_strategy.
TranscriptionForm parse_transcription_form(const FormFields& fields, bool translate, bool multilingual,
                                           const std::string& vad_model);

// The model field alone (a request is routed to its model before the rest is checked).
std::string form_model(const FormFields& fields);

}  // namespace auris::server
