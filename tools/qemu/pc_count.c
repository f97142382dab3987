// A qemu-user TCG plugin that counts how often each guest instruction
// address executes and writes the non-zero counts on exit, one
//   <address in hex> <count>
// line each, to the file given as out=PATH:
//   qemu-hexagon -plugin /path/libpc_count.so,out=/tmp/counts.txt prog.elf
//
// QEMU translates a Hexagon packet as one guest instruction, so for
// qemu-hexagon these are packet counts by packet address;
// mace_tools/dsp_insn_count.py joins them with the image's disassembly to
// count instructions, HVX packets and HVX multiplies.
//
// Each instruction adds one to its own counter when it runs (an inline add,
// no callback), so the overhead is small. The add is not atomic: count
// single-threaded programs only (the DSP runtime is).
//
// Debian ships no qemu-plugin.h, so the few entry points used are declared
// here, as the plugin API of qemu 7.2 (API version 1) defines them.

#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLUGIN_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;  // only passed through
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void* userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
struct qemu_plugin_insn* qemu_plugin_tb_get_insn(const struct qemu_plugin_tb* tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn* insn);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn* insn,
                                                enum qemu_plugin_op op, void* ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
                                    void* userdata);

PLUGIN_EXPORT int qemu_plugin_version = 1;

// Counters by address: open addressing, grown never (the table is sized
// for any program a DSP image holds; a full table is reported).
enum { kSlots = 1 << 20 };
struct AddressCount {
  uint64_t address;
  uint64_t count;
  int used;
};
static struct AddressCount* table;
static uint64_t lost;  // executions of instructions that found no slot
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static char* out_path;

static uint64_t* CounterFor(uint64_t address) {
  pthread_mutex_lock(&table_lock);
  uint64_t* counter = &lost;
  uint64_t slot = (address * 0x9E3779B97F4A7C15ull) >> 44;
  for (int probe = 0; probe < kSlots; ++probe, slot = (slot + 1) & (kSlots - 1)) {
    if (!table[slot].used) {
      table[slot].used = 1;
      table[slot].address = address;
      counter = &table[slot].count;
      break;
    }
    if (table[slot].address == address) {
      counter = &table[slot].count;
      break;
    }
  }
  pthread_mutex_unlock(&table_lock);
  return counter;
}

static void OnTranslate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  const size_t n = qemu_plugin_tb_n_insns(tb);
  for (size_t i = 0; i < n; ++i) {
    struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
                                               CounterFor(qemu_plugin_insn_vaddr(insn)), 1);
  }
}

static void OnExit(qemu_plugin_id_t id, void* userdata) {
  (void)id;
  (void)userdata;
  FILE* out = fopen(out_path, "w");
  if (out == NULL) {
    fprintf(stderr, "pc_count: cannot write %s\n", out_path);
    return;
  }
  for (int i = 0; i < kSlots; ++i) {
    if (table[i].used && table[i].count > 0) {
      fprintf(out, "%" PRIx64 " %" PRIu64 "\n", table[i].address, table[i].count);
    }
  }
  if (lost > 0) fprintf(out, "lost %" PRIu64 "\n", lost);
  fclose(out);
}

PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                      char** argv) {
  (void)info;
  for (int i = 0; i < argc; ++i) {
    if (strncmp(argv[i], "out=", 4) == 0 && argv[i][4] != '\0') {
      out_path = strdup(argv[i] + 4);
    } else {
      fprintf(stderr, "pc_count: unknown argument '%s' (out=PATH)\n", argv[i]);
      return -1;
    }
  }
  if (out_path == NULL) {
    fprintf(stderr, "pc_count: needs out=PATH\n");
    return -1;
  }
  table = calloc(kSlots, sizeof(table[0]));
  if (table == NULL) return -1;
  qemu_plugin_register_vcpu_tb_trans_cb(id, OnTranslate);
  qemu_plugin_register_atexit_cb(id, OnExit, NULL);
  return 0;
}
