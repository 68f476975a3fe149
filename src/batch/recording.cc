#include "batch/recording.h"

#include <algorithm>

#include "audio/mel.h"
#include "audio/mel_source.h"
#include "auris/error.h"
#include "decoding/detect_language.h"
#include "transcribe/seek_loop.h"
#include "transcribe/speech_only_audio.h"
#include "transcribe/vad_filter.h"
#include "vad/silero_vad.h"

namespace auris {
namespace {

double seconds(int64_t samples) { return static_cast<double>(samples) / kSampleRate; }

}  // namespace

void check_batch_options(const TranscribeOptions& options, const ModelDims* dims) {
  check_transcribe_options(options);
  if (options.word_timestamps && dims && dims->alignment_heads.empty())
    throw Error("this model has no alignment heads, so word timestamps cannot be computed; transcribe without them");
  if (options.vad) validate(*options.vad);
}

AudioChunk Recording::chunk(size_t c) {
  {
    std::lock_guard lock(*taken_early_mutex);
    if (const auto early = taken_early.find(c); early != taken_early.end()) {
      AudioChunk a{std::move(early->second), offsets[c]};
      taken_early.erase(early);
      return a;
    }
  }
  return {reader->take(c), offsets[c]};
}

Recording measure_recording(std::unique_ptr<SampleSource> source, const TranscribeOptions& options,
                            const SileroVad* vad, const SpeechDetection* known_speech) {
  Recording r;
  std::vector<int64_t> sizes;
  if (options.vad) {
    if (!vad && !known_speech) throw Error("voice activity detection was asked for without a VAD model");
    SpeechTimestampsOptions vad_options = speech_timestamps_options(*options.vad);
    vad_options.max_speech_duration_s = std::min<double>(vad_options.max_speech_duration_s, kChunkSeconds);
    const SpeechDetection speech = known_speech ? *known_speech : detect_speech(*vad, *source->open(), vad_options);
    require_a_frame(source->name(), speech.num_samples);
    r.duration = seconds(speech.num_samples);
    r.speech = speech.spans;
    for (const SpeechGroup& group : group_speech(r.speech, kChunkSeconds)) {
      sizes.push_back(group.num_samples);
      r.offsets.push_back(group.offset_s());
      r.duration_after_vad += group.duration_s();
    }
    source = std::make_unique<SpeechOnlyAudio>(std::move(source), r.speech);
  } else {
    const std::unique_ptr<SamplePass> pass = source->open();
    std::vector<float> block;
    int64_t n = 0;
    bool silent = true;  // digital silence: nothing to transcribe, where Whisper would hallucinate
    while (true) {
      block.clear();
      if (pass->read(block, 1 << 16) == 0) break;
      n += static_cast<int64_t>(block.size());
      silent = silent && std::all_of(block.begin(), block.end(), [](float x) { return x == 0.0f; });
    }
    require_a_frame(source->name(), n);
    r.duration = seconds(n);
    if (!silent) {
      r.duration_after_vad = r.duration;
      for (int64_t start = 0; start < n; start += kChunkSamples) {
        sizes.push_back(std::min<int64_t>(kChunkSamples, n - start));
        r.offsets.push_back(seconds(start));
      }
    }
  }
  r.reader = std::make_unique<ChunkReader>(std::move(source), std::move(sizes));
  return r;
}

void detect_recording_language(WindowEngine& engine, const Tokenizer& tokenizer, int n_mels,
                               const TranscribeOptions& options, Recording& r) {
  const int chunks = static_cast<int>(std::min<size_t>(r.chunks(), static_cast<size_t>(options.language_detection_segments)));
  const LanguageDetection detection =
      detect_language(engine, tokenizer, chunks, options.language_detection_threshold, [&](int i) {
        const size_t c = static_cast<size_t>(i);
        if (!r.taken_early.contains(c)) r.taken_early[c] = r.reader->take(c);
        InMemoryMel mel(r.taken_early[c], n_mels);
        engine.set_window(mel.window(0, kChunkFrames));  // openai detects over a whole padded window
      });
  r.language = detection.code;
  r.language_probability = detection.probability;
}

void restore_chunk_times(const Recording& r, std::vector<Segment>& segments) {
  if (r.speech.empty()) return;
  const SpeechTimeMap map(r.speech);
  for (Segment& s : segments) restore_speech_timestamps(s, map);
}

Transcript assemble_transcript(Recording& r, const TranscribeOptions& options) {
  Transcript t;
  t.language = r.language;
  t.language_probability = r.language_probability;
  t.word_timestamps = options.word_timestamps;
  t.duration = r.duration;
  t.duration_after_vad = r.duration_after_vad;
  for (std::vector<Segment>& chunk : r.results)
    for (Segment& s : chunk) {
      s.id = static_cast<int>(t.segments.size());
      t.text += s.text;
      t.segments.push_back(std::move(s));
    }
  r = Recording();  // its reader (an open file) and results are done with
  return t;
}

}  // namespace auris
