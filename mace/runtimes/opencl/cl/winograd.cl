// Winograd F(2x2, 3x3) convolution (stride 1, dilation 1) in three
// kernels. The output is cut into 2x2 tiles, numbered
// tile = (n * tiles_h + ty) * tiles_w + tx; each tile reads a 4x4 input
// patch at (2 * ty - pad_top, 2 * tx - pad_left). With the transforms
//   V = B^T d B,  U = G g G^T (on the host, at init),  Y = A^T (U . V) A,
// the 16 positions t of the 4x4 transformed tile are 16 independent
// matrix products M[t] = U[t] (Cout x Cin) * V[t] (Cin x tiles).
//
// U, V and M are height-major images of [16, 1, rows, columns] tensors
// (image_layout.h): pixel (column, t * ceil(rows/4) + row/4) holds rows
// row..row+3 of position t.
//   V: [16, 1, Cin, tiles]   image [tiles, 16 * ceil(Cin/4)]
//   U: [16, 1, Cout, Cin]    image [Cin, 16 * ceil(Cout/4)]
//   M: [16, 1, Cout, tiles]  image [tiles, 16 * ceil(Cout/4)]

// Input pixel (x, y) of one image row band; 0 outside the tensor (padding).
inline DATA4 winograd_read(__read_only image2d_t input, int block, int n, int in_h, int in_w,
                           int y, int x) {
  if (y < 0 || y >= in_h || x < 0 || x >= in_w) return (DATA4)0;
  return READ_PIXEL(input, (int2)(block * in_w + x, n * in_h + y));
}

// Global size: [tiles, ceil(Cin/4)]. Each work-item transforms one tile of
// one input channel block.
__kernel void winograd_input_transform(__read_only image2d_t input,
                                       __write_only image2d_t transformed, int in_h, int in_w,
                                       int in_blocks, int tiles_h, int tiles_w, int tiles,
                                       int pad_top, int pad_left) {
  const int tile = get_global_id(0);
  const int block = get_global_id(1);
  if (tile >= tiles || block >= in_blocks) return;
  const int per_image = tiles_h * tiles_w;
  const int n = tile / per_image;
  const int ty = (tile - n * per_image) / tiles_w;
  const int tx = tile - n * per_image - ty * tiles_w;
  const int y0 = ty * 2 - pad_top;
  const int x0 = tx * 2 - pad_left;
  DATA4 d[4][4];
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      d[i][j] = winograd_read(input, block, n, in_h, in_w, y0 + i, x0 + j);
    }
  }
  // B^T d: rows.
  DATA4 r[4][4];
  for (int j = 0; j < 4; ++j) {
    r[0][j] = d[0][j] - d[2][j];
    r[1][j] = d[1][j] + d[2][j];
    r[2][j] = d[2][j] - d[1][j];
    r[3][j] = d[1][j] - d[3][j];
  }
  // (B^T d) B: columns, written as positions t = 4 * i + j.
  for (int i = 0; i < 4; ++i) {
    const int y = (i * 4) * in_blocks + block;
    WRITE_PIXEL(transformed, (int2)(tile, y), r[i][0] - r[i][2]);
    WRITE_PIXEL(transformed, (int2)(tile, y + in_blocks), r[i][1] + r[i][2]);
    WRITE_PIXEL(transformed, (int2)(tile, y + 2 * in_blocks), r[i][2] - r[i][1]);
    WRITE_PIXEL(transformed, (int2)(tile, y + 3 * in_blocks), r[i][1] - r[i][3]);
  }
}

