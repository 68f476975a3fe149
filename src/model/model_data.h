// Everything a loader produces: dimensions, canonical fp32 weights and the BPE vocabulary
// (token id -> raw bytes for the regular, non-special tokens). The engine is built from this.
#pragma once

#include <string>
#include <vector>

#include "model/model_dims.h"
#include "model/weights.h"

namespace auris {

struct ModelData {
  ModelDims dims;
  WeightMap weights;
  std::vector<std::string> vocab;  // raw bytes of regular token i (ranks 0..n-1); specials excluded

  bool operator==(const ModelData&) const = default;
};

}  // namespace auris
