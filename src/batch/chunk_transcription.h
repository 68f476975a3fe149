// One chunk of a recording (at most 30 s, a batch item of faster-whisper's batched pipeline)
// transcribed on its own: openai's seek loop over the chunk alone, so a chunk whose last segment
// the first window leaves unfinished gets a second window for it, as the sequential loop would. No
// text from earlier chunks prompts it.
#pragma once

#include <limits>
#include <vector>

#include "auris/transcribe.h"
#include "model/model_dims.h"
#include "tokenizer/tokenizer.h"
#include "whisper/window_engine.h"

namespace auris {

struct AudioChunk {
  std::vector<float> samples;  // 16 kHz mono, at most 30 s
  double offset_s = 0.0;       // its start on the transcribed timeline (the speech alone, with VAD)
  // No window of the seek loop starts after this time in the chunk (a packed window: its last item's
  // start; see chunk_packing.h).
  double no_window_after_s = std::numeric_limits<double>::infinity();
};

// The options every chunk of a recording is transcribed with: the recording's language, and nothing
// that spans chunks (VAD, clips, callbacks).
TranscribeOptions chunk_options(const TranscribeOptions& options, const std::string& language);

// The chunk's segments, with their times (and their words') on the transcribed timeline. The
// chunk's samples are let go once its spectrogram is made: a batch of 16 slots would otherwise hold
// 16 chunks of audio (31 MB) through every decode.
std::vector<Segment> transcribe_chunk(WindowEngine& engine, const Tokenizer& tokenizer, const ModelDims& dims,
                                      const TranscribeOptions& options, AudioChunk chunk);

}  // namespace auris
