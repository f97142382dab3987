// Owns every tensor of a net by name, the weights they view, and the arenas
// that back intermediate tensors.
#ifndef MACE_CORE_WORKSPACE_H_
#define MACE_CORE_WORKSPACE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mace/core/tensor.h"
#include "mace/proto/mace.pb.h"

namespace mace {

// A read-only byte range that keeps its backing storage alive (a memory
// mapping or a copied buffer).
class WeightsBlob {
 public:
  virtual ~WeightsBlob() = default;
  virtual const unsigned char* data() const = 0;
  virtual int64_t size() const = 0;
  // MACE_RUNTIME_ERROR naming the file when the bytes are a mapping of a
  // file that has changed since it was mapped (reading them could fault or
  // see other weights); a copy never changes. Costs one fstat for a mapping.
  virtual MaceStatus CheckUnchanged() const { return MaceStatus(); }
};

// Copies `size` bytes into an aligned heap buffer.
std::shared_ptr<WeightsBlob> CopyWeights(const unsigned char* data, int64_t size);
// Maps the weights file at `path` read-only (RegularFile::Open's checks
// first), keeping it open for CheckUnchanged.
MaceStatus MapWeightsFile(const std::string& path, std::shared_ptr<WeightsBlob>* blob);
// Reads the weights file at `path` into an aligned heap copy, which does
// not depend on the file afterwards.
MaceStatus ReadWeightsFile(const std::string& path, std::shared_ptr<WeightsBlob>* blob);
// Checks `blob` (null: no weights) against the CRC-32C that the model keeps
// of it, NetDef.weights_crc32c. A model without one passes unchecked.
MaceStatus VerifyWeights(const NetDef& net_def, const WeightsBlob* blob);

// An aligned heap buffer: zeroed, or a copy of `source` (its `size` bytes),
// which is then written once rather than cleared and written.
class AlignedBuffer {
 public:
  explicit AlignedBuffer(int64_t size, int64_t alignment = 64,
                         const unsigned char* source = nullptr);
  ~AlignedBuffer();
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  unsigned char* data() { return data_; }
  int64_t size() const { return size_; }

 private:
  unsigned char* data_ = nullptr;
  int64_t size_ = 0;
};

class Workspace {
 public:
  // Creates a tensor; returns nullptr if the name is taken.
  Tensor* CreateTensor(const std::string& name, DataType dtype);
  Tensor* GetTensor(const std::string& name);
  const Tensor* GetTensor(const std::string& name) const;
  bool HasTensor(const std::string& name) const { return tensors_.count(name) > 0; }
  // Drops a tensor no op reads or writes any more (an op the net set up and
  // then gave to another runtime).
  void RemoveTensor(const std::string& name) { tensors_.erase(name); }

  // Creates one weight tensor per NetDef.tensors entry, viewing `blob` in
  // place when aligned (else a private aligned copy). Checks every offset,
  // size, dtype and shape against the blob before touching it.
  MaceStatus LoadWeights(const NetDef& net_def, std::shared_ptr<WeightsBlob> blob);
  int64_t weights_bytes() const { return weights_bytes_; }
  // The blob LoadWeights was given (null before, or after ReleaseWeights).
  std::shared_ptr<WeightsBlob> weights_blob() const { return weights_; }
  // Drops the weights' host memory (the mapping or the copy, and the
  // private aligned copies) once no kernel reads it any more; the weight
  // tensors keep their shapes and have no data.
  void ReleaseWeights();

  // Creates one state tensor per NetDef.state_tensors entry, each in a
  // zeroed buffer of its own (never an arena), and keeps its initial value:
  // a copy of its `data_size` elements at `offset` in the blob LoadWeights
  // was given, or zeros for data_size 0. Call after LoadWeights. Checks
  // names, dtypes, shapes and ranges before touching anything.
  MaceStatus LoadStates(const NetDef& net_def);
  // Copies every state tensor's initial value back in.
  void ResetStates();
  bool IsState(const Tensor* tensor) const;
  int64_t state_bytes() const { return state_bytes_; }

  // Allocates a buffer that lives as long as the workspace.
  unsigned char* AllocateBuffer(int64_t size, const unsigned char* source);

 private:
  std::map<std::string, std::unique_ptr<Tensor>> tensors_;
  std::shared_ptr<WeightsBlob> weights_;
  std::vector<std::unique_ptr<AlignedBuffer>> buffers_;
  int64_t weights_bytes_ = 0;
  struct State {
    Tensor* tensor = nullptr;
    std::unique_ptr<AlignedBuffer> value;
    std::unique_ptr<AlignedBuffer> initial;
  };
  std::vector<State> states_;
  int64_t state_bytes_ = 0;
};

}  // namespace mace

#endif  // MACE_CORE_WORKSPACE_H_
