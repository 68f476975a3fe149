// StreamingTranscriber (include/auris/stream.h): LocalAgreement-2 over a Transcriber, with the
// buffer's bookkeeping (cuts, the prompt of committed text) and, optionally, live VAD.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <deque>
#include <span>
#include <string>
#include <utility>

#include "api/model_impl.h"
#include "audio/finite_samples.h"
#include "auris/error.h"
#include "auris/stream.h"
#include "model/model_download.h"
#include "stream/committed_tokens.h"
#include "stream/local_agreement.h"
#include "stream/silent_gap.h"
#include "transcribe/silence_skipping.h"
#include "transcribe/vad_filter.h"
#include "vad/live_speech_detector.h"
#include "vad/silero_vad.h"

namespace auris {

namespace {

constexpr int kRate = 16000;
// whisper_streaming's prompt: the committed text before the buffer, up to this many characters.
constexpr size_t kPromptCharacters = 200;
// A segment the decoder thinks is this likely silence contributes no words (whisper_streaming's
// rule for faster-whisper).
constexpr double kNoSpeechSkip = 0.9;
// Under live VAD, a closed utterance stays in the buffer as the next one's context (Whisper hears a
// few seconds of speech alone worse), until this much silence follows it.
constexpr double kContextSilenceSeconds = 3.0;
// The buffer never grows past one Whisper window: past it, the oldest audio is cut at the last
// committed word, or dropped if nothing was committed in it (silence, or no agreement).
constexpr double kMaxBufferSeconds = 30.0;

double seconds(int64_t samples) { return static_cast<double>(samples) / kRate; }

// Whether a word has a letter or digit of any script (not only spaces and ASCII punctuation).
bool has_content(const std::string& word) {
  for (unsigned char c : word)
    if (c >= 0x80 || std::isalnum(c)) return true;
  return false;
}

}  // namespace

void validate(const StreamOptions& o) {
  if (!(o.step_seconds >= 0.1 && o.step_seconds <= 30.0))
    throw Error("the stream's step must be 0.1 to 30 s, got " + std::to_string(o.step_seconds));
  if (!(o.trim_seconds >= 1.0 && o.trim_seconds <= 25.0))
    throw Error("the stream's buffer trimming length must be 1 to 25 s, got " + std::to_string(o.trim_seconds));
  const TranscribeOptions& t = o.transcribe;
  if (!t.clip_timestamps.empty()) throw Error("a stream has no clip_timestamps: it transcribes the audio as it comes");
  if (t.vad)
    throw Error("a stream's voice activity detection is StreamOptions::vad, not TranscribeOptions::vad");
  if (t.on_segment || t.on_progress) throw Error("a stream reports through update(), not through callbacks");
  if (t.initial_prompt && !std::holds_alternative<std::string>(*t.initial_prompt))
    throw Error("a stream's initial prompt is text, which its committed text then replaces; token ids are not taken");
  if (o.vad) validate(*o.vad);
}

struct StreamingTranscriber::State {
  State(std::shared_ptr<const Model> model, StreamOptions o)
      : options(std::move(o)), tokenizer(model_impl(*model).tokenizer), transcriber(model) {
    options.transcribe.word_timestamps = true;
    // The buffer's newest speech, which Whisper would leave for one more window: in this one.
    options.transcribe.transcribe_to_the_end = true;
    if (options.vad) {
      vad = std::make_unique<SileroVad>(resolve_vad_model_path(options.vad->model, model_cache_dir()));
      detector = std::make_unique<LiveSpeechDetector>(*vad, *options.vad);
    }
  }

