// Net: the ops of one NetDef in execution order, each placed on a runtime
// (the engine's device, or the CPU where the device lacks the op), with
// converters inserted where storages meet, memory planned at Init per memory
// type (and again on the CPU for each new shape of a dynamic input), and
// per-op timing at Run.
#ifndef MACE_CORE_NET_H_
#define MACE_CORE_NET_H_

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mace/core/arena_plan.h"
#include "mace/core/converter_registry.h"
#include "mace/core/executor.h"
#include "mace/core/op_registry.h"
#include "mace/core/runtime.h"
#include "mace/core/shared_arena.h"
#include "mace/core/workspace.h"

namespace mace {

class RunControl;

struct NetOptions {
  MemoryStrategy memory_strategy = MemoryStrategy::OPTIMAL;
  int64_t plan_time_limit_ms = kDefaultPlanTimeLimitMs;
  int64_t plan_step_limit = PlanStepLimit(kDefaultPlanTimeLimitMs);
  bool preserve_intermediates = false;
  bool preserve_inputs = true;
  int64_t arena_alignment = 64;
  // Keep runs of CPU ops with channel-blocked kernels in the blocked layout
  // (net_layout.cc). preserve_intermediates turns it off, so that every
  // intermediate stays readable as NCHW; so does MACE_CPU_BLOCKED_LAYOUT=0,
  // through the ops.
  bool blocked_layout = true;
  // Bytes the planned memory (every arena and image of the net) may take;
  // 0: no limit beyond the engine's own (kMaxByteCount per buffer).
  int64_t memory_limit = 0;
  // Called after each op with its float outputs (MaceEngineConfig::
  // SetOutputObserver); empty costs one test per op.
  OutputObserver output_observer;
  // Init plans no memory: the executor that wraps the net calls
  // PlanHostMemory once it knows which tensors live elsewhere.
  bool defer_memory_plan = false;
  // Plain CPU model inputs get no arena bytes: the engine points them at the
  // app's input buffers for each Run (Executor::InputReadInPlace).
  bool inputs_in_app_buffers = false;
  // The engine's part of its context's shared CPU arena: the CPU_BUFFER
  // plan goes there instead of into an arena of the net's own. Not for
  // subgraph nets, which keep their own.
  SharedArena::Member* shared_arena = nullptr;
};

// The runtimes a net places ops on: the engine's device, and the CPU that
// runs what the device does not. On a CPU engine they are one runtime.
struct NetRuntimes {
  Runtime* device = nullptr;
  Runtime* cpu = nullptr;
};

// What a net hands the control-flow ops it makes (control_flow.h): the
// model's subgraph list (valid while the top net initializes), its weights
// blob, and the subgraphs that enclose this net, outermost first.
struct SubgraphEnv {
  const google::protobuf::RepeatedPtrField<NetDef>* subgraphs = nullptr;
  std::shared_ptr<WeightsBlob> weights;
  std::vector<int64_t> stack;
  // Subgraph nets built so far for the whole model (control_flow.h bounds
  // it: nested subgraphs multiply).
  std::shared_ptr<int64_t> nets_built;
};

class Net : public Executor {
 public:
  Net(const OpRegistry* registry, const ConverterRegistry* converters, NetRuntimes runtimes,
      Workspace* workspace, NetOptions options);

  // Creates the model inputs (shapes from input_info), places, builds and
  // prepares every op, and plans memory for the intermediates.
  MaceStatus Init(const NetDef& net_def, const std::vector<std::string>& output_names) override;
  MaceStatus Run(RunMetadata* run_metadata) override;
  Tensor* InputTensor(const std::string& name) override;
  const Tensor* OutputTensor(const std::string& name) const override;
  // op_bytes is summed over the ops when asked: some keep buffers they
  // size at their first run.
  const MemoryReport& memory_report() const override;
  // Dynamic inputs (InputOutputInfo.max_dims): a shape within the declared
  // ranges that differs from the planned one makes every op infer its
  // output shapes again (Prepare) and memory be planned again with the same
  // strategy; the planned shapes cost nothing. Only a net whose ops all run
  // on the CPU, without control flow, re-plans; others refuse a new shape.
  MaceStatus Reshape(const std::map<std::string, std::vector<int64_t>>& shapes) override;
  // Ops whose output shapes depend on input values (Operation::
  // output_shape_source): a bounded one (NonMaxSuppression) is planned for
  // its largest shape and sets the one it computes at Run; an unbounded one
  // (a Pad of computed pads) is prepared at Init with empty outputs, and
  // the ops that read them are not prepared at Init at all. Run prepares
  // each such op, and every op whose input shapes changed, before it runs;
  // an output that then needs more bytes than its plan gives gets memory of
  // its own (NetOptions::memory_limit counts it) until the next re-plan.
  // Such tensors share no bytes with others (no aliases, no concat
  // slices), and only CPU ops may read them.
  std::vector<int64_t> InputMaxShape(const std::string& name) override;
  bool OutputShapesVary() const override { return dynamic_ || data_dependent_; }
  bool InputReadInPlace(const std::string& name) const override {
    return app_inputs_.count(name) > 0;
  }

