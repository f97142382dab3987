// Self tests the host runs on the DSP through the channel: the compiler's
// arithmetic helpers on host-chosen operands, and the allocator.
#ifndef MACE_DSP_SELF_TEST_H_
#define MACE_DSP_SELF_TEST_H_

#include <stdint.h>

#include "mace/dsp/allocator.h"
#include "mace/dsp/text.h"

namespace mace {
namespace dsp {

// Returns a ReplyStatus; on success *reply (from `heap`, freed by the
// caller) holds the result, else `error` says why.
uint32_t RunSelfTest(uint32_t which, Allocator* heap, const uint8_t* payload, uint32_t size,
                     uint8_t** reply, uint32_t* reply_size, Text* error);

// Exercises a fresh allocator over [memory, memory + size): patterns of
// allocation and release, checking contents and the free list throughout.
// Returns the number of failures, described in `error`. Also run on the host.
uint32_t AllocatorStress(uint8_t* memory, uint32_t size, Text* error);

}  // namespace dsp
}  // namespace mace

#endif  // MACE_DSP_SELF_TEST_H_