  StreamOptions options;
  const Tokenizer& tokenizer;  // the model's, which the transcriber keeps alive
  Transcriber transcriber;
  LocalAgreement agreement;
  std::vector<float> buffer;    // the audio decoded at each step
  int64_t buffer_start = 0;     // its first sample, in samples since the stream began
  std::vector<int> committed_tokens;  // the last decode's tokens through the committed words: the next one's forced tokens
  // The last decode: its segments, each hypothesis word's segment and index in it, and where its buffer started.
  std::vector<Segment> last_segments;
  std::vector<std::pair<size_t, size_t>> last_origins;
  int64_t last_decoded_from = -1;
  int64_t new_samples = 0;      // speech added since the last decode
  int64_t received = 0;
  std::deque<Word> committed;   // the latest committed words, for the prompt
  std::string initial_prompt;   // the caller's, until committed text replaces it

  // Live VAD.
  std::unique_ptr<SileroVad> vad;
  std::unique_ptr<LiveSpeechDetector> detector;
  std::vector<float> pending;    // samples not yet in a whole VAD window
  std::deque<float> preroll;     // the latest samples outside speech, for the padding before a start
  std::optional<int64_t> utterance_end;  // the VAD closed the utterance here
  std::optional<int64_t> speech_start;   // the VAD heard speech begin here; not yet reported
  std::vector<float> held;       // audio after that end, until the utterance is closed
  int64_t held_start = 0;
  int64_t held_speech = 0;       // samples of speech in it
  int64_t context_silence = 0;   // silence after the closed utterance kept in the buffer as context
  std::optional<double> context_end;     // that utterance's last committed word ends here (stream s)
  std::optional<double> speech_resumed;  // the VAD heard speech again after it here
  std::optional<double> held_resume;     // the same, heard before update() closed the utterance
  size_t forcible_words = 0;  // words of the last hypothesis before any erased in a silent gap

  StreamStats stats;

  // Speech counts towards the next decode; silence (live VAD's, after a closed utterance) does not.
  void append(std::span<const float> samples, int64_t first_sample, bool speech = true) {
    const auto n = static_cast<int64_t>(samples.size());
    if (utterance_end) {  // audio after the end before update() closed the utterance: held for after it
      if (held.empty()) held_start = first_sample;
      held.insert(held.end(), samples.begin(), samples.end());
      if (speech) held_speech += n;
      return;
    }
    if (buffer.empty()) buffer_start = first_sample;
    buffer.insert(buffer.end(), samples.begin(), samples.end());
    if (speech) new_samples += n;
  }

  // Empties the buffer: what follows starts afresh, prompted with the committed text only.
  void drop_buffer() {
    buffer_start += static_cast<int64_t>(buffer.size());
    buffer.clear();
    committed_tokens.clear();
    new_samples = 0;
    context_silence = 0;
    context_end.reset();
    speech_resumed.reset();
    agreement = LocalAgreement();
  }

  // The next decode of this buffer takes its committed words as the last decode spelled them.
  void force_committed_words() {
    committed_tokens.clear();
    const size_t n = std::min(agreement.committed_words_in_last(), forcible_words);
    if (n == 0 || n > last_origins.size() || buffer_start != last_decoded_from) return;
    const auto [segment, word] = last_origins[n - 1];
    committed_tokens = tokens_through_word(last_segments, segment, word, tokenizer);
  }

  // The committed text before the buffer, up to kPromptCharacters, else the caller's prompt.
  std::optional<std::string> prompt() const {
    const double start = seconds(buffer_start);
    std::string text;
    for (auto w = committed.rbegin(); w != committed.rend(); ++w) {
      if (w->end > start) continue;
      if (text.size() + w->word.size() > kPromptCharacters) break;
      text = w->word + text;
    }
    if (text.empty()) return initial_prompt.empty() ? std::nullopt : std::optional<std::string>(initial_prompt);
    return text;
  }

  void remember(const std::vector<Word>& words) {
    for (const Word& w : words) committed.push_back(w);
    while (committed.size() > kPromptCharacters) committed.pop_front();  // a word has at least one character
  }

  // Cuts the buffer at `time` (stream seconds); words ending before it are out of the buffer.
  void cut_at(double time) {
    const int64_t cut = std::clamp<int64_t>(std::llround(time * kRate) - buffer_start, 0, static_cast<int64_t>(buffer.size()));
    buffer.erase(buffer.begin(), buffer.begin() + cut);
    buffer_start += cut;
    if (cut > 0) committed_tokens.clear();  // their times were the old buffer's
    agreement.forget_committed_before(seconds(buffer_start));
  }

