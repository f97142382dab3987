// The kernel families of every table this build and CPU have, checked from
// the families' field lists (cpu/kernel_table.h): a family the port filled
// sets some field away from its initial value, a family it did not fill
// (a build leaving it out, --define=mace_cpu_kernels_<family>=off) keeps
// every field at it, and the ops' fallbacks then apply. With
// MACE_TEST_ABSENT_FAMILIES=<family>,... (tools/test.sh runs it so with
// every optional family left out) those families must be absent from
// every table.
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/kernel_table.h"

namespace mace {
namespace ops {
namespace {

std::vector<const KernelTable*> Tables() {
  std::vector<const KernelTable*> tables;
  for (KernelIsa isa : {KernelIsa::kAvx2Fma, KernelIsa::kAvx512, KernelIsa::kNeon}) {
    if (const KernelTable* table = KernelTableFor(isa)) tables.push_back(table);
    if (const KernelTable* table = Fp16KernelTableFor(isa)) tables.push_back(table);
  }
  return tables;
}

// How many fields of each family differ from their initial values.
template <typename T>
int Differs(const T& value, const T& initial) {
  return value != initial ? 1 : 0;
}

struct FamilyCount {
  KernelFamily family;
  int set_fields;
  int fields;
};

std::vector<FamilyCount> CountFields(const KernelTable& table) {
  std::vector<FamilyCount> counts;
#define MACE_COUNT_FIELD(Type, field, initial) \
  set += Differs<Type>(kernels.field, initial); \
  ++fields;
#define MACE_COUNT_FAMILY(family, Struct, LIST, plain)      \
  {                                                         \
    const Struct& kernels = table;                          \
    int set = 0, fields = 0;                                \
    LIST(MACE_COUNT_FIELD)                                  \
    counts.push_back({KernelFamily::family, set, fields}); \
  }
  MACE_CPU_KERNEL_FAMILIES(MACE_COUNT_FAMILY)
#undef MACE_COUNT_FAMILY
#undef MACE_COUNT_FIELD
  return counts;
}

std::set<std::string> ExpectedAbsent() {
  std::set<std::string> names;
  const char* value = std::getenv("MACE_TEST_ABSENT_FAMILIES");
  std::stringstream list(value != nullptr ? value : "");
  std::string name;
  while (std::getline(list, name, ',')) {
    if (!name.empty()) names.insert(name);
  }
  return names;
}

TEST(KernelTableTest, FamiliesAreWholeOrAbsent) {
  const std::set<std::string> absent = ExpectedAbsent();
  for (const KernelTable* table : Tables()) {
    SCOPED_TRACE(table->name);
    for (const FamilyCount& count : CountFields(*table)) {
      const char* name = KernelFamilyName(count.family);
      SCOPED_TRACE(name);
      EXPECT_GT(count.fields, 0);
      if (KernelFamilyPresent(*table, count.family)) {
        EXPECT_GT(count.set_fields, 0) << "a filled family sets some field";
        EXPECT_EQ(absent.count(name), 0u) << "the build was to leave it out";
      } else {
        EXPECT_EQ(count.set_fields, 0) << "an absent family keeps its initial values";
      }
    }
  }
}

TEST(KernelTableTest, EveryTableHasTheGemmAndRows) {
  for (const KernelTable* table : Tables()) {
    SCOPED_TRACE(table->name);
    EXPECT_TRUE(KernelFamilyPresent(*table, KernelFamily::gemm));
    EXPECT_TRUE(KernelFamilyPresent(*table, KernelFamily::rows));
    EXPECT_GT(table->mr, 0);
    EXPECT_GT(table->nr, 0);
    EXPECT_GT(table->mc, 0);
    EXPECT_GT(table->kc, 0);
    EXPECT_GT(table->nc, 0);
    EXPECT_NE(table->gemm, nullptr);
    EXPECT_NE(table->panel_dot, nullptr);
    EXPECT_NE(table->eltwise, nullptr);
    EXPECT_STREQ(table->name, table->fp16_gemm != nullptr ? table->fp16_table_name
                                                          : KernelIsaName(table->isa));
  }
}

TEST(KernelTableTest, Fp16OnlyInTheHalfTables) {
  for (KernelIsa isa : {KernelIsa::kAvx2Fma, KernelIsa::kAvx512, KernelIsa::kNeon}) {
    const KernelTable* plain = KernelTableFor(isa);
    const KernelTable* half = Fp16KernelTableFor(isa);
    if (plain != nullptr) {
      EXPECT_FALSE(KernelFamilyPresent(*plain, KernelFamily::fp16));
    }
    if (half != nullptr) {
      ASSERT_NE(plain, nullptr);
      EXPECT_TRUE(KernelFamilyPresent(*half, KernelFamily::fp16));
      EXPECT_NE(half->fp16_gemm, nullptr);
      // The plain families are the plain table's.
      EXPECT_EQ(half->families & ~(1u << static_cast<int>(KernelFamily::fp16)), plain->families);
      EXPECT_EQ(half->gemm, plain->gemm);
    }
  }
}

TEST(KernelTableTest, FamilyNames) {
  std::set<std::string> names;
#define MACE_FAMILY_NAME(family, Struct, LIST, plain) \
  EXPECT_STREQ(KernelFamilyName(KernelFamily::family), #family);  \
  names.insert(#family);
  MACE_CPU_KERNEL_FAMILIES(MACE_FAMILY_NAME)
#undef MACE_FAMILY_NAME
  EXPECT_EQ(names.size(), 7u);
}

}  // namespace
}  // namespace ops
}  // namespace mace
