package com.mace;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The .npy files mace_run reads and writes: version 1.0, little-endian, C order. */
final class Npy {
  final String descr;
  final long[] shape;
  private final ByteBuffer data;

  private Npy(String descr, long[] shape, ByteBuffer data) {
    this.descr = descr;
    this.shape = shape;
    this.data = data;
  }

  static void write(Path path, float[] values, long[] shape) throws IOException {
    StringBuilder dims = new StringBuilder();
    for (long dim : shape) dims.append(dim).append(", ");
    String header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
    int total = 10 + header.length() + 1;
    header += " ".repeat((64 - total % 64) % 64) + "\n";
    ByteBuffer out = ByteBuffer.allocate(10 + header.length() + 4 * values.length)
        .order(ByteOrder.LITTLE_ENDIAN);
    out.put((byte) 0x93).put("NUMPY".getBytes(StandardCharsets.US_ASCII));
    out.put((byte) 1).put((byte) 0).putShort((short) header.length());
    out.put(header.getBytes(StandardCharsets.US_ASCII));
    for (float value : values) out.putFloat(value);
    Files.write(path, out.array());
  }

  static Npy read(Path path) throws IOException {
    ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(path)).order(ByteOrder.LITTLE_ENDIAN);
    if (in.get(0) != (byte) 0x93 || in.get(6) != 1) {
      throw new IOException(path + " is not a version 1 .npy file");
    }
    int length = in.getShort(8) & 0xffff;
    String header = new String(in.array(), 10, length, StandardCharsets.US_ASCII);
    Matcher descr = Pattern.compile("'descr': *'([^']*)'").matcher(header);
    Matcher shape = Pattern.compile("'shape': *\\(([^)]*)\\)").matcher(header);
    if (!descr.find() || !shape.find() || header.contains("'fortran_order': True")) {
      throw new IOException(path + ": unexpected header " + header);
    }
    String[] parts = shape.group(1).split(",");
    int rank = 0;
    long[] dims = new long[parts.length];
    for (String part : parts) {
      if (!part.trim().isEmpty()) dims[rank++] = Long.parseLong(part.trim());
    }
    in.position(10 + length);
    return new Npy(descr.group(1), java.util.Arrays.copyOf(dims, rank),
        in.slice().order(ByteOrder.LITTLE_ENDIAN));
  }

  float[] floats() {
    float[] values = new float[data.remaining() / 4];
    data.duplicate().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(values);
    return values;
  }

  int[] ints() {
    int[] values = new int[data.remaining() / 4];
    data.duplicate().order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(values);
    return values;
  }
}
