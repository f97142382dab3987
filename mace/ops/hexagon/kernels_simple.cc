// Pooling, element-wise ops, clamps and concatenation, and the dispatch
// over op types.
#include "mace/dsp/hvx.h"
#include "mace/ops/hexagon/kernels.h"
#include "mace/dsp/sys.h"

namespace mace {
namespace dsp {
namespace {

uint32_t Count(const DspTensor& t) { return t.dims[0] * t.dims[1] * t.dims[2] * t.dims[3]; }

bool Fail(Text* error, const char* what) {
  *error << what;
  return false;
}

bool AllUint8(const OpArgs& op) {
  for (uint32_t i = 0; i < op.num_inputs; ++i) {
    if (!op.inputs[i] || op.inputs[i]->data_type != kUint8) return false;
  }
  return op.outputs[0]->data_type == kUint8;
}

// max(min(x, max), min) a vector at a time; the tensors are vector aligned.
__attribute__((noinline)) void RunClamp(const OpArgs& op) {
  const uint32_t count = Count(*op.outputs[0]);
  const uint8_t low = static_cast<uint8_t>(op.params[0]), high = static_cast<uint8_t>(op.params[1]);
  const uint8_t* in = op.inputs[0]->data;
  uint8_t* out = op.outputs[0]->data;
  const HvxVector low_v = __builtin_HEXAGON_V6_lvsplatw_128B(low * 0x01010101u);
  const HvxVector high_v = __builtin_HEXAGON_V6_lvsplatw_128B(high * 0x01010101u);
  uint32_t i = 0;
  for (; i + 128 <= count; i += 128) {
    const HvxVector x = *reinterpret_cast<const HvxVector*>(in + i);
    *reinterpret_cast<HvxVector*>(out + i) = __builtin_HEXAGON_V6_vmaxub_128B(
        __builtin_HEXAGON_V6_vminub_128B(x, high_v), low_v);
  }
  for (; i < count; ++i) out[i] = in[i] < low ? low : in[i] > high ? high : in[i];
}

constexpr int32_t kLeftShift = 20;

// Whether (x - zero point) << 20 requantized by each input's multiplier
// stays below 2^30 in magnitude: then both terms and their sum or
// difference fit in int32, as the vector code needs.
bool EltwiseTermsFit(const int32_t* p) {
  const uint32_t multipliers[] = {kEltwiseMultiplier0, kEltwiseMultiplier1};
  for (uint32_t m : multipliers) {
    const uint64_t largest = ((uint64_t{255} << kLeftShift) * static_cast<uint32_t>(p[m])) >>
                             p[m + 1];
    if (largest >= (1u << 30) - 1) return false;
  }
  return true;
}

// 128 bytes as four vectors of 32 words, in order.
void Widen(HvxVector bytes, HvxVector words[4]) {
  const HvxPair halves = Q6_Wuh_vunpack_Vub(bytes);
  const HvxPair low = Q6_Wuw_vunpack_Vuh(Q6_V_lo_W(halves));
  const HvxPair high = Q6_Wuw_vunpack_Vuh(Q6_V_hi_W(halves));
  words[0] = Q6_V_lo_W(low), words[1] = Q6_V_hi_W(low);
  words[2] = Q6_V_lo_W(high), words[3] = Q6_V_hi_W(high);
}

// The whole vectors of the output; returns how many bytes it wrote.
uint32_t RunEltwiseHvx(const OpArgs& op) {
  const int32_t* p = op.params;
  const uint32_t count = Count(*op.outputs[0]);
  const bool broadcast = Count(*op.inputs[1]) == 1;
  const int32_t kind = p[kEltwiseKind];
  if (kind != 2 && !EltwiseTermsFit(p)) return 0;
  const VectorRequantizer qa(p[kEltwiseMultiplier0], p[kEltwiseShift0], 0, 0, 0);
  const VectorRequantizer qb(p[kEltwiseMultiplier1], p[kEltwiseShift1], 0, 0, 0);
  const VectorRequantizer out_q(p[kEltwiseOutputMultiplier], p[kEltwiseOutputShift],
                                p[kEltwiseOutputZeroPoint], p[kEltwiseOutputMin],
                                p[kEltwiseOutputMax]);
  const HvxVector za = Splat(p[kEltwiseZeroPoint0]), zb = Splat(p[kEltwiseZeroPoint1]);
  const uint8_t* a_data = op.inputs[0]->data;
  const uint8_t* b_data = op.inputs[1]->data;
  uint8_t* out = op.outputs[0]->data;
  const HvxVector b_splat = Splat(b_data[0] * 0x01010101);
  uint32_t i = 0;
  for (; i + 128 <= count; i += 128) {
    HvxVector a[4], b[4], results[4];
    Widen(*reinterpret_cast<const UnalignedHvxVector*>(a_data + i), a);
    Widen(broadcast ? b_splat : *reinterpret_cast<const UnalignedHvxVector*>(b_data + i), b);
    for (int j = 0; j < 4; ++j) {
      const HvxVector x = Q6_Vw_vsub_VwVw(a[j], za), y = Q6_Vw_vsub_VwVw(b[j], zb);
      HvxVector combined;
      if (kind == 2) {
        // |x|, |y| <= 255: y's low halfword is y.
        combined = Q6_Vw_vmpyieacc_VwVwVh(Splat(0), x, y);
      } else {
        const HvxVector sa = RequantizeVectorToInt32(Q6_Vw_vasl_VwR(x, kLeftShift), qa);
        const HvxVector sb = RequantizeVectorToInt32(Q6_Vw_vasl_VwR(y, kLeftShift), qb);
        combined = kind == 0 ? Q6_Vw_vadd_VwVw(sa, sb) : Q6_Vw_vsub_VwVw(sa, sb);
      }
      results[j] = RequantizeVector(combined, out_q);
    }
    const HvxVector low = Q6_Vh_vpack_VwVw_sat(results[1], results[0]);
    const HvxVector high = Q6_Vh_vpack_VwVw_sat(results[3], results[2]);
    *reinterpret_cast<UnalignedHvxVector*>(out + i) = Q6_Vub_vpack_VhVh_sat(high, low);
  }
  return i;
}

__attribute__((noinline)) void RunEltwise(const OpArgs& op) {
  const int32_t* p = op.params;
  const uint32_t count = Count(*op.outputs[0]);
  const uint32_t b_count = Count(*op.inputs[1]);
  const uint8_t* a_data = op.inputs[0]->data;
  const uint8_t* b_data = op.inputs[1]->data;
  uint8_t* out = op.outputs[0]->data;
  for (uint32_t i = RunEltwiseHvx(op); i < count; ++i) {
    const int32_t a = int32_t{a_data[i]} - p[kEltwiseZeroPoint0];
    const int32_t b = int32_t{b_data[b_count == 1 ? 0 : i]} - p[kEltwiseZeroPoint1];
    int32_t combined;
    if (p[kEltwiseKind] == 2) {
      combined = a * b;
    } else {
      const int64_t sa = Requantize(a * (1 << kLeftShift), p[kEltwiseMultiplier0], p[kEltwiseShift0]);
      const int64_t sb = Requantize(b * (1 << kLeftShift), p[kEltwiseMultiplier1], p[kEltwiseShift1]);
      combined = static_cast<int32_t>(p[kEltwiseKind] == 0 ? sa + sb : sa - sb);
    }
    out[i] = ClampToUint8(p[kEltwiseOutputZeroPoint] +
                              Requantize(combined, p[kEltwiseOutputMultiplier], p[kEltwiseOutputShift]),
                          p[kEltwiseOutputMin], p[kEltwiseOutputMax]);
  }
}

__attribute__((noinline)) void RunConcat(const OpArgs& op) {
  const DspTensor& out = *op.outputs[0];
  const uint32_t plane = out.dims[2] * out.dims[3];
  uint8_t* dst = out.data;
  for (uint32_t n = 0; n < out.dims[0]; ++n) {
    for (uint32_t i = 0; i < op.num_inputs; ++i) {
      const DspTensor& in = *op.inputs[i];
      const uint32_t bytes = in.dims[1] * plane;
      memcpy(dst, in.data + n * bytes, bytes);
      dst += bytes;
    }
  }
}

bool CheckEltwiseOp(const OpArgs& op, Text* error) {
  if (op.num_inputs != 2 || op.num_outputs != 1 || op.num_params != kEltwiseParamCount)
    return Fail(error, "needs 2 inputs, 1 output and its params");
  const uint32_t count = Count(*op.outputs[0]);
  if (Count(*op.inputs[0]) != count) return Fail(error, "input 0 and the output differ in size");
  const uint32_t b = Count(*op.inputs[1]);
  if (b != 1 && b != count) return Fail(error, "input 1 must have 1 element or the output's count");
  const int32_t* p = op.params;
  if (p[kEltwiseKind] < 0 || p[kEltwiseKind] > 2) return Fail(error, "unknown eltwise kind");
  const uint32_t shifts[] = {kEltwiseShift0, kEltwiseShift1, kEltwiseOutputShift};
  for (uint32_t shift : shifts) {
    if (p[shift] < 1 || p[shift] > 62 || p[shift - 1] < 0) return Fail(error, "bad multiplier");
  }
  if (p[kEltwiseOutputMin] < 0 || p[kEltwiseOutputMax] > 255 ||
      p[kEltwiseOutputMin] > p[kEltwiseOutputMax])
    return Fail(error, "bad output range");
  return true;
}

bool CheckConcat(const OpArgs& op, Text* error) {
  if (op.num_inputs < 1 || op.num_outputs != 1) return Fail(error, "needs inputs and 1 output");
  const DspTensor& out = *op.outputs[0];
  uint32_t channels = 0;
  for (uint32_t i = 0; i < op.num_inputs; ++i) {
    const DspTensor& in = *op.inputs[i];
    if (in.dims[0] != out.dims[0] || in.dims[2] != out.dims[2] || in.dims[3] != out.dims[3])
      return Fail(error, "inputs differ from the output in N, H or W");
    if (in.zero_point != out.zero_point || in.scale_bits != out.scale_bits)
      return Fail(error, "inputs must share the output's quantization");
    channels += in.dims[1];
  }
  if (channels != out.dims[1]) return Fail(error, "channels do not add up to the output's");
  return true;
}

}  // namespace

bool CheckElementwise(const OpArgs& op, Text* error) {
  if (op.type == kEltwise) return CheckEltwiseOp(op, error);
  if (op.type == kConcat) return CheckConcat(op, error);
  // kClamp
  if (op.num_inputs != 1 || op.num_outputs != 1 || op.num_params != 2)
    return Fail(error, "needs 1 input, 1 output and (min, max)");
  if (Count(*op.inputs[0]) != Count(*op.outputs[0])) return Fail(error, "sizes differ");
  if (op.params[0] < 0 || op.params[1] > 255 || op.params[0] > op.params[1])
    return Fail(error, "bad clamp range");
  return true;
}

void RunElementwise(const OpArgs& op) {
  if (op.type == kEltwise) {
    RunEltwise(op);
  } else if (op.type == kConcat) {
    RunConcat(op);
  } else {
    RunClamp(op);
  }
}

namespace {

bool CheckUint8Pooling(const OpArgs& op, Text* error) {
  if (!AllUint8(op)) return Fail(error, "needs uint8 tensors");
  return CheckPooling(op, error);
}

bool CheckUint8Elementwise(const OpArgs& op, Text* error) {
  if (!AllUint8(op)) return Fail(error, "needs uint8 tensors");
  return CheckElementwise(op, error);
}

void RunElementwiseOp(const OpArgs& op, uint8_t* /*scratch*/) { RunElementwise(op); }

// What a kernel family does at set-up and at run time; ops.inc names each
// op type's family. Null: no scratch, no prepared constants.
struct Family {
  bool (*check)(const OpArgs& op, Text* error);
  uint32_t (*scratch_bytes)(const OpArgs& op);
  uint32_t (*prepared_bytes)(const OpArgs& op);
  void (*prepare)(const OpArgs& op);
  void (*run)(const OpArgs& op, uint8_t* scratch);
};

constexpr Family kConvFamily = {CheckConv, ConvScratchBytes, ConvPreparedBytes, PrepareConv,
                                RunConv};
constexpr Family kPoolingFamily = {CheckUint8Pooling, PoolingScratchBytes, nullptr, nullptr,
                                   RunPooling};
constexpr Family kElementwiseFamily = {CheckUint8Elementwise, nullptr, nullptr, nullptr,
                                       RunElementwiseOp};
constexpr Family kTableOpFamily = {CheckTableOp, TableOpScratchBytes, nullptr, nullptr,
                                   RunTableOp};

const Family* FamilyOf(uint32_t type) {
  switch (type) {
#define MACE_DSP_OP(name, number, family, mace_type) \
  case k##name:                                      \
    return &k##family##Family;
#define MACE_DSP_KERNEL_ONLY(name, number, family) \
  case k##name:                                    \
    return &k##family##Family;
#include "mace/dsp/ops.inc"
    default:
      return nullptr;
  }
}

}  // namespace

const char* OpName(uint32_t type) {
  switch (type) {
#define MACE_DSP_OP(name, number, family, mace_type) \
  case k##name:                                      \
    return mace_type;
#define MACE_DSP_KERNEL_ONLY(name, number, family) \
  case k##name:                                    \
    return #name;
#include "mace/dsp/ops.inc"
    default:
      return "unknown";
  }
}

bool CheckOp(const OpArgs& op, Text* error) {
  for (uint32_t i = 0; i < op.num_outputs; ++i) {
    if (op.outputs[i]->constant) return Fail(error, "writes a constant");
  }
  const Family* family = FamilyOf(op.type);
  if (family == nullptr) return Fail(error, "unknown op type");
  return family->check(op, error);
}

uint32_t ScratchBytes(const OpArgs& op) {
  const Family* family = FamilyOf(op.type);
  return family != nullptr && family->scratch_bytes != nullptr ? family->scratch_bytes(op) : 0;
}

uint32_t PreparedBytes(const OpArgs& op) {
  const Family* family = FamilyOf(op.type);
  return family != nullptr && family->prepared_bytes != nullptr ? family->prepared_bytes(op) : 0;
}

void PrepareOp(const OpArgs& op) {
  const Family* family = FamilyOf(op.type);
  if (family != nullptr && family->prepare != nullptr) family->prepare(op);
}

void RunOp(const OpArgs& op, uint8_t* scratch) {
  const Family* family = FamilyOf(op.type);
  if (family != nullptr) family->run(op, scratch);
}

}  // namespace dsp
}  // namespace mace
