#include "output/json_writer.h"

#include <cstdio>

#include "output/json_float.h"
#include "output/unicode_text.h"
#include "output/word_timings.h"

namespace auris::output {

namespace {

void append_unicode_escape(std::string& out, unsigned value) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "\\u%04x", value);
  out += buffer;
}

// The dict keys and values are written in the order transcribe() inserts them.
class JsonOut {
 public:
  void key(const char* name) {
    out_ += first_ ? "" : ", ";
    out_ += '"';
    out_ += name;
    out_ += "\": ";
    first_ = false;
  }
  void open(char bracket) {
    out_ += bracket;
    first_ = true;
  }
  void close(char bracket) {
    out_ += bracket;
    first_ = false;
  }
  void item() {
    if (!first_) out_ += ", ";
    first_ = false;
  }
  std::string& raw() { return out_; }

 private:
  std::string out_;
  bool first_ = true;
};

void write_word(JsonOut& j, const Word& w) {
  j.open('{');
  j.key("word"), j.raw() += json_string(w.word);
  j.key("start"), j.raw() += json_float(w.start);
  j.key("end"), j.raw() += json_float(w.end);
  j.key("probability"), j.raw() += json_float(w.probability);
  j.close('}');
}

void write_segment(JsonOut& j, const Segment& s, bool with_words) {
  j.open('{');
  j.key("id"), j.raw() += std::to_string(s.id);
  j.key("seek"), j.raw() += std::to_string(s.seek);
  j.key("start"), j.raw() += json_float(s.start);
  j.key("end"), j.raw() += json_float(s.end);
  j.key("text"), j.raw() += json_string(s.text);
  j.key("tokens");
  j.open('[');
  for (int token : s.tokens) j.item(), j.raw() += std::to_string(token);
  j.close(']');
  j.key("temperature"), j.raw() += json_float(s.temperature);
  j.key("avg_logprob"), j.raw() += json_float(s.avg_logprob);
  j.key("compression_ratio"), j.raw() += json_float(s.compression_ratio);
  j.key("no_speech_prob"), j.raw() += json_float(s.no_speech_prob);
  if (with_words) {
    j.key("words");
    j.open('[');
    for (const Word& w : s.words) j.item(), write_word(j, w);
    j.close(']');
  }
  j.close('}');
}

}  // namespace

std::string json_string(std::string_view utf8) {
  std::string out = "\"";
  for (size_t pos = 0; pos < utf8.size();) {
    size_t length = 0;
    const char32_t c = decode_code_point(utf8, pos, &length);
    pos += length;
    switch (c) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      default: break;
    }
    if (c >= 0x20 && c <= 0x7E) {
      out += static_cast<char>(c);
    } else if (c < 0x10000) {
      append_unicode_escape(out, c);
    } else {  // a UTF-16 surrogate pair
      const unsigned v = c - 0x10000;
      append_unicode_escape(out, 0xD800 | (v >> 10));
      append_unicode_escape(out, 0xDC00 | (v & 0x3FF));
    }
  }
  return out + "\"";
}

std::string format_json(const Transcript& transcript) {
  const bool with_words = has_word_timings(transcript);
  JsonOut j;
  j.open('{');
  j.key("text"), j.raw() += json_string(transcript.text);
  j.key("segments");
  j.open('[');
  for (const Segment& s : transcript.segments) j.item(), write_segment(j, s, with_words);
  j.close(']');
  j.key("language"), j.raw() += json_string(transcript.language);
  j.close('}');
  return j.raw();
}

}  // namespace auris::output
