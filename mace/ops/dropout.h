// Dropout: ONNX's Dropout where it is exact. Inputs: data, optional ratio
// (one float32 value), optional training_mode (one value, 0 or 1, as a
// bool input is fed); outputs: y and an optional mask.
//
// Outside training mode, or with ratio 0, nothing is dropped: y is the data
// and the mask all 1 (true). Training mode with a ratio above 0 drops values
// at random, which an inference engine does not reproduce: such a run is an
// INVALID_ARGS error, never a silent identity. ratio and training_mode may be
// computed at run time; each run checks them.
#ifndef MACE_OPS_DROPOUT_H_
#define MACE_OPS_DROPOUT_H_

#include "mace/core/operation.h"

namespace mace {
namespace ops {

class DropoutBase : public Operation {
 public:
  MaceStatus Init() override;

 protected:
  MaceStatus InferShapes();
  // Checks this run's ratio and training_mode allow nothing to be dropped.
  MaceStatus CheckNothingDropped() const;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_DROPOUT_H_