  // Plans and allocates memory, once, for every activation except those in
  // `elsewhere` (tensors another executor keeps in its own memory, such as
  // those that live only inside a DSP graph); they get none. For a net
  // made with NetOptions::defer_memory_plan.
  MaceStatus PlanHostMemory(const std::set<const Tensor*>& elsewhere,
                            const std::vector<std::string>& output_names);

  const std::vector<std::unique_ptr<Operation>>& ops() const { return ops_; }
  Workspace* workspace() const { return workspace_; }
  // Makes this the net of a subgraph (before Init): `env` as built by the
  // control-flow op that runs it.
  void set_subgraph_env(SubgraphEnv env) { env_ = std::move(env); }
  // Converter ops inserted between storages (runtimes, layouts or types),
  // not counting the CPU's own blocked-layout conversions.
  int converter_count() const { return converter_count_; }

 private:
  // Ends a Run that its RunControl stopped: lets the runtimes finish, then
  // returns the stop status.
  MaceStatus FinishStoppedRun(const RunControl& control);
  MaceStatus CreateInputs(const NetDef& net_def);
  MaceStatus CreateOps(const NetDef& net_def);
  // The runtime and kernel for `def`: its requested device where that
  // runtime has a kernel and supports it, else the CPU.
  MaceStatus Place(const OperatorDef& def, int index, std::unique_ptr<Operation>* op);
  // A tensor holding `tensor` in `storage`: the tensor itself, or the output
  // of a converter op (made once per tensor and storage, and prepared).
  MaceStatus Converted(const Tensor* tensor, const Storage& storage, const Tensor** converted);
  // A prepared `converter` op named `name` that reads `tensor` and writes
  // it in `storage`.
  MaceStatus MakeConverter(const Converter& converter, const Tensor* tensor, const Storage& storage,
                           const std::string& name, std::unique_ptr<Operation>* op);
  // Model outputs in another storage than plain CPU get a converter to one.
  MaceStatus ConvertOutputs(const std::vector<std::string>& output_names);
  Runtime* RuntimeFor(DeviceType device) const;
  // True when weights are read, and only by kernels that copied them to
  // their device at Prepare (every CPU kernel may read them at Run): Init
  // then drops the host weights.
  bool WeightsOnlyOnDevices() const;
  // Chooses which ops run channel-blocked, inserts the layout conversions
  // where blocked and plain ops meet, and switches the blocked ops over.
  MaceStatus PlanBlockedLayout(const std::vector<std::string>& output_names);
  bool BlockedLayoutEnabled() const;
  // Lets each blocked op, last first, fuse with the blocked op that alone
  // reads its output (never a model output), which may itself have fused
  // with its reader, where the op registry has a fusion for the pair's
  // types (OpRegistry::RegisterFusion); drops the absorbed readers from
  // ops_ and `blocked_ops`, and returns how many.
  int FuseBlockedReaders(const std::set<std::string>& outputs,
                         std::vector<Operation*>* blocked_ops);
  // Shows the plain float CPU outputs of `op` to the output observer.
  void Observe(const Operation& op) const;
  // `elsewhere`: activations that get no memory (PlanHostMemory).
  MaceStatus PlanMemory(const std::vector<std::string>& input_names,
                        const std::vector<std::string>& output_names,
                        const std::set<const Tensor*>& elsewhere = {});
  // Prepares every op again for the inputs' current shapes and plans memory
  // anew (Reshape).
  MaceStatus Replan();
  // The shapes of `op`'s inputs ({-1} for a missing optional one).
  static std::vector<std::vector<int64_t>> InputShapes(const Operation& op);
  // In a data-dependent net's Run: prepares op `index` again if its output
  // shapes depend on values or its input shapes changed, and gives each
  // output that outgrew its memory memory of its own (OwnMemory).
  MaceStatus PrepareAtRun(size_t index, OpContext* context);
  // Memory of its own, outside the plan, for `tensor` at its current size.
  MaceStatus OwnMemory(Tensor* tensor, const Operation& op);
  // Whether `op`'s output shapes depend on input values.
  static bool ShapesFollowValues(const Operation& op) {
    return op.output_shape_source() != OutputShapeSource::kInputShapes;
  }
  // Whether `op` reads a tensor whose shape is known only at run time.
  bool ReadsRunTimeShape(const Operation& op) const;
  // Notes `op`'s outputs in varying_ (and in run_time_shaped_ when
  // `unknown`) once the op is built.
  void NoteVaryingOutputs(const Operation& op, bool unknown);
  // Why this net cannot re-plan, or empty.
  std::string ReplanBlocker() const;
  // Checks `shape` for model input `name` against its declared range.
  MaceStatus CheckInputShape(const std::string& name, const std::vector<int64_t>& shape) const;
  // A tensor that lives inside a planned one (an in-place alias, a slice of
  // a concat output): `size` bytes at `offset` in order[root]'s.
  struct Follower {
    Tensor* tensor;
    size_t root;
    int64_t offset;
    int64_t size;
  };
  // Plans and allocates one memory type's tensors (`order`, with records of
  // the same index) through `runtime`. A shared arena binds `followers`
  // with their roots each time it is laid out again.
  MaceStatus PlanMemoryType(MemoryType type, Runtime* runtime, const std::vector<Tensor*>& order,
                            const std::vector<ArenaRecord>& records,
                            const std::vector<Follower>& followers);
  // Counts `bytes` more of planned memory against options_.memory_limit.
  MaceStatus ReserveMemory(int64_t bytes, const std::string& what);
  // GPU_IMAGE tensors: shared 2D images from the image planner.
  MaceStatus PlanImages(Runtime* runtime, const std::vector<Tensor*>& order,
                        const std::vector<ArenaRecord>& records);

