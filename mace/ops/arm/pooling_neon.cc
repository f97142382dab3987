// NEON pooling: bands of 2x2 / 3x3 windows, and global pooling planes.
//
// As on AVX2 (see x86/pooling_avx2.cc), each output row reduces its input
// rows into the band's line column by column, then kernel_w neighbouring
// line cells per output, 4 outputs per vector; stride 2 splits the line into
// even and odd lanes with vld2q_f32 as it loads. A row's ragged end is one
// more whole vector ending at the last output.
#if defined(__aarch64__) || defined(__ARM_NEON)

#include <arm_neon.h>

#include "mace/ops/arm/neon_kernels.h"

namespace mace {
namespace ops {
namespace arm {
namespace {

constexpr int kLanes = 4;

struct MaxOp {
  static constexpr bool kAverage = false;
  static float32x4_t Apply(float32x4_t a, float32x4_t b) { return vmaxq_f32(a, b); }
  static float Apply(float a, float b) { return a > b ? a : b; }
};

struct SumOp {
  static constexpr bool kAverage = true;  // outputs are scaled
  static float32x4_t Apply(float32x4_t a, float32x4_t b) { return vaddq_f32(a, b); }
  static float Apply(float a, float b) { return a + b; }
};

#if !defined(__aarch64__)
// armv7: the columns [0, dst_end - dst) of ReduceRows, eight a step (at
// least one step). A row's 8 floats are one vld1 with its pointer increment
// folded in, the 8 results one vst1: 3 rows take 10 instructions a step,
// where GCC's code for the intrinsics took 23 (a load, and a pointer move
// or add, per 4 floats; it cannot pair two vld1q_f32 into one, and GCC's
// armv7 NEON has no vld1q_f32_x2). Rows combine in order, as the
// intrinsics do: row 0 with row 1, then with row 2.
// clang-format off
#define MACE_V7_POOL_LOOP(body)                  \
  "1:\n"                                         \
  "vld1.32 {d0-d3}, [%[r0]]!\n"                  \
  body                                           \
  "vst1.32 {d0-d3}, [%[d]]!\n"                   \
  "cmp %[d], %[end]\n"                           \
  "bne 1b\n"
#define MACE_V7_POOL_2(op)                                                \
  __asm__ volatile(MACE_V7_POOL_LOOP(                                     \
                       "vld1.32 {d4-d7}, [%[r1]]!\n"                     \
                       op " q0, q0, q2\n" op " q1, q1, q3\n")             \
                   : [d] "+r"(d), [r0] "+r"(r0), [r1] "+r"(r1)            \
                   : [end] "r"(dst_end)                                   \
                   : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7")
#define MACE_V7_POOL_3(op)                                                \
  __asm__ volatile(MACE_V7_POOL_LOOP(                                     \
                       "vld1.32 {d4-d7}, [%[r1]]!\n"                     \
                       "vld1.32 {d16-d19}, [%[r2]]!\n"                   \
                       op " q0, q0, q2\n" op " q1, q1, q3\n"              \
                       op " q0, q0, q8\n" op " q1, q1, q9\n")             \
                   : [d] "+r"(d), [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2) \
                   : [end] "r"(dst_end)                                   \
                   : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", \
                     "d16", "d17", "d18", "d19")
// clang-format on

template <class Op, int kRows>
void ReduceRowsArmv7(const float* in, int64_t in_w, float* d, float* dst_end) {
  const float* r0 = in;
  const float* r1 = kRows > 1 ? in + in_w : in;
  const float* r2 = kRows > 2 ? in + 2 * in_w : in;
  if constexpr (kRows == 1) {
    __asm__ volatile(MACE_V7_POOL_LOOP("")
                     : [d] "+r"(d), [r0] "+r"(r0)
                     : [end] "r"(dst_end)
                     : "cc", "memory", "d0", "d1", "d2", "d3");
  } else if constexpr (kRows == 2) {
    if constexpr (Op::kAverage) {
      MACE_V7_POOL_2("vadd.f32");
    } else {
      MACE_V7_POOL_2("vmax.f32");
    }
  } else {
    if constexpr (Op::kAverage) {
      MACE_V7_POOL_3("vadd.f32");
    } else {
      MACE_V7_POOL_3("vmax.f32");
    }
  }
  (void)r1;
  (void)r2;
}
#undef MACE_V7_POOL_3
#undef MACE_V7_POOL_2
#undef MACE_V7_POOL_LOOP
#endif

// dst[c] = reduction of in[r * in_w + c] over kRows rows, for c < width.
// armv7: eight columns a step in assembly (ReduceRowsArmv7).
template <class Op, int kRows>
void ReduceRows(const float* in, int64_t in_w, int64_t width, float* dst) {
  int64_t c = 0;
#if defined(__aarch64__)
  // 16 columns a pass in four-register loads and one store: 3 rows took 15
  // instructions where four passes of one vector took 36.
  for (; c + 4 * kLanes <= width; c += 4 * kLanes) {
    const float32x4x4_t first = vld1q_f32_x4(in + c);
    float32x4_t a0 = first.val[0], a1 = first.val[1], a2 = first.val[2], a3 = first.val[3];
#pragma GCC unroll 3
    for (int r = 1; r < kRows; ++r) {
      const float32x4x4_t row = vld1q_f32_x4(in + r * in_w + c);
      a0 = Op::Apply(a0, row.val[0]);
      a1 = Op::Apply(a1, row.val[1]);
      a2 = Op::Apply(a2, row.val[2]);
      a3 = Op::Apply(a3, row.val[3]);
    }
    vst1q_f32_x4(dst + c, (float32x4x4_t{{a0, a1, a2, a3}}));
  }
#else
  float* const dst_end = dst + (width & ~int64_t{2 * kLanes - 1});
  if (dst_end != dst) ReduceRowsArmv7<Op, kRows>(in, in_w, dst, dst_end);
  c = dst_end - dst;
#endif
  for (; c + kLanes <= width; c += kLanes) {
    float32x4_t acc = vld1q_f32(in + c);
    for (int r = 1; r < kRows; ++r) acc = Op::Apply(acc, vld1q_f32(in + r * in_w + c));
    vst1q_f32(dst + c, acc);
  }
  for (; c < width; ++c) {
    float acc = in[c];
    for (int r = 1; r < kRows; ++r) acc = Op::Apply(acc, in[r * in_w + c]);
    dst[c] = acc;
  }
}

// The reductions of 4 consecutive output windows, the first starting at
// line cell `p`.
template <class Op, int kKernel, int kStride>
float32x4_t Windows(const float* p) {
  if constexpr (kStride == 1) {
    float32x4_t acc = Op::Apply(vld1q_f32(p), vld1q_f32(p + 1));
    if constexpr (kKernel == 3) acc = Op::Apply(acc, vld1q_f32(p + 2));
    return acc;
  } else {
    const float32x4x2_t pairs = vld2q_f32(p);
    float32x4_t acc = Op::Apply(pairs.val[0], pairs.val[1]);
    if constexpr (kKernel == 3) acc = Op::Apply(acc, vld2q_f32(p + 2).val[0]);
    return acc;
  }
}

template <class Op, int kKernel, int kStride>
void OutputRow(const float* line, const float* scale, float* out, int64_t width) {
  if (width < kLanes) {
    float lanes[kLanes];
    vst1q_f32(lanes, (Windows<Op, kKernel, kStride>(line)));
    for (int64_t j = 0; j < width; ++j) out[j] = Op::kAverage ? lanes[j] * scale[j] : lanes[j];
    return;
  }
  const int64_t last = width - kLanes;
  for (int64_t j = 0; j < width; j += kLanes) {
    const int64_t column = j < last ? j : last;
    float32x4_t v = Windows<Op, kKernel, kStride>(line + column * kStride);
    if constexpr (Op::kAverage) v = vmulq_f32(v, vld1q_f32(scale + column));
    vst1q_f32(out + column, v);
  }
}


#if defined(__aarch64__)
// arm64: output rows of a 3x3 stride-2 max straight from their input rows,
// for n >= 4 outputs a row whose
// windows lie inside the rows (a row reads 2n + 1 floats). Through the line
// (ReduceRows, then OutputRow) an output took about 7.5 instructions; a
// step of 8 here takes 23.
//
// `rows` rows of n >= 8 outputs (out_w floats apart from `out`), the
// windows of row i starting at column 0 of input row in + i * step (and the
// two rows after it, in_w floats apart): steps of 8 outputs, and if n is no
// multiple of 8 one more ending at the row's last output. A step reads 7
// floats past its last window, so each row's three input rows must be
// followed by 7 floats of the same buffer. One call runs the rows: the C++
// around a call per row cost about 40 instructions, more than a step.
//
// Each ld2 splits a row's 8 columns into evens and odds; the maxima over
// the three rows of the evens (E) and of each even column and the odd one
// after it (P) of one group, and the next group's evens shifted in by one
// lane (ext), are 4 outputs. ld2 has no offset form: post-increments walk
// the rows (GCC's code for the intrinsics spent an add on each). v16/v17
// carry E and P of the group at the step's start from step to step.
void Max3x3S2Rows(const float* in, int64_t in_w, int64_t step, float* out, int64_t out_w,
                  int64_t n, int64_t rows) {
  const int64_t in_bytes = in_w * static_cast<int64_t>(sizeof(float));
  const int64_t step_bytes = step * static_cast<int64_t>(sizeof(float));
  const int64_t out_bytes = out_w * static_cast<int64_t>(sizeof(float));
  const int64_t steps = n / 8;
  // The ragged end's first output (0: none); its windows start at twice it.
  const int64_t tail = n % 8 != 0 ? n - 8 : 0;
  const float *p0, *p1, *p2;
  float* o;
  int64_t k, t;
  __asm__ volatile(
      "0:\n"
      "mov %[p0], %[in]\n"
      "add %[p1], %[in], %[in_bytes]\n"
      "add %[p2], %[p1], %[in_bytes]\n"
      "mov %[o], %[out]\n"
      "mov %[k], %[steps]\n"
      "mov %[t], %[tail]\n"
      "1:\n"
      "ld2 {v0.4s, v1.4s}, [%[p0]], #32\n"
      "ld2 {v2.4s, v3.4s}, [%[p1]], #32\n"
      "ld2 {v4.4s, v5.4s}, [%[p2]], #32\n"
      "fmax v0.4s, v0.4s, v2.4s\n"
      "fmax v1.4s, v1.4s, v3.4s\n"
      "fmax v16.4s, v0.4s, v4.4s\n"
      "fmax v1.4s, v1.4s, v5.4s\n"
      "fmax v17.4s, v1.4s, v16.4s\n"
      "2:\n"
      "ld2 {v0.4s, v1.4s}, [%[p0]], #32\n"
      "ld2 {v2.4s, v3.4s}, [%[p1]], #32\n"
      "ld2 {v4.4s, v5.4s}, [%[p2]], #32\n"
      "fmax v0.4s, v0.4s, v2.4s\n"
      "fmax v1.4s, v1.4s, v3.4s\n"
      "fmax v0.4s, v0.4s, v4.4s\n"
      "fmax v1.4s, v1.4s, v5.4s\n"
      "ext v6.16b, v16.16b, v0.16b, #4\n"
      "fmax v1.4s, v1.4s, v0.4s\n"
      "fmax v6.4s, v6.4s, v17.4s\n"
      "ld2 {v2.4s, v3.4s}, [%[p0]], #32\n"
      "ld2 {v4.4s, v5.4s}, [%[p1]], #32\n"
      "ld2 {v16.4s, v17.4s}, [%[p2]], #32\n"
      "fmax v2.4s, v2.4s, v4.4s\n"
      "fmax v3.4s, v3.4s, v5.4s\n"
      "fmax v16.4s, v16.4s, v2.4s\n"
      "fmax v17.4s, v17.4s, v3.4s\n"
      "ext v7.16b, v0.16b, v16.16b, #4\n"
      "fmax v17.4s, v17.4s, v16.4s\n"
      "fmax v7.4s, v7.4s, v1.4s\n"
      "st1 {v6.4s, v7.4s}, [%[o]], #32\n"
      "subs %[k], %[k], #1\n"
      "b.ne 2b\n"
      // The ragged end: one step from output t.
      "cbz %[t], 3f\n"
      "add %[p0], %[in], %[t], lsl #3\n"
      "add %[p1], %[p0], %[in_bytes]\n"
      "add %[p2], %[p1], %[in_bytes]\n"
      "add %[o], %[out], %[t], lsl #2\n"
      "mov %[k], #1\n"
      "mov %[t], #0\n"
      "b 1b\n"
      "3:\n"
      "add %[in], %[in], %[step_bytes]\n"
      "add %[out], %[out], %[out_bytes]\n"
      "subs %[rows], %[rows], #1\n"
      "b.ne 0b\n"
      : [in] "+r"(in), [out] "+r"(out), [rows] "+r"(rows), [p0] "=&r"(p0), [p1] "=&r"(p1),
        [p2] "=&r"(p2), [o] "=&r"(o), [k] "=&r"(k), [t] "=&r"(t)
      : [in_bytes] "r"(in_bytes), [step_bytes] "r"(step_bytes), [out_bytes] "r"(out_bytes),
        [steps] "r"(steps), [tail] "r"(tail)
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v16", "v17");
}
#else
// armv7: the same rows and steps as arm64's Max3x3S2Rows (see there), with
// the same contract: each row's three input rows must be followed by 7
// floats of the same buffer. One pointer walks a group's three rows: its
// vld2 post-increments go down a row (in_w floats) twice and then back up
// to the next group's first row, so a group is three loads and no address
// arithmetic; a step of 8 outputs is 21 instructions, where the
// intrinsics (a call per row, 4 vectors at a time) took 4 an output. The
// per-call values come through memory: with the pointers, counts and the
// frame pointer they would not fit in the core registers. q12 and q13
// carry E and P of the group at the step's start.
void Max3x3S2Rows(const float* in, int64_t in_w, int64_t step, float* out, int64_t out_w,
                  int64_t n, int64_t rows) {
  struct Values {
    int32_t steps, tail, step_bytes, out_bytes;
  };
  const int32_t in_bytes = static_cast<int32_t>(in_w) * static_cast<int32_t>(sizeof(float));
  // From a group's third row back to the next group's first.
  const int32_t back = 8 * static_cast<int32_t>(sizeof(float)) - 2 * in_bytes;
  const int32_t count = static_cast<int32_t>(n);
  const Values values = {count / 8, count % 8 != 0 ? count - 8 : 0,
                         static_cast<int32_t>(step) * static_cast<int32_t>(sizeof(float)),
                         static_cast<int32_t>(out_w) * static_cast<int32_t>(sizeof(float))};
  const Values* prm = &values;
  int32_t left = static_cast<int32_t>(rows);
  const float* p;
  float* o;
  int32_t k, t;
  // clang-format off
  __asm__ volatile(
      "0:\n"
      "mov %[p], %[in]\n"
      "mov %[o], %[out]\n"
      "ldr %[k], [%[prm]]\n"
      "ldr %[t], [%[prm], #4]\n"
      "1:\n"
      "vld2.32 {d0-d3}, [%[p]], %[in_bytes]\n"
      "vld2.32 {d4-d7}, [%[p]], %[in_bytes]\n"
      "vld2.32 {d24-d27}, [%[p]], %[back]\n"
      "vmax.f32 q0, q0, q2\n"
      "vmax.f32 q1, q1, q3\n"
      "vmax.f32 q12, q12, q0\n"
      "vmax.f32 q13, q13, q1\n"
      "vmax.f32 q13, q13, q12\n"
      "2:\n"
      "vld2.32 {d0-d3}, [%[p]], %[in_bytes]\n"
      "vld2.32 {d4-d7}, [%[p]], %[in_bytes]\n"
      "vld2.32 {d16-d19}, [%[p]], %[back]\n"
      "vmax.f32 q0, q0, q2\n"
      "vmax.f32 q1, q1, q3\n"
      "vmax.f32 q0, q0, q8\n"
      "vmax.f32 q1, q1, q9\n"
      "vext.32 q10, q12, q0, #1\n"
      "vmax.f32 q1, q1, q0\n"
      "vmax.f32 q10, q10, q13\n"
      "vld2.32 {d4-d7}, [%[p]], %[in_bytes]\n"
      "vld2.32 {d16-d19}, [%[p]], %[in_bytes]\n"
      "vld2.32 {d24-d27}, [%[p]], %[back]\n"
      "vmax.f32 q2, q2, q8\n"
      "vmax.f32 q3, q3, q9\n"
      "vmax.f32 q12, q12, q2\n"
      "vmax.f32 q13, q13, q3\n"
      "vext.32 q11, q0, q12, #1\n"
      "vmax.f32 q13, q13, q12\n"
      "vmax.f32 q11, q11, q1\n"
      "vst1.32 {d20-d23}, [%[o]]!\n"
      "subs %[k], %[k], #1\n"
      "bne 2b\n"
      // The ragged end: one step from output t.
      "cmp %[t], #0\n"
      "beq 3f\n"
      "add %[p], %[in], %[t], lsl #3\n"
      "add %[o], %[out], %[t], lsl #2\n"
      "mov %[k], #1\n"
      "mov %[t], #0\n"
      "b 1b\n"
      "3:\n"
      "ldr %[t], [%[prm], #8]\n"
      "add %[in], %[in], %[t]\n"
      "ldr %[t], [%[prm], #12]\n"
      "add %[out], %[out], %[t]\n"
      "subs %[left], %[left], #1\n"
      "bne 0b\n"
      : [in] "+r"(in), [out] "+r"(out), [left] "+r"(left), [p] "=&r"(p), [o] "=&r"(o),
        [k] "=&r"(k), [t] "=&r"(t)
      : [in_bytes] "r"(in_bytes), [back] "r"(back), [prm] "r"(prm)
      : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d16", "d17", "d18",
        "d19", "d20", "d21", "d22", "d23", "d24", "d25", "d26", "d27");
  // clang-format on
}
#endif

// The three rows' maxima over one group of 8 columns starting at c:
// `evens` (columns c, c + 2, ...) and `pairs` (each even column and the odd
// one after it).
inline void Max3x3S2Group(const float* r0, const float* r1, const float* r2, int64_t c,
                          float32x4_t* evens, float32x4_t* pairs) {
  const float32x4x2_t a = vld2q_f32(r0 + c), b = vld2q_f32(r1 + c), d = vld2q_f32(r2 + c);
  *evens = vmaxq_f32(vmaxq_f32(a.val[0], b.val[0]), d.val[0]);
  *pairs = vmaxq_f32(vmaxq_f32(vmaxq_f32(a.val[1], b.val[1]), d.val[1]), *evens);
}

// Outputs [k, k + 4) from the group at 2k and the column maximum after it in
// lane 0 of `next`.
inline void Max3x3S2Store(const float* r0, const float* r1, const float* r2, int64_t k,
                          float32x4_t next, float* out) {
  float32x4_t evens, pairs;
  Max3x3S2Group(r0, r1, r2, 2 * k, &evens, &pairs);
  vst1q_f32(out + k, vmaxq_f32(pairs, vextq_f32(evens, next, 1)));
}

// One row reading nothing past its windows (n >= 4): steps while the next
// two groups lie inside the rows (column 2k + 23 at most 2n - 1), then a
// group at a time while the next group does, the last whole group with the
// single column after it, and one more group ending at the last output.
void Max3x3S2RowInside(const float* r0, int64_t in_w, float* out, int64_t n) {
  const float* r1 = r0 + in_w;
  const float* r2 = r1 + in_w;
  const int64_t steps = (n - 4) / 8;
  if (steps > 0) Max3x3S2Rows(r0, in_w, 0, out, 0, 8 * steps, 1);
  int64_t k = 8 * steps;
  for (; k + 8 <= n; k += 4) {
    float32x4_t evens, pairs;
    Max3x3S2Group(r0, r1, r2, 2 * k + 8, &evens, &pairs);
    Max3x3S2Store(r0, r1, r2, k, evens, out);
  }
  const auto column = [&](int64_t c) {
    return vmaxq_f32(vmaxq_f32(vld1q_dup_f32(r0 + c), vld1q_dup_f32(r1 + c)),
                     vld1q_dup_f32(r2 + c));
  };
  Max3x3S2Store(r0, r1, r2, k, column(2 * k + 8), out);
  if (k + 4 < n) Max3x3S2Store(r0, r1, r2, n - 4, column(2 * n), out);
}

template <class Op, int kKernel, int kStride>
void Band(const PoolingBand& band) {
  const int64_t in_w = band.in_w, out_w = band.out_w;
  float* cells = band.line + band.pad_left;
  // 3x3 stride-2 max with at most one column of padding on the left (the
  // zoo's pooling layers), whose other outputs' windows lie inside the row:
  // runs of full-height rows go straight from the input (Max3x3S2Rows);
  // output 0 of a padded row is the maximum of the row's first two columns.
  const int64_t skip = band.pad_left, direct_w = out_w - skip;
  const bool direct = !Op::kAverage && kKernel == 3 && kStride == 2 && skip <= 1 &&
                      direct_w >= 4 && in_w - skip >= 2 * direct_w + 1
#if !defined(__aarch64__)
                      // armv7's steps take byte counts in 32 bits.
                      && in_w < (1 << 26)
#endif
      ;
  for (int64_t r = 0; r < band.rows; ++r) {
    const PoolingRowWindow& window = band.windows[r];
    float* out = band.out + r * out_w;
    const float* in = band.in + window.first_row * in_w;
    if (direct && window.row_count == 3) {
      // The run of rows from r whose windows are 3 input rows at one step.
      const PoolingRowWindow* windows = band.windows;
      const int64_t step = r + 1 < band.rows ? windows[r + 1].first_row - window.first_row : 1;
      int64_t end = r + 1;
      while (step > 0 && end < band.rows && windows[end].row_count == 3 &&
             windows[end].first_row - windows[end - 1].first_row == step) {
        ++end;
      }
      // A row's third input row is followed by the next one (step > 0), which
      // takes the overreading steps, except maybe for the run's last row:
      // the window after it shows whether that row is in the input.
      const PoolingRowWindow* next = end < band.rows ? &windows[end] : nullptr;
      const bool last_reads_past =
          next != nullptr && next->first_row + next->row_count > windows[end - 1].first_row + 3;
      const int64_t reading_past = direct_w < 8 ? 0 : end - r - (last_reads_past ? 0 : 1);
      if (skip == 1) {
        for (int64_t i = r; i < end; ++i) {
          // fmax, as the vector path: a NaN in the window gives NaN.
          const float* row = band.in + windows[i].first_row * in_w;
          const float32x2_t m =
              vmax_f32(vmax_f32(vld1_f32(row), vld1_f32(row + in_w)), vld1_f32(row + 2 * in_w));
#if defined(__aarch64__)
          band.out[i * out_w] = vmaxv_f32(m);
#else
          band.out[i * out_w] = vget_lane_f32(vpmax_f32(m, m), 0);
#endif
        }
      }
      if (reading_past > 0) {
        Max3x3S2Rows(in + skip, in_w, step * in_w, out + skip, out_w, direct_w, reading_past);
      }
      for (int64_t i = r + reading_past; i < end; ++i) {
        Max3x3S2RowInside(band.in + windows[i].first_row * in_w + skip, in_w,
                          band.out + i * out_w + skip, direct_w);
      }
      r = end - 1;
      continue;
    }
    switch (window.row_count) {
      case 1:
        ReduceRows<Op, 1>(in, in_w, in_w, cells);
        break;
      case 2:
        ReduceRows<Op, 2>(in, in_w, in_w, cells);
        break;
      case 3:
        ReduceRows<Op, 3>(in, in_w, in_w, cells);
        break;
      default:
        for (int64_t j = 0; j < out_w; ++j) out[j] = 0.f;
        continue;
    }
    OutputRow<Op, kKernel, kStride>(band.line, window.scale, out, out_w);
  }
}

template <class Op>
void BandFor(const PoolingBand& band) {
  if (band.kernel_w == 2) {
    band.stride_w == 1 ? Band<Op, 2, 1>(band) : Band<Op, 2, 2>(band);
  } else {
    band.stride_w == 1 ? Band<Op, 3, 1>(band) : Band<Op, 3, 2>(band);
  }
}

float HorizontalSum(float32x4_t v) {
#if defined(__aarch64__)
  return vaddvq_f32(v);
#else
  const float32x2_t half = vadd_f32(vget_low_f32(v), vget_high_f32(v));
  return vget_lane_f32(vpadd_f32(half, half), 0);
#endif
}

float HorizontalMax(float32x4_t v) {
#if defined(__aarch64__)
  return vmaxvq_f32(v);
#else
  const float32x2_t half = vmax_f32(vget_low_f32(v), vget_high_f32(v));
  return vget_lane_f32(vpmax_f32(half, half), 0);
#endif
}

// Four accumulators hide the add/max latency.
template <class Op>
float ReducePlane(const float* data, int64_t count, float identity) {
  float32x4_t acc0 = vdupq_n_f32(identity), acc1 = acc0, acc2 = acc0, acc3 = acc0;
  int64_t i = 0;
  for (; i + 4 * kLanes <= count; i += 4 * kLanes) {
    acc0 = Op::Apply(acc0, vld1q_f32(data + i));
    acc1 = Op::Apply(acc1, vld1q_f32(data + i + kLanes));
    acc2 = Op::Apply(acc2, vld1q_f32(data + i + 2 * kLanes));
    acc3 = Op::Apply(acc3, vld1q_f32(data + i + 3 * kLanes));
  }
  for (; i + kLanes <= count; i += kLanes) acc0 = Op::Apply(acc0, vld1q_f32(data + i));
  const float32x4_t acc = Op::Apply(Op::Apply(acc0, acc1), Op::Apply(acc2, acc3));
  float result = Op::kAverage ? HorizontalSum(acc) : HorizontalMax(acc);
  for (; i < count; ++i) result = Op::Apply(result, data[i]);
  return result;
}

}  // namespace

void NeonPoolingBand(const PoolingBand& band) {
  if (band.average != 0) {
    BandFor<SumOp>(band);
  } else {
    BandFor<MaxOp>(band);
  }
}

float NeonPlaneSum(const float* data, int64_t count) {
  return ReducePlane<SumOp>(data, count, 0.f);
}

float NeonPlaneMax(const float* data, int64_t count) {
  return ReducePlane<MaxOp>(data, count, -__builtin_inff());
}

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // defined(__aarch64__) || defined(__ARM_NEON)
