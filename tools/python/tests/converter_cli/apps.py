"""Small C++ apps that use a packaged library the way an app would, and the
helpers that compile them with g++ and run them."""
from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Sequence

import numpy as np

# argv: model.pb model.data input.raw  ->  prints the output floats.
PROTO_APP = r"""
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <vector>

#include "mace/public/mace.h"

static std::vector<unsigned char> ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<unsigned char>((std::istreambuf_iterator<char>(in)),
                                    std::istreambuf_iterator<char>());
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const std::vector<unsigned char> graph = ReadFile(argv[1]);
  mace::MaceEngineConfig config(mace::DeviceType::CPU);
  std::shared_ptr<mace::MaceEngine> engine;
  mace::MaceStatus status = mace::CreateMaceEngineFromProto(
      graph.data(), graph.size(), argv[2], {"image"}, {"prob"}, config, &engine);
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  const std::vector<unsigned char> raw = ReadFile(argv[3]);
  std::shared_ptr<float> input(new float[raw.size() / 4], std::default_delete<float[]>());
  std::copy(raw.begin(), raw.end(), reinterpret_cast<unsigned char*>(input.get()));
  std::map<std::string, mace::MaceTensor> inputs = {
      {"image", mace::MaceTensor({1, 3, 8, 8}, input)}};
  std::map<std::string, mace::MaceTensor> outputs;
  status = engine->Run(inputs, &outputs);
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  const mace::MaceTensor& prob = outputs["prob"];
  for (int64_t i = 0; i < prob.size(); ++i) std::printf("%.9g\n", prob.data().get()[i]);
  return 0;
}
"""

# argv: input.raw [model.data]  ->  the model compiled in as code.
CODE_APP = r"""
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <vector>

#include "mace/public/mace.h"
#include "mace/public/mace_engine_factory.h"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  mace::MaceEngineConfig config(mace::DeviceType::CPU);
  std::shared_ptr<mace::MaceEngine> engine;
  mace::MaceStatus status = mace::CreateMaceEngineFromCode(
      "tiny", argc > 2 ? argv[2] : nullptr, {"image"}, {"prob"}, config, &engine);
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::vector<char> raw((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
  std::shared_ptr<float> input(new float[raw.size() / 4], std::default_delete<float[]>());
  std::copy(raw.begin(), raw.end(), reinterpret_cast<char*>(input.get()));
  std::map<std::string, mace::MaceTensor> inputs = {
      {"image", mace::MaceTensor({1, 3, 8, 8}, input)}};
  std::map<std::string, mace::MaceTensor> outputs;
  status = engine->Run(inputs, &outputs);
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  const mace::MaceTensor& prob = outputs["prob"];
  for (int64_t i = 0; i < prob.size(); ++i) std::printf("%.9g\n", prob.data().get()[i]);
  std::shared_ptr<mace::MaceEngine> missing;
  status = mace::CreateMaceEngineFromCode("absent", nullptr, {}, {}, config, &missing);
  std::fprintf(stderr, "%s\n", status.ToString().c_str());
  return 0;
}
"""

# The memory planner on its own, through the headers the package ships.
PLANNER_APP = r"""
#include <cstdio>
#include <vector>

#include "mace/core/memory/planner.h"

int main() {
  using namespace mace::memory;
  const std::vector<UsageRecord> records = {{1024, 0, 1}, {2048, 1, 2}, {512, 2, 3}};
  OffsetsPlan plan;
  const Status status = PlanOffsets(records, Strategy::kGreedyBySize, PlanOptions(), &plan);
  if (!status.ok()) return 1;
  for (const auto offset : plan.assignment.offsets) std::printf("%lld ", (long long)offset);
  std::printf("%lld %lld\n", (long long)plan.assignment.total_size,
              (long long)plan.lower_bound);
  return 0;
}
"""


def compile_app(source: str, out: Path, include_dirs: Sequence[Path], sources: Sequence[Path],
                libraries: Sequence[str]) -> Path:
    main = out.with_suffix(".cc")
    main.write_text(source)
    command = ["g++", "-std=c++17", "-O1", str(main), *map(str, sources), "-o", str(out)]
    command += [f"-I{d}" for d in include_dirs] + list(libraries)
    result = subprocess.run(command, text=True, capture_output=True, timeout=600)
    if result.returncode != 0:
        raise AssertionError(f"g++ failed:\n{' '.join(command)}\n{result.stderr[-3000:]}")
    return out


def run_app(command: Sequence[str], env: dict | None = None) -> tuple[np.ndarray, str]:
    result = subprocess.run(list(command), text=True, capture_output=True, timeout=120,
                            env=env)
    if result.returncode != 0:
        raise AssertionError(f"{command[0]} failed: {result.stderr}")
    return np.array([float(v) for v in result.stdout.split()], np.float32), result.stderr