// Global size: [ceil(tiles/4), 16 * ceil(Cout/4)]. Each work-item computes
// four output channels of four tiles at one position t, reusing each of
// the four filter pixels of an input channel block four times.
__kernel void winograd_gemm(__read_only image2d_t transformed, __read_only image2d_t filter,
                            __write_only image2d_t product, int in_blocks, int in_channels,
                            int out_blocks, int tiles) {
  const int tile = get_global_id(0) * 4;
  const int row = get_global_id(1);
  if (tile >= tiles || row >= 16 * out_blocks) return;
  const int t = row / out_blocks;
  DATA4 acc[4] = {(DATA4)0, (DATA4)0, (DATA4)0, (DATA4)0};
  for (int ib = 0; ib < in_blocks; ++ib) {
    const int c = ib * 4;
    // Filter columns past Cin are outside the image and read as 0; the
    // transformed input's lanes there are 0 too.
    const DATA4 w0 = READ_PIXEL(filter, (int2)(c, row));
    const DATA4 w1 = c + 1 < in_channels ? READ_PIXEL(filter, (int2)(c + 1, row)) : (DATA4)0;
    const DATA4 w2 = c + 2 < in_channels ? READ_PIXEL(filter, (int2)(c + 2, row)) : (DATA4)0;
    const DATA4 w3 = c + 3 < in_channels ? READ_PIXEL(filter, (int2)(c + 3, row)) : (DATA4)0;
    const int y = t * in_blocks + ib;
    for (int k = 0; k < 4; ++k) {
      const DATA4 v = READ_PIXEL(transformed, (int2)(tile + k, y));
      acc[k] = mad((DATA4)v.x, w0, acc[k]);
      acc[k] = mad((DATA4)v.y, w1, acc[k]);
      acc[k] = mad((DATA4)v.z, w2, acc[k]);
      acc[k] = mad((DATA4)v.w, w3, acc[k]);
    }
  }
  for (int k = 0; k < 4 && tile + k < tiles; ++k) {
    WRITE_PIXEL(product, (int2)(tile + k, row), acc[k]);
  }
}

inline void winograd_store(__write_only image2d_t output, DATA4 value, int block, int n,
                           int out_h, int out_w, int y, int x, int out_channels, int act,
                           float limit, float alpha, float beta) {
  if (y >= out_h || x >= out_w) return;
  value = mask_lanes(activate(value, act, limit, alpha, beta), block, out_channels);
  WRITE_PIXEL(output, (int2)(block * out_w + x, n * out_h + y), value);
}

// Global size: [tiles, ceil(Cout/4)]. Each work-item turns the 16
// positions of one tile and output channel block into its 2x2 outputs,
// adds the bias and applies the activation; tail tiles of odd heights and
// widths write only the outputs that exist.
__kernel void winograd_output_transform(__read_only image2d_t product,
                                        __read_only image2d_t bias, int has_bias,
                                        __write_only image2d_t output, int out_h, int out_w,
                                        int out_channels, int out_blocks, int tiles_h,
                                        int tiles_w, int tiles, int act, float limit,
                                        float alpha, float beta) {
  const int tile = get_global_id(0);
  const int block = get_global_id(1);
  if (tile >= tiles || block >= out_blocks) return;
  DATA4 m[4][4];
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      m[i][j] = READ_PIXEL(product, (int2)(tile, (i * 4 + j) * out_blocks + block));
    }
  }
  // A^T m: two rows; then (A^T m) A: two columns.
  DATA4 s[2][4];
  for (int j = 0; j < 4; ++j) {
    s[0][j] = m[0][j] + m[1][j] + m[2][j];
    s[1][j] = m[1][j] - m[2][j] - m[3][j];
  }
  const DATA4 b = has_bias ? READ_PIXEL(bias, (int2)(block, 0)) : (DATA4)0;
  const int per_image = tiles_h * tiles_w;
  const int n = tile / per_image;
  const int ty = (tile - n * per_image) / tiles_w;
  const int tx = tile - n * per_image - ty * tiles_w;
  for (int i = 0; i < 2; ++i) {
    const DATA4 left = s[i][0] + s[i][1] + s[i][2] + b;
    const DATA4 right = s[i][1] - s[i][2] - s[i][3] + b;
    winograd_store(output, left, block, n, out_h, out_w, ty * 2 + i, tx * 2, out_channels, act,
                   limit, alpha, beta);
    winograd_store(output, right, block, n, out_h, out_w, ty * 2 + i, tx * 2 + 1, out_channels,
                   act, limit, alpha, beta);
  }
}