  // An input of a concatenating op placed inside that op's output.
  struct Slice {
    const Tensor* whole = nullptr;
    int64_t offset = 0;  // bytes
  };
  // Picks the inputs of ops with OutputConcatenatesInputs() that can live
  // inside the output: see net_memory.cc.
  void PlanConcatSlices(const std::set<std::string>& inputs, const std::set<std::string>& outputs,
                        const std::map<const Tensor*, int>& last_use,
                        std::map<const Tensor*, Slice>* slices) const;

  const OpRegistry* registry_;
  const ConverterRegistry* converters_;
  NetRuntimes runtimes_;
  Workspace* workspace_;
  NetOptions options_;
  std::vector<std::unique_ptr<Operation>> ops_;
  DataType net_type_ = DT_FLOAT;  // NetDef.data_type: the ops' default kernel type
  std::vector<std::string> input_names_;
  std::vector<std::string> output_names_;
  // Model input name -> the shape planned at Init and the largest shape it
  // takes (the same for a fixed input).
  std::map<std::string, std::pair<std::vector<int64_t>, std::vector<int64_t>>> input_ranges_;
  bool dynamic_ = false;  // some input has a dynamic dimension
  // Some op's output shape depends on input values (ShapesFollowValues):
  // Run prepares the ops after it again when the shapes they get change.
  bool data_dependent_ = false;
  // Tensors whose shapes may change from run to run with values (outputs
  // of such ops and of every op after them that reads one), and among
  // them those of unknown shape until Run (outputs of kInputValues ops
  // and of the ops that read one: those are prepared at Run only).
  std::set<const Tensor*> varying_;
  std::set<const Tensor*> run_time_shaped_;
  std::set<const Operation*> prepared_at_run_only_;
  // Memory of its own for a tensor that outgrew its plan (OwnMemory), and
  // its bytes, which memory_limit counts beside the plan's.
  std::map<const Tensor*, std::unique_ptr<Memory>> own_memories_;
  int64_t own_bytes_ = 0;
  bool planned_ = false;  // memory is planned for the inputs' current shapes
  // Per op, the input shapes of its last successful Prepare (dynamic and
  // data-dependent nets only; an op that failed has none): Replan and Run
  // prepare again only the ops whose input shapes changed.
  std::vector<std::optional<std::vector<std::vector<int64_t>>>> prepared_shapes_;
  int64_t replans_ = 0;
  // Model output name -> the host tensor the app reads.
  std::map<std::string, const Tensor*> outputs_;
  // Converted copies, by source tensor and target storage.
  std::map<std::pair<const Tensor*, std::string>, const Tensor*> converted_;
  int converter_count_ = 0;
  std::vector<std::unique_ptr<Memory>> memories_;
  int64_t reserved_bytes_ = 0;  // planned memory so far (ReserveMemory)
  mutable MemoryReport memory_report_;
  // Model inputs read from the app's buffers (NetOptions::inputs_in_app_buffers).
  std::set<std::string> app_inputs_;
  SubgraphEnv env_;
};

}  // namespace mace

#endif  // MACE_CORE_NET_H_
