#include "vad/ggml_vad_file.h"

#include <utility>
#include <vector>

#include "auris/error.h"
#include "model/ggml_format.h"
#include "util/mapped_file.h"

namespace auris {
namespace {

constexpr const char* kModelType = "silero-16k";
constexpr const char* kFix = ": download a Silero VAD ggml file again with `auris download silero-vad`";

struct ExpectedTensor {
  std::string name;
  std::vector<int64_t> shape;
};

// The Silero VAD v5/v6 16 kHz network as the header describes it and the tensors must match.
struct Architecture {
  int window = 512, context = 64;
  int encoder[4][3] = {{129, 128, 3}, {128, 64, 3}, {64, 64, 3}, {64, 128, 3}};  // in, out, kernel
  int lstm_input = 128, lstm_hidden = 128;
  int final_in = 128, final_out = 1;

  std::vector<ExpectedTensor> tensors() const {
    std::vector<ExpectedTensor> t;
    for (int i = 0; i < 4; ++i) {
      const std::string layer = "_model.encoder." + std::to_string(i) + ".reparam_conv.";
      t.push_back({layer + "weight", {encoder[i][1], encoder[i][0], encoder[i][2]}});
      t.push_back({layer + "bias", {encoder[i][1]}});
    }
    t.push_back({"_model.decoder.rnn.weight_ih", {4 * lstm_hidden, lstm_input}});
    t.push_back({"_model.decoder.rnn.weight_hh", {4 * lstm_hidden, lstm_hidden}});
    t.push_back({"_model.decoder.rnn.bias_ih", {4 * lstm_hidden}});
    t.push_back({"_model.decoder.rnn.bias_hh", {4 * lstm_hidden}});
    t.push_back({"_model.decoder.decoder.2.weight", {final_in}});  // [1, 128, 1] squeezed
    t.push_back({"_model.decoder.decoder.2.bias", {}});            // a scalar
    // The STFT as a strided conv: 129 real then 129 imaginary filters of n_fft = 256 taps.
    t.push_back({"_model.stft.forward_basis_buffer", {258, 1, 256}});
    return t;
  }
};

class HeaderReader {
 public:
  HeaderReader(ByteReader& in, const std::string& path) : in_(in), path_(path) {}

  // An int32 the architecture fixes; anything else is another model or a corrupted file.
  void expect(const char* field, int expected) {
    const int32_t v = in_.read<int32_t>();
    if (v != expected)
      throw Error("ggml VAD file '" + path_ + "' has " + field + " = " + std::to_string(v) + ", expected " +
                  std::to_string(expected) + ": auris runs Silero VAD v5/v6 16 kHz models (whisper.cpp's " +
                  "ggml-silero-v*.bin); the file is of another model or corrupted" + kFix);
  }

  int32_t read_version_part() {
    const int32_t v = in_.read<int32_t>();
    if (v < 0 || v > 1000)
      throw Error("ggml VAD file '" + path_ + "' has a version part of " + std::to_string(v) + ": the file is corrupted" + kFix);
    return v;
  }

 private:
  ByteReader& in_;
  const std::string& path_;
};

std::string layer_field(int layer, const char* what) {
  return "encoder layer " + std::to_string(layer) + " " + what;
}

GgmlVadFile parse(const std::string& path) {
  const MappedFile mapped(path);
  ByteReader in(mapped.bytes(), "ggml VAD file '" + path + "'");
  read_ggml_magic(in, path);

  GgmlVadFile out;
  const int32_t type_length = in.read<int32_t>();
  if (type_length < 1 || type_length > 64)
    throw Error("ggml VAD file '" + path + "' has a model type of " + std::to_string(type_length) +
                " bytes: it is not a whisper.cpp VAD model (a Whisper ggml model goes to --model, not the VAD)" + kFix);
  out.model_type = in.read_string(static_cast<uint64_t>(type_length));
  if (out.model_type != kModelType)
    throw Error("ggml VAD file '" + path + "' holds a '" + out.model_type + "' model; auris runs '" + kModelType +
                "' (Silero VAD v5/v6 at 16 kHz)" + kFix);

  HeaderReader header(in, path);
  for (int& part : out.version) part = header.read_version_part();
  if (out.version[0] < 5 || out.version[0] > 6)
    throw Error("ggml VAD file '" + path + "' is Silero VAD v" + std::to_string(out.version[0]) + "." +
                std::to_string(out.version[1]) + "." + std::to_string(out.version[2]) +
                "; auris runs the v5/v6 network" + kFix);
  const Architecture arch;
  header.expect("window size", arch.window);
  header.expect("context size", arch.context);
  header.expect("encoder layer count", 4);
  for (int i = 0; i < 4; ++i) {
    header.expect(layer_field(i, "input channels").c_str(), arch.encoder[i][0]);
    header.expect(layer_field(i, "output channels").c_str(), arch.encoder[i][1]);
    header.expect(layer_field(i, "kernel size").c_str(), arch.encoder[i][2]);
  }
  header.expect("LSTM input size", arch.lstm_input);
  header.expect("LSTM hidden size", arch.lstm_hidden);
  header.expect("final conv input channels", arch.final_in);
  header.expect("final conv output channels", arch.final_out);

  std::map<std::string, std::vector<int64_t>> expected;
  for (ExpectedTensor& t : arch.tensors()) expected.emplace(std::move(t.name), std::move(t.shape));
  while (!in.at_end()) {
    const GgmlTensorRecord record = read_ggml_tensor(in, path);
    const auto it = expected.find(record.name);
    if (it == expected.end())
      throw Error("ggml VAD file '" + path + "' holds an unexpected tensor '" + record.name + "': it is not a Silero VAD v5/v6 16 kHz model" + kFix);
    if (record.shape != it->second)
      throw Error("ggml VAD file '" + path + "' tensor '" + record.name + "' has shape " + shape_string(record.shape) +
                  ", expected " + shape_string(it->second) + ": the file is corrupted or of another model" + kFix);
    if (out.tensors.count(record.name))
      throw Error("ggml VAD file '" + path + "' holds tensor '" + record.name + "' twice: the file is corrupted" + kFix);
    Tensor t(record.shape);
    ggml_tensor_values(record, t.data.data());
    out.tensors.emplace(record.name, std::move(t));
  }
  for (const auto& [name, shape] : expected)
    if (!out.tensors.count(name))
      throw Error("ggml VAD file '" + path + "' lacks tensor '" + name + "': the file is truncated or incomplete" + kFix);
  return out;
}

}  // namespace

GgmlVadFile read_ggml_vad(const std::string& path) {
  try {
    return parse(path);
  } catch (const Error& e) {
    // The ggml format's own checks (a truncated record, a bad magic) say what is wrong, not what to do.
    const std::string what = e.what();
    if (what.find("auris download") != std::string::npos) throw;
    throw Error(what + kFix);
  }
}

}  // namespace auris
