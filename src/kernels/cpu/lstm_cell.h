// One step of an LSTM cell (PyTorch's nn.LSTM, gates in the order i, f, g, o), as Silero VAD steps
// it once per 32-ms window: a product of 4 x hidden by hidden and 5 x hidden sigmoids and tanhs, in
// vectors (one value at a time through the C library, they were most of a VAD pass).
#pragma once

namespace auris {

// gates: in, the input's pre-activations (x W_ih^T + b_ih + b_hh), 4 x hidden; overwritten.
// hidden_weights: W_hh transposed, [hidden x 4 hidden] (row j holds every gate's weight of h[j]).
// h and c: the state, hidden each, updated in place: c = f c + i g, h = o tanh(c).
void lstm_cell(float* gates, const float* hidden_weights, int hidden, float* h, float* c);

}  // namespace auris