  // Decodes the buffer and lets LocalAgreement commit what this decode and the last agree on.
  StreamUpdate decode() {
    StreamUpdate update;
    if (buffer.empty()) return update;
    TranscribeOptions o = options.transcribe;
    o.initial_prompt = prompt();
    o.decoding.forced_tokens = std::move(committed_tokens);
    committed_tokens.clear();
    stats.forced_tokens += static_cast<long long>(o.decoding.forced_tokens.size());
    const auto start = std::chrono::steady_clock::now();
    const Transcript transcript = transcriber.transcribe(buffer, kRate, o);
    stats.compute_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stats.decoded_seconds += seconds(static_cast<int64_t>(buffer.size()));
    ++stats.decodes;
    new_samples = 0;
    // A language detected on speech holds for the rest of the stream, so that later decodes,
    // however short their buffer, do not switch it.
    if (!options.transcribe.decoding.language && !transcript.segments.empty() && length() >= 2.0)
      options.transcribe.decoding.language = transcript.language;

    const double offset = seconds(buffer_start);
    std::vector<Word> hypothesis;
    std::vector<std::pair<size_t, size_t>> origins;  // each hypothesis word's segment and index in it
    std::vector<double> segment_ends;
    const std::optional<double>& repetition_limit = options.transcribe.compression_ratio_threshold;
    // Trailing segments of improbable, instant words (openai's is_segment_anomaly, as
    // hallucination_silence_threshold uses it) give no words: with live VAD, the "Thank you." Whisper
    // makes up of the silence that closes an utterance; without it, speech after a long silence in
    // the buffer placed inside that silence, which a later decode times again (and would commit
    // twice). Speech cut off at the buffer's end returns in the next decode, whole.
    const size_t kept = count_before_anomalous_tail(transcript.segments);
    for (size_t i = 0; i < kept; ++i) {
      const Segment& s = transcript.segments[i];
      // Likely silence, or a loop of repeated text that even the last temperature gave (noise
      // decodes as ". . . ."): no words.
      if (s.no_speech_prob > kNoSpeechSkip || (repetition_limit && s.compression_ratio > *repetition_limit)) continue;
      for (size_t j = 0; j < s.words.size(); ++j) {
        Word w = s.words[j];
        if (!has_content(w.word)) continue;  // a lone mark, as noise gives
        w.start += offset;
        w.end += offset;
        hypothesis.push_back(std::move(w));
        origins.emplace_back(i, j);
      }
      segment_ends.push_back(s.end + offset);
    }
    // The same within the last segment: the prompt repeated after the words that were said, once
    // the buffer ends in silence. A close would commit it unagreed.
    const size_t said = count_before_anomalous_words(hypothesis);
    hypothesis.resize(said);
    origins.resize(said);
    // Words in the silence between a closed utterance kept as context and the speech after it: the
    // VAD heard nothing there. The next decode is forced to say again only the words before them.
    forcible_words = hypothesis.size();
    if (context_end && speech_resumed && *speech_resumed > *context_end) {
      const SilentGap gap{*context_end, *speech_resumed};
      size_t kept = 0;
      for (size_t k = 0; k < hypothesis.size(); ++k) {
        if (gap.holds(hypothesis[k])) {
          forcible_words = std::min(forcible_words, kept);
          continue;
        }
        if (kept != k) {
          hypothesis[kept] = std::move(hypothesis[k]);
          origins[kept] = origins[k];
        }
        ++kept;
      }
      hypothesis.resize(kept);
      origins.resize(kept);
    }
    update.committed = agreement.insert(hypothesis);
    last_segments = transcript.segments;
    last_origins = std::move(origins);
    last_decoded_from = buffer_start;
    trim(segment_ends, update.committed);
    force_committed_words();
    remember(update.committed);
    update.tentative = agreement.tentative();
    return update;
  }

