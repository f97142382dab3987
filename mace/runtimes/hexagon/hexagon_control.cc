#include "mace/runtimes/hexagon/hexagon_control.h"

#include <cstring>

#include "mace/utils/status.h"

namespace mace {
namespace hexagon {

MaceStatus HexagonControl::Init() {
  graphs_.clear();
  return channel_.Open(config_);
}

void HexagonControl::Finalize() {
  graphs_.clear();
  channel_.Close();
}

MaceStatus HexagonControl::Request(const char* what, uint32_t type,
                                   const std::vector<uint32_t>& params, const void* payload,
                                   size_t size, DspReply* reply) {
  const MaceStatus status = channel_.Call(type, params, payload, size, reply);
  if (!status.ok()) {
    graphs_.clear();
    return MaceStatus(status.code(), StrCat(what, ": ", status.information()));
  }
  last_dsp_time_us_ = reply->dsp_time_us;
  if (reply->status == dsp::kOk) return MaceStatus::MACE_SUCCESS;
  const std::string text(reply->payload.begin(), reply->payload.end());
  const MaceStatus::Code code = reply->status == dsp::kInvalidGraph ? MaceStatus::MACE_INVALID_ARGS
                                : reply->status == dsp::kOutOfMemory
                                    ? MaceStatus::MACE_OUT_OF_RESOURCES
                                    : MaceStatus::MACE_RUNTIME_ERROR;
  return MaceStatus(code, StrCat(what, ": the DSP refused (status ", reply->status, "): ", text));
}

MaceStatus HexagonControl::SetupGraph(const SerializedGraph& graph, uint32_t slot) {
  MACE_CHECK_ARG(slot < dsp::kMaxGraphs, "SetupGraph: graph slot ", slot, " is not below ",
                 dsp::kMaxGraphs);
  graphs_.erase(slot);
  DspReply reply;
  MACE_RETURN_IF_ERROR(Request("SetupGraph", dsp::kSetupGraph, {slot}, graph.blob.data(),
                               graph.blob.size(), &reply));
  graphs_[slot] = {graph.input_bytes, graph.output_bytes, graph.num_ops};
  return MaceStatus::MACE_SUCCESS;
}

MaceStatus HexagonControl::ExecuteGraph(const std::vector<DspBuffer>& inputs,
                                        std::vector<std::vector<uint8_t>>* outputs,
                                        uint32_t slot, std::vector<dsp::OpProfile>* profile) {
  auto found = graphs_.find(slot);
  MACE_CHECK_ARG(found != graphs_.end(), "ExecuteGraph: no graph is set up",
                 slot != 0 ? StrCat(" in slot ", slot) : std::string());
  // A copy: a failed call clears the table.
  const std::vector<size_t> input_bytes = found->second.input_bytes;
  const std::vector<size_t> output_bytes = found->second.output_bytes;
  const uint32_t num_ops = found->second.num_ops;
  const size_t profile_bytes =
      profile != nullptr ? num_ops * sizeof(dsp::OpProfile) : 0;
  MACE_CHECK_ARG(inputs.size() == input_bytes.size(), "ExecuteGraph: ", inputs.size(),
                 " inputs given, the graph has ", input_bytes.size());
  size_t total = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    MACE_CHECK_ARG(inputs[i].size == input_bytes[i], "ExecuteGraph: input ", i, " has ",
                   inputs[i].size, " bytes, the graph takes ", input_bytes[i]);
    total += inputs[i].size;
  }
  std::vector<uint8_t> payload(total);
  size_t offset = 0;
  for (const DspBuffer& input : inputs) {
    if (input.size > 0) std::memcpy(payload.data() + offset, input.data, input.size);
    offset += input.size;
  }
  DspReply reply;
  const uint32_t flags = profile != nullptr ? dsp::kExecuteProfile : 0;
  MACE_RETURN_IF_ERROR(Request("ExecuteGraph", dsp::kExecute, {slot, flags}, payload.data(),
                               payload.size(), &reply));
  size_t expected = 0;
  for (size_t bytes : output_bytes) expected += bytes;
  if (reply.payload.size() != expected + profile_bytes) {
    return MaceStatus(MaceStatus::MACE_RUNTIME_ERROR,
                      StrCat("ExecuteGraph: the DSP returned ", reply.payload.size(),
                             " bytes, the graph has ", expected, " output bytes",
                             profile != nullptr ? StrCat(" and ", profile_bytes, " of profile")
                                                : std::string()));
  }
  if (profile != nullptr) {
    profile->resize(num_ops);
    if (profile_bytes > 0) {
      std::memcpy(profile->data(), reply.payload.data() + expected, profile_bytes);
    }
  }
  outputs->resize(output_bytes.size());
  offset = 0;
  for (size_t i = 0; i < output_bytes.size(); ++i) {
    (*outputs)[i].assign(reply.payload.begin() + offset,
                         reply.payload.begin() + offset + output_bytes[i]);
    offset += output_bytes[i];
  }
  return MaceStatus::MACE_SUCCESS;
}

MaceStatus HexagonControl::TeardownGraph(uint32_t slot) {
  graphs_.erase(slot);
  DspReply reply;
  return Request("TeardownGraph", dsp::kTeardown, {slot}, nullptr, 0, &reply);
}

MaceStatus HexagonControl::GetPerfInfo(dsp::PerfInfo* info) {
  DspReply reply;
  MACE_RETURN_IF_ERROR(Request("GetPerfInfo", dsp::kGetPerfInfo, {}, nullptr, 0, &reply));
  if (reply.payload.size() != sizeof(*info)) {
    return MaceStatus(MaceStatus::MACE_RUNTIME_ERROR, "GetPerfInfo: a reply of the wrong size");
  }
  std::memcpy(info, reply.payload.data(), sizeof(*info));
  return MaceStatus::MACE_SUCCESS;
}

MaceStatus HexagonControl::ResetPerfInfo() {
  DspReply reply;
  return Request("ResetPerfInfo", dsp::kResetPerfInfo, {}, nullptr, 0, &reply);
}

MaceStatus HexagonControl::PrintLog(std::string* log) {
  DspReply reply;
  MACE_RETURN_IF_ERROR(Request("PrintLog", dsp::kGetLog, {}, nullptr, 0, &reply));
  log->assign(reply.payload.begin(), reply.payload.end());
  return MaceStatus::MACE_SUCCESS;
}

MaceStatus HexagonControl::PrintGraph(std::string* text, uint32_t slot) {
  DspReply reply;
  MACE_RETURN_IF_ERROR(Request("PrintGraph", dsp::kPrintGraph, {slot}, nullptr, 0, &reply));
  text->assign(reply.payload.begin(), reply.payload.end());
  return MaceStatus::MACE_SUCCESS;
}

MaceStatus HexagonControl::SetDebugLevel(int level) {
  MACE_CHECK_ARG(level >= 0 && level <= 4, "SetDebugLevel: level ", level, " is not in [0, 4]");
  DspReply reply;
  return Request("SetDebugLevel", dsp::kSetDebugLevel, {static_cast<uint32_t>(level)}, nullptr, 0,
                 &reply);
}

}  // namespace hexagon
}  // namespace mace
