// The data-movement ops: every output element copies one input element
// (or, for padding, a constant). One kernel; `mode` picks the mapping from
// output coordinates to input coordinates (ops/remap.h, RemapMode), with
// its parameters in `a` and `b` and, for table-driven modes, `table`.
// Coordinates are (n, c, h, w). Global size: the output image.

// The input index along a dimension of `size` that padded position `pos`
// reads (type as mace/ops/ref/pad.h's PadType), or -1 for the constant.
inline int pad_source(int pos, int size, int type) {
  if (pos >= 0 && pos < size) return pos;
  switch (type) {
    case 1:  // REFLECT
      return pos < 0 ? -pos : 2 * (size - 1) - pos;
    case 2:  // SYMMETRIC
      return pos < 0 ? -pos - 1 : 2 * size - 1 - pos;
    case 3:  // EDGE
      return pos < 0 ? 0 : size - 1;
    default:  // CONSTANT
      return -1;
  }
}

// Sets *in to the input element output element `o` reads; false when it
// reads the constant instead.
inline bool remap_source(int mode, int4 o, int4 out_dims, int4 in_dims, int4 a, int4 b,
                         __global const int* table, int4* in) {
  switch (mode) {
    case 0:  // kFlat: the same row-major index (Reshape, Squeeze, Identity).
      *in = unflatten_nchw(flatten_nchw(o, out_dims), in_dims);
      return true;
    case 1:  // kStrided: a + o * b per dimension (Slice, Split).
      *in = a + o * b;
      return true;
    case 2: {  // kPad: leading pads a, pad type b.x.
      const int4 p = o - a;
      *in = (int4)(pad_source(p.x, in_dims.x, b.x), pad_source(p.y, in_dims.y, b.x),
                   pad_source(p.z, in_dims.z, b.x), pad_source(p.w, in_dims.w, b.x));
      return in->x >= 0 && in->y >= 0 && in->z >= 0 && in->w >= 0;
    }
    case 3: {  // kChannelShuffle: a.x groups; shuffled channel i * groups + g,
               // from a.y on (a split output holds a run of them).
      const int per_group = in_dims.y / a.x;
      const int c = o.y + a.y;
      *in = (int4)(o.x, (c % a.x) * per_group + c / a.x, o.z, o.w);
      return true;
    }
    case 4: {  // kDepthToSpace: block a.x, CRD order when a.y.
      const int k = a.x;
      const int by = o.z % k, bx = o.w % k;
      const int c = a.y ? (o.y * k + by) * k + bx : (by * k + bx) * out_dims.y + o.y;
      *in = (int4)(o.x, c, o.z / k, o.w / k);
      return true;
    }
    case 5: {  // kSpaceToDepth: block a.x, CRD order when a.y.
      const int k = a.x;
      int c, by, bx;
      if (a.y) {
        c = o.y / (k * k);
        by = (o.y / k) % k;
        bx = o.y % k;
      } else {
        c = o.y % in_dims.y;
        by = o.y / in_dims.y / k;
        bx = o.y / in_dims.y % k;
      }
      *in = (int4)(o.x, c, o.z * k + by, o.w * k + bx);
      return true;
    }
    case 6: {  // kBatchToSpace: blocks (a.x, a.y), crops (a.z, a.w).
      const int fy = o.z + a.z, fx = o.w + a.w;
      const int batch = out_dims.x;
      *in = (int4)(((fy % a.x) * a.y + fx % a.y) * batch + o.x, o.y, fy / a.x, fx / a.y);
      return true;
    }
    case 7: {  // kSpaceToBatch: blocks (a.x, a.y), leading pads (a.z, a.w).
      const int batch = in_dims.x;
      const int phase = o.x / batch;
      *in = (int4)(o.x % batch, o.y, o.z * a.x + phase / a.y - a.z, o.w * a.y + phase % a.y - a.w);
      return in->z >= 0 && in->z < in_dims.z && in->w >= 0 && in->w < in_dims.w;
    }
    default: {  // kTable: input row table[h], column table[b.x + w] (nearest resize).
      *in = (int4)(o.x, o.y, table[o.z], table[b.x + o.w]);
      return true;
    }
  }
}

__kernel void remap(__read_only image2d_t input, __write_only image2d_t output, int mode,
                    int4 in_dims, int4 out_dims, int4 a, int4 b, float fill,
                    __global const int* table) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  int4 o;
  if (!pixel_origin(x, y, out_dims, &o)) return;
  float4 value = 0;
  for (int lane = 0; lane < 4 && o.y + lane < out_dims.y; ++lane) {
    int4 in;
    const int4 at = o + (int4)(0, lane, 0, 0);
    const float v =
        remap_source(mode, at, out_dims, in_dims, a, b, table, &in) ? read_element(input, in, in_dims)
                                                                    : fill;
    value = with_lane(value, lane, v);
  }
  write_imagef(output, (int2)(x, y), value);
}
