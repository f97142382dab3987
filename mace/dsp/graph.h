// The DSP's graph executor: parses a serialized graph (graph_format.h),
// checks every op, plans the activation memory and runs the ops in order.
#ifndef MACE_DSP_GRAPH_H_
#define MACE_DSP_GRAPH_H_

#include <stdint.h>

#include "mace/dsp/allocator.h"
#include "mace/ops/hexagon/kernels.h"
#include "mace/dsp/text.h"

namespace mace {
namespace dsp {

class Graph {
 public:
  // Takes ownership of `blob` (from `heap`), which holds the serialized
  // graph; constants are used in place. False with the reason in `error`.
  bool Setup(Allocator* heap, uint8_t* blob, uint32_t size, Text* error);
  void Teardown();
  bool ready() const { return blob_ != nullptr; }

  uint32_t input_bytes() const;
  uint32_t output_bytes() const;
  // `inputs` holds the inputs concatenated in graph order, `outputs`
  // receives the outputs the same way; with `profile`, one OpProfile per
  // op after them.
  void Execute(const uint8_t* inputs, uint8_t* outputs, bool profile = false);
  void Print(Text* text) const;
  uint32_t num_ops() const { return num_ops_; }
  uint32_t arena_bytes() const { return arena_bytes_; }

 private:
  bool Parse(Text* error);
  bool PlanMemory(Text* error);
  OpArgs ArgsOf(uint32_t op) const;

  Allocator* heap_ = nullptr;
  uint8_t* blob_ = nullptr;
  uint32_t size_ = 0;
  uint32_t num_tensors_ = 0, num_ops_ = 0, num_inputs_ = 0, num_outputs_ = 0;
  DspTensor* tensors_ = nullptr;
  const uint32_t* input_ids_ = nullptr;
  const uint32_t* output_ids_ = nullptr;
  const uint32_t** op_words_ = nullptr;  // each op's record in the blob
  DspTensor** pointers_ = nullptr;       // per op: inputs then outputs
  uint32_t* pointer_starts_ = nullptr;
  uint8_t* arena_ = nullptr;
  uint32_t arena_bytes_ = 0;
  uint8_t* scratch_ = nullptr;
  uint32_t* prepared_starts_ = nullptr;  // per op, offsets in prepared_
  uint8_t* prepared_ = nullptr;
};

}  // namespace dsp
}  // namespace mace

#endif  // MACE_DSP_GRAPH_H_
