// The DSP runtime's message loop: reads framed requests from stdin, replies
// on stdout (protocol.h). Under qemu-hexagon the host's channel holds the
// other ends of both; on a real DSP this loop is what FastRPC's skeleton
// would dispatch to.
#include "mace/dsp/allocator.h"
#include "mace/dsp/graph.h"
#include "mace/dsp/protocol.h"
#include "mace/dsp/self_test.h"
#include "mace/dsp/sys.h"
#include "mace/dsp/text.h"

namespace mace {
namespace dsp {
namespace {

constexpr uint32_t kHeapBytes = 96u << 20;
alignas(128) uint8_t g_heap_memory[kHeapBytes];
char g_log_memory[8192];
char g_text_memory[65536];

struct Runtime {
  Allocator heap;
  Graph graphs[kMaxGraphs];
  Text log{g_log_memory, sizeof(g_log_memory)};
  Text text{g_text_memory, sizeof(g_text_memory)};
  int32_t debug_level = 0;
  PerfInfo perf = {};
};

void Reply(uint32_t status, const void* payload, uint32_t size, uint64_t start) {
  ReplyHeader header;
  header.magic = kReplyMagic;
  header.status = status;
  header.nbytes = size;
  header.dsp_time_us = static_cast<uint32_t>(NowMicros() - start);
  header.checksum = FrameChecksum(header, payload, size, nullptr, 0);
  if (!WriteFull(1, &header, sizeof(header)) || !WriteFull(1, payload, size)) SysExit(3);
}

void ReplyText(uint32_t status, Text* text, uint64_t start) {
  Reply(status, text->data(), text->size(), start);
  text->Clear();
}

#ifdef MACE_DSP_FAULT_HOOKS
void InjectFault(uint32_t fault, uint64_t start) {
  ReplyHeader header = {kReplyMagic, kOk, 64, 0, 0};
  switch (fault) {
    case kFaultExit:
      SysExit(7);
    case kFaultHang:
      for (volatile int spin = 0;; spin = spin + 1) {
      }
    case kFaultBadChecksum:
      header.nbytes = 0;
      header.checksum = FrameChecksum(header, nullptr, 0, nullptr, 0) ^ 1u;
      WriteFull(1, &header, sizeof(header));
      return;
    case kFaultTruncated:
      header.checksum = 0;
      WriteFull(1, &header, sizeof(header));
      WriteFull(1, "partial", 7);
      SysExit(0);
    case kFaultBadMagic:
      WriteFull(1, "this is not a reply header at all", 20);
      return;
    default:
      Reply(kBadRequest, "unknown fault", 13, start);
  }
}
#endif

void Dispatch(Runtime* rt, const RequestHeader& request, const uint32_t* params, uint8_t* payload,
              uint64_t start) {
  const uint32_t size = request.nbytes;
  // The graph slot of the graph messages.
  const uint32_t slot = request.nparams > 0 ? params[0] : 0;
  const bool graph_message = request.type == kSetupGraph || request.type == kExecute ||
                             request.type == kTeardown || request.type == kPrintGraph;
  if (graph_message && slot >= kMaxGraphs) {
    rt->text << "graph slot " << slot << " is not below " << kMaxGraphs;
    ReplyText(kBadRequest, &rt->text, start);
    rt->heap.Free(payload);
    return;
  }
  Graph& graph = rt->graphs[graph_message ? slot : 0];
  switch (request.type) {
    case kPing:
      Reply(kOk, payload, size, start);
      break;
    case kSetupGraph: {
      rt->text.Clear();
      // The graph keeps the payload (its constants live there).
      if (!graph.Setup(&rt->heap, payload, size, &rt->text)) {
        rt->log << "setup failed: " << rt->text.data() << "\n";
        ReplyText(kInvalidGraph, &rt->text, start);
        return;
      }
      if (rt->debug_level > 0) rt->log << "graph set up: " << graph.num_ops() << " ops\n";
      Reply(kOk, nullptr, 0, start);
      return;
    }
    case kExecute: {
      if (!graph.ready()) {
        Reply(kNoGraph, "no graph is set up", 18, start);
        break;
      }
      if (size != graph.input_bytes()) {
        rt->text << "execute: " << size << " input bytes, the graph takes "
                 << graph.input_bytes();
        ReplyText(kBadRequest, &rt->text, start);
        break;
      }
      const bool profile = request.nparams > 1 && (params[1] & kExecuteProfile) != 0;
      const uint32_t reply_bytes =
          graph.output_bytes() + (profile ? graph.num_ops() * sizeof(OpProfile) : 0);
      uint8_t* outputs = static_cast<uint8_t*>(rt->heap.Allocate(reply_bytes));
      if (outputs == nullptr) {
        Reply(kOutOfMemory, "no memory for the outputs", 25, start);
        break;
      }
      const uint64_t run_start = NowMicros();
      graph.Execute(payload, outputs, profile);
      const uint32_t run_us = static_cast<uint32_t>(NowMicros() - run_start);
      ++rt->perf.executions;
      rt->perf.total_time_us += run_us;
      rt->perf.last_time_us = run_us;
      if (rt->debug_level > 1) rt->log << "executed in " << run_us << " us\n";
      Reply(kOk, outputs, reply_bytes, start);
      rt->heap.Free(outputs);
      break;
    }
    case kTeardown:
      graph.Teardown();
      Reply(kOk, nullptr, 0, start);
      break;
    case kGetPerfInfo:
      rt->perf.nodes = 0;
      rt->perf.arena_bytes = 0;
      for (const Graph& each : rt->graphs) {
        rt->perf.nodes += each.num_ops();
        rt->perf.arena_bytes += each.arena_bytes();
      }
      rt->perf.heap_used_bytes = rt->heap.used_bytes();
      Reply(kOk, &rt->perf, sizeof(rt->perf), start);
      break;
    case kResetPerfInfo:
      rt->perf = PerfInfo{};
      Reply(kOk, nullptr, 0, start);
      break;
    case kGetLog:
      ReplyText(kOk, &rt->log, start);
      break;
    case kPrintGraph:
      if (!graph.ready()) {
        Reply(kNoGraph, "no graph is set up", 18, start);
        break;
      }
      graph.Print(&rt->text);
      ReplyText(kOk, &rt->text, start);
      break;
    case kSetDebugLevel:
      if (request.nparams < 1) {
        Reply(kBadRequest, "the level is missing", 20, start);
        break;
      }
      rt->debug_level = static_cast<int32_t>(params[0]);
      Reply(kOk, nullptr, 0, start);
      break;
    case kSelfTest: {
      const uint32_t which = request.nparams > 0 ? params[0] : 0;
      uint32_t reply_size = 0;
      uint8_t* reply = nullptr;
      const uint32_t status =
          RunSelfTest(which, &rt->heap, payload, size, &reply, &reply_size, &rt->text);
      if (status == kOk) {
        Reply(kOk, reply, reply_size, start);
      } else {
        ReplyText(status, &rt->text, start);
      }
      rt->heap.Free(reply);
      break;
    }
#ifdef MACE_DSP_FAULT_HOOKS
    case kFault:
      InjectFault(request.nparams > 0 ? params[0] : 0, start);
      break;
#endif
    default:
      rt->text << "unknown message type " << request.type;
      ReplyText(kUnknownMessage, &rt->text, start);
  }
  if (request.type != kSetupGraph) rt->heap.Free(payload);
}

int Main() {
  static Runtime runtime;
  Runtime* rt = &runtime;
  rt->heap.Init(g_heap_memory, kHeapBytes);
  uint32_t params[kMaxParams];
  for (;;) {
    RequestHeader request;
    if (!ReadFull(0, &request, sizeof(request))) return 0;  // the host closed the channel
    const uint64_t start = NowMicros();
    if (request.magic != kRequestMagic || request.nparams > kMaxParams ||
        request.nbytes > kMaxPayloadBytes) {
      // The stream is out of step; nothing after this can be trusted.
      Reply(kBadRequest, "bad request header", 18, start);
      return 2;
    }
    if (!ReadFull(0, params, request.nparams * 4)) return 2;
    uint8_t* payload = nullptr;
    if (request.nbytes > 0) {
      payload = static_cast<uint8_t*>(rt->heap.Allocate(request.nbytes));
      if (payload == nullptr) {
        // Drain the payload to stay in step.
        uint8_t sink[256];
        for (uint32_t left = request.nbytes; left > 0;) {
          const uint32_t n = left < sizeof(sink) ? left : sizeof(sink);
          if (!ReadFull(0, sink, n)) return 2;
          left -= n;
        }
        Reply(kOutOfMemory, "no memory for the request", 25, start);
        continue;
      }
      if (!ReadFull(0, payload, request.nbytes)) return 2;
    }
    if (FrameChecksum(request, params, request.nparams * 4, payload, request.nbytes) !=
        request.checksum) {
      rt->heap.Free(payload);
      Reply(kBadChecksum, "request checksum mismatch", 25, start);
      continue;
    }
    Dispatch(rt, request, params, payload, start);
  }
}

}  // namespace
}  // namespace dsp
}  // namespace mace

extern "C" {

typedef void (*InitFunction)();
extern InitFunction __init_array_start[] __attribute__((weak));
extern InitFunction __init_array_end[] __attribute__((weak));

[[noreturn]] void dsp_entry(void* /*initial_sp*/) {
  for (InitFunction* f = __init_array_start; f != __init_array_end; ++f) (*f)();
  mace::dsp::SysExit(mace::dsp::Main());
}

}  // extern "C"
