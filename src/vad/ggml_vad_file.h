// whisper.cpp's ggml file of Silero VAD (models/convert-silero-vad-to-ggml.py; users download it as
// ggml-silero-v6.2.0.bin): uint32 magic "ggml"; int32 length + model type ("silero-16k"); int32
// version major, minor, patch; int32 window size (512), context size (64), encoder layer count (4),
// then per layer its input channels, output channels and kernel size; the LSTM's input and hidden
// sizes; the final conv's input and output channels; then tensor records (ggml_format.h) to the end.
// The conv weights and the STFT basis are stored in f16, the rest in f32, the last bias as a scalar.
#pragma once

#include <map>
#include <string>

#include "model/tensor.h"

namespace auris {

struct GgmlVadFile {
  std::string model_type;             // "silero-16k"
  int version[3] = {0, 0, 0};         // the silero-vad package version it was converted from
  std::map<std::string, Tensor> tensors;  // whisper.cpp's names, fp32, every shape checked
};

// Reads and checks a whole file: the architecture must be Silero VAD v5/v6 at 16 kHz and every tensor
// present once with its shape. Throws auris::Error naming the path and what is wrong for a missing,
// truncated or corrupted file, or one of another model.
GgmlVadFile read_ggml_vad(const std::string& path);

}  // namespace auris
