// Writes testing/split_model.h's model as OUT.pb and OUT.data, for the
// mace_run end-to-end test: write_split_model OUT
#include <cstdio>
#include <fstream>
#include <string>

#include "mace/runtimes/opencl/testing/split_model.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_split_model OUT\n");
    return 1;
  }
  const mace::testing::ModelBuilder model = mace::testing::SplitModel();
  const std::string out = argv[1];
  std::ofstream graph(out + ".pb", std::ios::binary);
  graph << model.Graph();
  std::ofstream data(out + ".data", std::ios::binary);
  data << model.data;
  return graph.good() && data.good() ? 0 : 1;
}
