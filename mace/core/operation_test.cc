// The argument rules every op gets from Operation: a getter refuses an
// argument in the wrong field, and Construct refuses arguments Init never
// asked for.
#include "mace/core/operation.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/core/workspace.h"

namespace mace {
namespace {

// Reads one argument of each kind, as a real op's Init does.
class ReadsEveryKind : public Operation {
 public:
  MaceStatus Init() override {
    level = GetInt("level", 7);
    scale = GetFloat("scale", 0.5f);
    number = GetNumber("number", 1.0);
    mode = GetString("mode", "plain");
    sizes = GetInts("sizes");
    weights = GetFloats("weights");
    has_flag = HasArg("flag");
    return MaceStatus();
  }
  MaceStatus Prepare(OpContext*) override { return MaceStatus(); }
  MaceStatus Run(OpContext*) override { return MaceStatus(); }

  int64_t level = 0;
  float scale = 0.f;
  double number = 0.0;
  std::string mode;
  std::vector<int64_t> sizes;
  std::vector<float> weights;
  bool has_flag = false;
};

// Reads nothing in Init, as a custom op that reads its arguments later.
class ReadsLater : public ReadsEveryKind {
 public:
  MaceStatus Init() override { return MaceStatus(); }

 protected:
  bool RefusesUnreadArgs() const override { return false; }
};

OperatorDef Def() {
  OperatorDef def;
  def.set_type("Probe");
  def.set_name("probe1");
  def.add_output("y");
  return def;
}

Argument* AddArg(OperatorDef* def, const std::string& name) {
  Argument* arg = def->add_arg();
  arg->set_name(name);
  return arg;
}

MaceStatus Construct(Operation* op, const OperatorDef& def) {
  Workspace workspace;
  return op->Construct(def, &workspace);
}

void ExpectInvalid(const MaceStatus& status, const std::string& message) {
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.ToString();
  EXPECT_EQ(status.information(), message);
}

TEST(OperationArgsTest, EachGetterReadsItsOwnField) {
  OperatorDef def = Def();
  AddArg(&def, "level")->set_i(3);
  AddArg(&def, "scale")->set_f(2.f);
  AddArg(&def, "number")->set_i(4);
  AddArg(&def, "mode")->set_s("fancy");
  Argument* sizes = AddArg(&def, "sizes");
  sizes->add_ints(1);
  sizes->add_ints(2);
  AddArg(&def, "weights")->add_floats(0.25f);
  AddArg(&def, "flag")->set_i(1);
  ReadsEveryKind op;
  const MaceStatus status = Construct(&op, def);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(op.level, 3);
  EXPECT_EQ(op.scale, 2.f);
  EXPECT_EQ(op.number, 4.0);
  EXPECT_EQ(op.mode, "fancy");
  EXPECT_EQ(op.sizes, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(op.weights, (std::vector<float>{0.25f}));
  EXPECT_TRUE(op.has_flag);
}

TEST(OperationArgsTest, AbsentArgumentsAndEmptyListsGiveDefaults) {
  OperatorDef def = Def();
  AddArg(&def, "sizes");  // a list with no values sets no field
  AddArg(&def, "number")->set_f(1.5f);
  ReadsEveryKind op;
  const MaceStatus status = Construct(&op, def);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(op.level, 7);
  EXPECT_EQ(op.mode, "plain");
  EXPECT_TRUE(op.sizes.empty());
  EXPECT_EQ(op.number, 1.5);
  EXPECT_FALSE(op.has_flag);
}

TEST(OperationArgsTest, WrongFieldIsAnErrorNamingOpAndArgument) {
  struct Case {
    std::string name;
    void (*set)(Argument*);
    std::string message;
  };
  const std::vector<Case> cases = {
      {"mode", [](Argument* a) { a->set_i(6); }, "argument 'mode' must be a string, got an int"},
      {"level", [](Argument* a) { a->set_f(3.f); }, "argument 'level' must be an int, got a float"},
      {"scale", [](Argument* a) { a->set_i(2); }, "argument 'scale' must be a float, got an int"},
      {"number", [](Argument* a) { a->set_s("two"); },
       "argument 'number' must be an int or a float, got a string"},
      {"sizes", [](Argument* a) { a->set_i(2); },
       "argument 'sizes' must be a list of ints, got an int"},
      {"sizes", [](Argument* a) { a->add_floats(1.5f); },
       "argument 'sizes' must be a list of ints, got a list of floats"},
      {"weights", [](Argument* a) { a->add_ints(1); },
       "argument 'weights' must be a list of floats, got a list of ints"},
      {"level", [](Argument* /*a*/) {}, "argument 'level' must be an int, got no value"},
      {"level",
       [](Argument* a) {
         a->set_i(1);
         a->set_s("1");
       },
       "argument 'level' must be an int, got values in several fields"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    OperatorDef def = Def();
    c.set(AddArg(&def, c.name));
    ReadsEveryKind op;
    ExpectInvalid(Construct(&op, def), "Probe 'probe1': " + c.message);
  }
}

TEST(OperationArgsTest, FirstWrongFieldIsReported) {
  OperatorDef def = Def();
  AddArg(&def, "mode")->set_i(1);
  AddArg(&def, "level")->set_s("high");
  ReadsEveryKind op;
  ExpectInvalid(Construct(&op, def),
                "Probe 'probe1': argument 'level' must be an int, got a string");
}

TEST(OperationArgsTest, UnknownArgumentIsAnErrorNamingIt) {
  OperatorDef def = Def();
  AddArg(&def, "mode")->set_s("fancy");
  AddArg(&def, "mo[e")->set_s("fancy");
  ReadsEveryKind op;
  ExpectInvalid(Construct(&op, def),
                "Probe 'probe1': unknown argument 'mo[e' (this op reads flag, level, mode, "
                "number, scale, sizes, weights)");
}

TEST(OperationArgsTest, RepeatedArgumentIsAnError) {
  OperatorDef def = Def();
  AddArg(&def, "level")->set_i(1);
  AddArg(&def, "level")->set_i(2);
  ReadsEveryKind op;
  ExpectInvalid(Construct(&op, def), "Probe 'probe1': argument 'level' is given more than once");
}

TEST(OperationArgsTest, OpsThatReadLaterKeepUnreadArguments) {
  OperatorDef def = Def();
  AddArg(&def, "anything")->set_f(1.f);
  ReadsLater op;
  const MaceStatus status = Construct(&op, def);
  EXPECT_TRUE(status.ok()) << status.ToString();
}

TEST(OperationArgsTest, ConstructStartsAfreshEachTime) {
  ReadsEveryKind op;
  OperatorDef bad = Def();
  AddArg(&bad, "level")->set_s("high");
  EXPECT_FALSE(Construct(&op, bad).ok());
  OperatorDef good = Def();
  AddArg(&good, "level")->set_i(2);
  const MaceStatus status = Construct(&op, good);
  EXPECT_TRUE(status.ok()) << status.ToString();
}

}  // namespace
}  // namespace mace