  // whisper_streaming's "segment" trimming: past trim_seconds, cut at the end of the last segment
  // but one that is committed. Past a whole window (no agreement for that long), the tentative
  // words are committed as they are and the buffer is cut after them; audio that gave no words
  // at all is dropped.
  void trim(std::vector<double> segment_ends, std::vector<Word>& committed_now) {
    const double committed_end = agreement.last_committed_end();
    if (length() > options.trim_seconds && committed_end > seconds(buffer_start) && segment_ends.size() > 1) {
      double end = segment_ends[segment_ends.size() - 2];
      while (segment_ends.size() > 2 && end > committed_end) {
        segment_ends.pop_back();
        end = segment_ends[segment_ends.size() - 2];
      }
      if (end <= committed_end) cut_at(end);
    }
    const double limit = kMaxBufferSeconds - options.step_seconds;
    if (length() > limit) {
      const std::vector<Word> forced = agreement.commit_tentative();
      committed_now.insert(committed_now.end(), forced.begin(), forced.end());
      if (agreement.last_committed_end() > seconds(buffer_start)) cut_at(agreement.last_committed_end());
      if (length() > limit) cut_at(seconds(buffer_start) + length() - options.trim_seconds);
    }
  }

  double length() const { return seconds(static_cast<int64_t>(buffer.size())); }

  // Ends the utterance (or the input): decodes what is new and commits every word left. The input's
  // end empties the buffer; an utterance the VAD closed stays in it as the next one's context.
  StreamUpdate close() {
    StreamUpdate update;
    if (new_samples > 0) update = decode();
    std::vector<Word> rest = agreement.commit_tentative();
    bool keep_context = utterance_end.has_value();
    if (utterance_end) {
      // The VAD's end keeps speech_pad_ms of silence after the speech; a word the last decode
      // starts in it is one Whisper made up of silence ("Thank you."), not one that was said. The
      // agreement counts it committed, so the buffer cannot be decoded again after it.
      const double speech_end =
          seconds(*utterance_end - static_cast<int64_t>(options.vad->speech_pad_ms) * kRate / 1000 + SileroVad::kWindow);
      keep_context = std::erase_if(rest, [&](const Word& w) { return w.start >= speech_end; }) == 0;
    }
    update.committed.insert(update.committed.end(), rest.begin(), rest.end());
    remember(rest);
    update.tentative.clear();
    update.utterance_ended = true;
    if (keep_context) {
      force_committed_words();
      new_samples = 0;
      context_end = agreement.last_committed_end();
      speech_resumed = held_resume;
    } else {
      drop_buffer();
    }
    held_resume.reset();
    utterance_end.reset();
    if (!held.empty()) {
      const int64_t speech = std::exchange(held_speech, 0);
      append(held, held_start, false);
      new_samples += speech;
      held.clear();
    }
    return update;
  }

  // Live VAD over the samples: speech goes into the buffer; silence into the preroll, and into the
  // buffer while it holds a closed utterance as context.
  void listen(std::span<const float> samples) {
    pending.insert(pending.end(), samples.begin(), samples.end());
    const size_t preroll_limit = static_cast<size_t>(options.vad->speech_pad_ms) * kRate / 1000 + SileroVad::kWindow;
    size_t used = 0;
    for (; used + SileroVad::kWindow <= pending.size(); used += SileroVad::kWindow) {
      const std::span<const float> window(pending.data() + used, SileroVad::kWindow);
      const int64_t window_start = detector->samples();
      const bool was_speech = detector->in_speech();
      const std::optional<LiveSpeechDetector::Event> event = detector->push_window(window);
      const bool context = !buffer.empty() || utterance_end;  // the audio before this window is buffered
      if (event && event->start) {
        const int64_t preroll_start = window_start - static_cast<int64_t>(preroll.size());
        const int64_t from = std::max(event->sample, preroll_start);
        if (!context) {  // the padding before the start comes from the preroll
          std::vector<float> before(preroll.begin() + (from - preroll_start), preroll.end());
          if (!before.empty()) append(before, from);
        }
        append(window, window_start);
        preroll.clear();
        context_silence = 0;
        // Several utterances may end and start in one push while a decode runs: the first start
        // after the closing one is where its silence ends.
        if (utterance_end && !held_resume) held_resume = seconds(from);
        else if (!utterance_end && context) speech_resumed = seconds(from);
        if (!speech_start) speech_start = from;
      } else if (was_speech) {
        append(window, window_start);
        if (event) utterance_end = event->sample;
      } else {
        preroll.insert(preroll.end(), window.begin(), window.end());
        while (preroll.size() > preroll_limit) preroll.pop_front();
        if (context) {
          append(window, window_start, false);
          context_silence += SileroVad::kWindow;
          if (!utterance_end && seconds(context_silence) > kContextSilenceSeconds) drop_buffer();
        }
      }
    }
    pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(used));
  }
};

