// Loading a Whisper model: a CTranslate2 directory, a Hugging Face directory, a whisper.cpp ggml
// file, or the name of a model in the local cache ("tiny.en" -> ~/.cache/auris/models/tiny.en).
#pragma once

#include <memory>
#include <string>

namespace auris {

// The arithmetic the engine runs in, chosen at load (weights are converted and packed once):
//  - kFloat32:  fp32 everywhere; greedy tokens equal openai/whisper's. The CPU stores the decoder's
//               weights in fp16 where that is exact (fp16 checkpoints), which changes no product.
//  - kBfloat16: bf16 decoder weights and fp16 cross-attention cache; on the CPU the encoder's GEMMs
//               and self-attention run in bf16 where it has AVX-512 BF16 (else fp32); on CUDA, bf16
//               everywhere.
//  - kInt8:     CPU only: the encoder's and the cross K/V projection's GEMMs in int8, its attention in
//               fp32; decode steps stream int8 weights (per-row scales) times int16-rounded
//               activations, a quarter of fp32's bytes per token.
//  - kFloat16:  on the CPU: float32's arithmetic and weights (fp16 rows: exact for fp16 checkpoints,
//               rounded from fp32 ones), with the cross-attention cache in fp16: half of its bytes
//               per decode step. On CUDA: fp16 weights and activations, fp32 accumulation.
//  - kInt8Bfloat16: CPU only: kInt8, with the encoder's self-attention multiplied in bf16 where the
//               CPU has AVX-512 BF16, as kBfloat16's is (CTranslate2's int8_bfloat16); elsewhere
//               exactly kInt8. kInt8 keeps fp32 there, so its tokens are the same on every CPU.
enum class ComputeType { kFloat32, kBfloat16, kInt8, kFloat16, kInt8Bfloat16 };
// Whether the type stores int8 weights and runs int8 products (kInt8, kInt8Bfloat16).
inline bool has_int8_weights(ComputeType type) { return type == ComputeType::kInt8 || type == ComputeType::kInt8Bfloat16; }
// "float32", "bfloat16", "int8", "float16", "int8_bfloat16"; parse throws auris::Error naming the choices.
ComputeType parse_compute_type(const std::string& name);
std::string compute_type_name(ComputeType type);

// Where the model runs. kCuda needs a build with the CUDA toolkit and an NVIDIA GPU of compute
// capability 8.0 or newer; Model::load says which is missing.
enum class Device { kCpu, kCuda };
// "cpu", "cuda"; parse throws auris::Error naming the choices.
Device parse_device(const std::string& name);

struct ModelInfo {
  std::string path;
  std::string format;  // "ctranslate2", "huggingface", "ggml"
  int n_mels = 0;
  int n_vocab = 0;
  int n_audio_layer = 0;
  int n_text_layer = 0;
  int n_audio_state = 0;
  int n_text_state = 0;
  bool multilingual = false;
  ComputeType compute_type = ComputeType::kFloat32;
  Device device = Device::kCpu;
  // What one decode step must read from memory (the benchmark's bandwidth floor): the decoder's
  // weights and the vocabulary projection in their stored format, and the window's cross-attention
  // K/V cache.
  size_t decode_weight_bytes = 0;
  size_t cross_kv_cache_bytes = 0;
};

class Model {
 public:
  // Throws auris::Error when the model is missing or unreadable, with a hint how to get it.
  static std::shared_ptr<const Model> load(const std::string& path_or_name,
                                           ComputeType compute_type = ComputeType::kFloat32,
                                           Device device = Device::kCpu);
  ~Model();

  const ModelInfo& info() const;

 private:
  friend struct ModelAccess;  // the engine's view of the weights (src/api/model_impl.h)
  struct Impl;
  explicit Model(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The directory holding cached models: $AURIS_MODEL_DIR, else ~/.cache/auris/models.
std::string model_cache_dir();
// A path that exists is returned as is; otherwise the name is looked up in the cache.
// Throws auris::Error saying how to fetch the model when it is nowhere.
std::string resolve_model_path(const std::string& path_or_name);

}  // namespace auris
