// bf16 weights widened to fp32, exactly, for the products oneDNN's sgemm runs on them (a prompt's
// many rows).
#pragma once

#include <cstdint>

namespace auris {

void widen_bf16(const uint16_t* src, long n, float* dst);

}  // namespace auris
