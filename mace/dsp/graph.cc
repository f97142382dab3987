#include "mace/dsp/graph.h"

#include "mace/dsp/graph_format.h"
#include "mace/dsp/protocol.h"
#include "mace/dsp/sys.h"

namespace mace {
namespace dsp {
namespace {

constexpr uint32_t kLimit = 1u << 20;  // tensors, ops, or words of one op

uint32_t ElementBytes(uint32_t data_type) { return data_type == kInt32 ? 4 : 1; }

uint32_t AlignUp(uint32_t value, uint32_t to) { return (value + to - 1) & ~(to - 1); }

// Product of the dims times the element size, or 0 on overflow.
uint32_t TensorBytes(const TensorRecord& record) {
  uint64_t bytes = ElementBytes(record.data_type);
  for (uint32_t d : record.dims) {
    bytes *= d;
    if (bytes > 0x40000000u) return 0;
  }
  return static_cast<uint32_t>(bytes);
}

template <typename T>
T* AllocateArray(Allocator* heap, uint32_t count) {
  void* memory = heap->Allocate(count * sizeof(T) > 0 ? count * sizeof(T) : 1);
  if (memory != nullptr) memset(memory, 0, count * sizeof(T));
  return static_cast<T*>(memory);
}

}  // namespace

bool Graph::Setup(Allocator* heap, uint8_t* blob, uint32_t size, Text* error) {
  Teardown();
  heap_ = heap;
  blob_ = blob;
  size_ = size;
  if (!Parse(error) || !PlanMemory(error)) {
    Teardown();
    return false;
  }
  return true;
}

bool Graph::Parse(Text* error) {
  if (size_ < sizeof(GraphHeader)) return (*error << "graph: shorter than its header"), false;
  const GraphHeader& header = *reinterpret_cast<const GraphHeader*>(blob_);
  if (header.magic != kGraphMagic || header.version != kGraphVersion)
    return (*error << "graph: bad magic or version"), false;
  if (header.num_tensors > kLimit || header.num_ops > kLimit || header.num_inputs > kLimit ||
      header.num_outputs > kLimit || header.num_op_words > 16 * kLimit)
    return (*error << "graph: counts too large"), false;
  num_tensors_ = header.num_tensors, num_ops_ = header.num_ops;
  num_inputs_ = header.num_inputs, num_outputs_ = header.num_outputs;
  const uint64_t fixed = sizeof(GraphHeader) + uint64_t{num_tensors_} * sizeof(TensorRecord) +
                         4ull * (num_inputs_ + num_outputs_ + header.num_op_words);
  const uint64_t const_start = (fixed + kConstAlignment - 1) / kConstAlignment * kConstAlignment;
  if (const_start + header.const_bytes != size_)
    return (*error << "graph: sizes do not add up to the " << size_ << " bytes received"), false;
  const TensorRecord* records = reinterpret_cast<const TensorRecord*>(blob_ + sizeof(GraphHeader));
  input_ids_ = reinterpret_cast<const uint32_t*>(records + num_tensors_);
  output_ids_ = input_ids_ + num_inputs_;
  const uint32_t* words = output_ids_ + num_outputs_;
  const uint32_t* words_end = words + header.num_op_words;
  uint8_t* constants = blob_ + const_start;

  tensors_ = AllocateArray<DspTensor>(heap_, num_tensors_);
  op_words_ = AllocateArray<const uint32_t*>(heap_, num_ops_);
  pointer_starts_ = AllocateArray<uint32_t>(heap_, num_ops_ + 1);
  if (!tensors_ || !op_words_ || !pointer_starts_) return (*error << "graph: out of memory"), false;
  for (uint32_t i = 0; i < num_tensors_; ++i) {
    const TensorRecord& r = records[i];
    DspTensor& t = tensors_[i];
    if (r.data_type != kUint8 && r.data_type != kInt32 && r.data_type != kInt8)
      return (*error << "graph: tensor " << i << " has an unknown data type"), false;
    t.data_type = r.data_type;
    for (int d = 0; d < 4; ++d) t.dims[d] = r.dims[d];
    t.zero_point = r.zero_point;
    t.scale_bits = r.scale_bits;
    t.bytes = TensorBytes(r);
    if (t.bytes == 0) return (*error << "graph: tensor " << i << " is empty or too large"), false;
    t.constant = (r.flags & kConstant) != 0;
    t.first_use = -1;
    t.last_use = -2;
    if (t.constant) {
      if (r.const_offset % kConstAlignment != 0 ||
          uint64_t{r.const_offset} + t.bytes > header.const_bytes)
        return (*error << "graph: constant " << i << " lies outside the constant data"), false;
      t.data = constants + r.const_offset;
    }
  }
  for (uint32_t i = 0; i < num_inputs_ + num_outputs_; ++i) {
    const uint32_t id = input_ids_[i];
    if (id >= num_tensors_ || tensors_[id].constant)
      return (*error << "graph: graph input or output " << i << " is not an activation"), false;
  }
  // Ops: bounds, tensor ids, lifetimes.
  uint32_t pointers = 0;
  const uint32_t* cursor = words;
  for (uint32_t op = 0; op < num_ops_; ++op) {
    if (words_end - cursor < 4) return (*error << "graph: op " << op << " is cut short"), false;
    const uint32_t n_in = cursor[1], n_out = cursor[2], n_params = cursor[3];
    if (n_in > kLimit || n_out > kLimit || n_params > kLimit ||
        static_cast<uint32_t>(words_end - cursor) - 4 < n_in + n_out + n_params)
      return (*error << "graph: op " << op << " is cut short"), false;
    if (n_out == 0) return (*error << "graph: op " << op << " has no output"), false;
    op_words_[op] = cursor;
    pointer_starts_[op] = pointers;
    pointers += n_in + n_out;
    for (uint32_t j = 0; j < n_in + n_out; ++j) {
      const uint32_t id = cursor[4 + j];
      if (id == kNoTensor && j < n_in) continue;
      if (id >= num_tensors_)
        return (*error << "graph: op " << op << " names tensor " << id << " that does not exist"),
               false;
      DspTensor& t = tensors_[id];
      if (j >= n_in) {
        if (t.first_use != -1)
          return (*error << "graph: tensor " << id << " is written twice"), false;
        t.first_use = static_cast<int32_t>(op);
      }
      if (static_cast<int32_t>(op) > t.last_use) t.last_use = static_cast<int32_t>(op);
    }
    cursor += 4 + n_in + n_out + n_params;
  }
  if (cursor != words_end) return (*error << "graph: extra op words"), false;
  pointer_starts_[num_ops_] = pointers;
  pointers_ = AllocateArray<DspTensor*>(heap_, pointers);
  if (!pointers_) return (*error << "graph: out of memory"), false;
  for (uint32_t i = 0; i < num_outputs_; ++i) {
    DspTensor& t = tensors_[output_ids_[i]];
    bool is_input = false;
    for (uint32_t k = 0; k < num_inputs_; ++k) is_input |= input_ids_[k] == output_ids_[i];
    if (t.first_use == -1 && !is_input)
      return (*error << "graph: output " << i << " is never written"), false;
    t.last_use = num_ops_;
  }
  for (uint32_t i = 0; i < num_inputs_; ++i) {
    DspTensor& t = tensors_[input_ids_[i]];
    if (t.first_use != -1) return (*error << "graph: input " << i << " is written by an op"), false;
    if (t.last_use < -1) t.last_use = -1;
  }
  for (uint32_t op = 0; op < num_ops_; ++op) {
    const uint32_t* w = op_words_[op];
    for (uint32_t j = 0; j < w[1] + w[2]; ++j) {
      pointers_[pointer_starts_[op] + j] = w[4 + j] == kNoTensor ? nullptr : &tensors_[w[4 + j]];
    }
  }
  // Every activation read must be a graph input or written earlier.
  for (uint32_t op = 0; op < num_ops_; ++op) {
    const OpArgs args = ArgsOf(op);
    for (uint32_t j = 0; j < args.num_inputs; ++j) {
      const DspTensor* t = args.inputs[j];
      if (t && !t->constant && t->first_use >= static_cast<int32_t>(op) && t->first_use != -1)
        return (*error << "graph: op " << op << " reads a tensor before it is written"), false;
    }
    bool is_input = false;
    for (uint32_t j = 0; j < args.num_inputs; ++j) {
      const DspTensor* t = args.inputs[j];
      if (t && !t->constant && t->first_use == -1) {
        is_input = false;
        for (uint32_t k = 0; k < num_inputs_; ++k) is_input |= &tensors_[input_ids_[k]] == t;
        if (!is_input)
          return (*error << "graph: op " << op << " reads a tensor nobody writes"), false;
      }
    }
    *error << OpName(args.type) << " (op " << op << "): ";
    if (!CheckOp(args, error)) return false;
    error->Clear();
  }
  return true;
}

OpArgs Graph::ArgsOf(uint32_t op) const {
  const uint32_t* w = op_words_[op];
  OpArgs args;
  args.type = w[0];
  args.num_inputs = w[1];
  args.num_outputs = w[2];
  args.num_params = w[3];
  args.inputs = pointers_ + pointer_starts_[op];
  args.outputs = pointers_ + pointer_starts_[op] + w[1];
  args.params = reinterpret_cast<const int32_t*>(w + 4 + w[1] + w[2]);
  args.prepared = prepared_ && prepared_starts_[op] != prepared_starts_[op + 1]
                      ? prepared_ + prepared_starts_[op]
                      : nullptr;
  return args;
}

// Greedy first fit in order of first use: each activation takes the lowest
// 128-aligned offset free of every tensor whose lifetime overlaps its own.
bool Graph::PlanMemory(Text* error) {
  uint32_t total = 0;
  for (uint32_t i = 0; i < num_tensors_; ++i) {
    DspTensor& t = tensors_[i];
    if (t.constant || t.last_use < t.first_use) continue;
    uint32_t offset = 0;
    bool moved = true;
    while (moved) {
      moved = false;
      for (uint32_t j = 0; j < i; ++j) {
        const DspTensor& other = tensors_[j];
        if (other.constant || other.last_use < other.first_use) continue;
        const bool overlap_time = other.first_use <= t.last_use && t.first_use <= other.last_use;
        const uint32_t other_end = other.arena_offset + AlignUp(other.bytes, 128);
        if (overlap_time && other.arena_offset < offset + AlignUp(t.bytes, 128) &&
            offset < other_end) {
          offset = other_end;
          moved = true;
        }
      }
    }
    t.arena_offset = offset;
    if (offset + AlignUp(t.bytes, 128) > total) total = offset + AlignUp(t.bytes, 128);
  }
  arena_bytes_ = total;
  uint32_t scratch = 0;
  for (uint32_t op = 0; op < num_ops_; ++op) {
    const uint32_t need = ScratchBytes(ArgsOf(op));
    if (need > scratch) scratch = need;
  }
  arena_ = static_cast<uint8_t*>(heap_->Allocate(total > 0 ? total : 1));
  scratch_ = scratch > 0 ? static_cast<uint8_t*>(heap_->Allocate(scratch)) : nullptr;
  if (!arena_ || (scratch > 0 && !scratch_)) {
    *error << "graph: out of memory for " << total << " bytes of activations";
    return false;
  }
  for (uint32_t i = 0; i < num_tensors_; ++i) {
    if (!tensors_[i].constant) tensors_[i].data = arena_ + tensors_[i].arena_offset;
  }
  // What each op computes once from its constants.
  prepared_starts_ = AllocateArray<uint32_t>(heap_, num_ops_ + 1);
  if (!prepared_starts_) return (*error << "graph: out of memory"), false;
  uint64_t prepared = 0;
  for (uint32_t op = 0; op < num_ops_; ++op) {
    prepared_starts_[op] = static_cast<uint32_t>(prepared);
    const uint32_t need = PreparedBytes(ArgsOf(op));
    if (need > (1u << 30) || prepared + need > (1u << 30))
      return (*error << "graph: out of memory for prepared constants"), false;
    prepared += AlignUp(need, 128);
  }
  prepared_starts_[num_ops_] = static_cast<uint32_t>(prepared);
  if (prepared > 0) {
    prepared_ = static_cast<uint8_t*>(heap_->Allocate(static_cast<uint32_t>(prepared)));
    if (!prepared_) {
      *error << "graph: out of memory for " << static_cast<uint32_t>(prepared)
             << " bytes of prepared constants";
      return false;
    }
    for (uint32_t op = 0; op < num_ops_; ++op) {
      const OpArgs args = ArgsOf(op);
      if (args.prepared) PrepareOp(args);
    }
  }
  return true;
}

void Graph::Teardown() {
  if (heap_ != nullptr) {
    heap_->Free(prepared_);
    heap_->Free(prepared_starts_);
    heap_->Free(scratch_);
    heap_->Free(arena_);
    heap_->Free(pointers_);
    heap_->Free(pointer_starts_);
    heap_->Free(op_words_);
    heap_->Free(tensors_);
    heap_->Free(blob_);
  }
  blob_ = nullptr;
  tensors_ = nullptr;
  op_words_ = nullptr;
  pointers_ = nullptr;
  pointer_starts_ = nullptr;
  arena_ = scratch_ = prepared_ = nullptr;
  prepared_starts_ = nullptr;
  arena_bytes_ = 0;
  num_ops_ = num_tensors_ = num_inputs_ = num_outputs_ = 0;
}

uint32_t Graph::input_bytes() const {
  uint32_t bytes = 0;
  for (uint32_t i = 0; i < num_inputs_; ++i) bytes += tensors_[input_ids_[i]].bytes;
  return bytes;
}

uint32_t Graph::output_bytes() const {
  uint32_t bytes = 0;
  for (uint32_t i = 0; i < num_outputs_; ++i) bytes += tensors_[output_ids_[i]].bytes;
  return bytes;
}

void Graph::Execute(const uint8_t* inputs, uint8_t* outputs, bool profile) {
  for (uint32_t i = 0; i < num_inputs_; ++i) {
    DspTensor& t = tensors_[input_ids_[i]];
    memcpy(t.data, inputs, t.bytes);
    inputs += t.bytes;
  }
  uint8_t* profiles = outputs + output_bytes();
  for (uint32_t op = 0; op < num_ops_; ++op) {
    const uint64_t start = profile ? NowNanos() : 0;
    RunOp(ArgsOf(op), scratch_);
    if (!profile) continue;
    const uint64_t nanos = NowNanos() - start;
    const OpProfile record = {op_words_[op][0], static_cast<uint32_t>(nanos),
                              static_cast<uint32_t>(nanos >> 32)};
    memcpy(profiles + op * sizeof(record), &record, sizeof(record));
  }
  for (uint32_t i = 0; i < num_outputs_; ++i) {
    const DspTensor& t = tensors_[output_ids_[i]];
    memcpy(outputs, t.data, t.bytes);
    outputs += t.bytes;
  }
}

void Graph::Print(Text* text) const {
  *text << "graph: " << num_tensors_ << " tensors, " << num_ops_ << " ops, " << arena_bytes_
        << " arena bytes\n";
  for (uint32_t op = 0; op < num_ops_; ++op) {
    const uint32_t* w = op_words_[op];
    *text << "  op " << op << " " << OpName(w[0]) << " in";
    for (uint32_t j = 0; j < w[1]; ++j) *text << " " << static_cast<int32_t>(w[4 + j]);
    *text << " out";
    for (uint32_t j = 0; j < w[2]; ++j) {
      const DspTensor& t = tensors_[w[4 + w[1] + j]];
      *text << " " << w[4 + w[1] + j] << " [" << t.dims[0] << "," << t.dims[1] << "," << t.dims[2]
            << "," << t.dims[3] << "] zp " << t.zero_point << " @" << t.arena_offset;
    }
    *text << "\n";
  }
}

}  // namespace dsp
}  // namespace mace