StreamingTranscriber::StreamingTranscriber(std::shared_ptr<const Model> model, StreamOptions options) {
  validate(options);
  state_ = std::make_unique<State>(std::move(model), std::move(options));
  if (const auto& prompt = state_->options.transcribe.initial_prompt) state_->initial_prompt = std::get<std::string>(*prompt);
}

StreamingTranscriber::~StreamingTranscriber() = default;

void StreamingTranscriber::push(std::span<const float> samples) {
  State& s = *state_;
  require_finite_samples(samples, "the stream's audio");
  const int64_t first = s.received;
  s.received += static_cast<int64_t>(samples.size());
  if (s.detector)
    s.listen(samples);
  else
    s.append(samples, first);
}

bool StreamingTranscriber::ready() const {
  const State& s = *state_;
  return s.utterance_end.has_value() || s.speech_start.has_value() || seconds(s.new_samples) >= s.options.step_seconds;
}

bool StreamingTranscriber::utterance_closed() const { return state_->utterance_end.has_value(); }

void StreamingTranscriber::push_and_update(std::span<const float> samples,
                                           const std::function<void(StreamUpdate)>& on_update) {
  constexpr size_t kPiece = kRate / 10;
  for (size_t at = 0; at < samples.size(); at += kPiece) {
    push(samples.subspan(at, std::min(kPiece, samples.size() - at)));
    if (utterance_closed()) on_update(update());
  }
  if (ready()) on_update(update());
}

StreamUpdate StreamingTranscriber::update() {
  State& s = *state_;
  // A start after the end of the utterance being closed is the next utterance's: the next update's.
  std::optional<double> started;
  if (s.speech_start && (!s.utterance_end || *s.speech_start < *s.utterance_end))
    started = seconds(*std::exchange(s.speech_start, std::nullopt));
  StreamUpdate update;
  if (s.utterance_end) update = s.close();
  else if (seconds(s.new_samples) >= s.options.step_seconds) update = s.decode();
  update.speech_started = started;
  return update;
}

StreamUpdate StreamingTranscriber::finish() {
  State& s = *state_;
  StreamUpdate update = {};
  // What is left, reported as one update: a start first, every word, then the end.
  std::optional<double> started;
  if (s.speech_start) started = seconds(*std::exchange(s.speech_start, std::nullopt));
  if (s.utterance_end) update = s.close();  // the one the VAD closed, then the speech after it
  if (s.detector && s.detector->in_speech() && !s.pending.empty()) s.append(s.pending, s.detector->samples());
  s.pending.clear();
  StreamUpdate last = s.close();
  update.committed.insert(update.committed.end(), last.committed.begin(), last.committed.end());
  update.tentative.clear();
  update.utterance_ended = true;
  update.speech_started = started;
  return update;
}

StreamStats StreamingTranscriber::stats() const {
  StreamStats stats = state_->stats;
  stats.received_seconds = seconds(state_->received);
  stats.buffered_seconds = state_->length();
  return stats;
}

void StreamingTranscriber::set_threads(int threads) { state_->transcriber.set_threads(threads); }

}  // namespace auris
