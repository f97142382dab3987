// A qemu-user TCG plugin that counts the guest instructions a program
// executes and prints the total on exit, as
//   insn_count: <instructions>
// to qemu's log, which `-d plugin` enables (stderr by default). Built for
// the host (x86-64) and loaded with
//   qemu-aarch64 -d plugin -plugin /path/libinsn_count.so ./program
//
// With the argument symbols=N (`-plugin /path/libinsn_count.so,symbols=20`)
// it also prints the N guest functions that executed the most, as
//   insn_symbol: <instructions> <percent>% <name>
// charging each translated block to the symbol of its first instruction (a
// block does not span functions). Names come from the binary's ELF symbol
// table, so it must not be stripped; code with no symbol is "[unknown]".
//
// Each translated block adds its instruction count to a counter when it runs
// (an inline add, no callback per block), so the overhead is small. The add
// is not atomic: count single-threaded programs (one guest thread, as
// `mace_run --omp_num_threads=1` is) or totals may lose updates.
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
const char* qemu_plugin_insn_symbol(const struct qemu_plugin_insn* insn);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb* tb, enum qemu_plugin_op op,
                                              void* ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
                                    void* userdata);
void qemu_plugin_outs(const char* string);

PLUGIN_EXPORT int qemu_plugin_version = 1;

static uint64_t executed;

// Per-symbol counters: an open-addressing table keyed by name. Translation
// callbacks may run on several guest threads at once, hence the lock; the
// counters themselves are bumped by generated code, without it.
enum { kSymbolSlots = 1 << 16 };
struct SymbolCount {
  const char* name;  // owned copy; null marks a free slot
  uint64_t count;
};
static struct SymbolCount* symbols;
static int symbols_wanted;
static pthread_mutex_t symbols_lock = PTHREAD_MUTEX_INITIALIZER;
static struct SymbolCount overflow = {"[table full]", 0};

static uint64_t HashName(const char* name) {
  uint64_t hash = 1469598103934665603ull;  // FNV-1a
  for (; *name != '\0'; ++name) hash = (hash ^ (unsigned char)*name) * 1099511628211ull;
  return hash;
}

static uint64_t* CounterFor(const char* name) {
  uint64_t* counter = &overflow.count;
  pthread_mutex_lock(&symbols_lock);
  for (uint64_t i = HashName(name), probes = 0; probes < kSymbolSlots; ++i, ++probes) {
    struct SymbolCount* slot = &symbols[i % kSymbolSlots];
    if (slot->name == NULL) {
      slot->name = strdup(name);
      if (slot->name != NULL) counter = &slot->count;
      break;
    }
    if (strcmp(slot->name, name) == 0) {
      counter = &slot->count;
      break;
    }
  }
  pthread_mutex_unlock(&symbols_lock);
  return counter;
}

static void OnTranslate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  const size_t n = qemu_plugin_tb_n_insns(tb);
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &executed, n);
  if (symbols != NULL && n > 0) {
    const char* name = qemu_plugin_insn_symbol(qemu_plugin_tb_get_insn(tb, 0));
    uint64_t* counter = CounterFor(name != NULL ? name : "[unknown]");
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, counter, n);
  }
}

static int ByCountDescending(const void* a, const void* b) {
  const uint64_t x = ((const struct SymbolCount*)a)->count;
  const uint64_t y = ((const struct SymbolCount*)b)->count;
  return x < y ? 1 : x > y ? -1 : 0;
}

static void OnExit(qemu_plugin_id_t id, void* userdata) {
  (void)id;
  (void)userdata;
  char line[512];
  snprintf(line, sizeof(line), "insn_count: %" PRIu64 "\n", executed);
  qemu_plugin_outs(line);
  if (symbols == NULL) return;
  size_t used = 0;
  for (size_t i = 0; i < kSymbolSlots; ++i) {
    if (symbols[i].name != NULL) symbols[used++] = symbols[i];
  }
  if (overflow.count > 0) symbols[used++] = overflow;  // a slot is free: the table was full
  qsort(symbols, used, sizeof(symbols[0]), ByCountDescending);
  for (size_t i = 0; i < used && i < (size_t)symbols_wanted; ++i) {
    const double percent = executed > 0 ? 100.0 * (double)symbols[i].count / (double)executed : 0;
    snprintf(line, sizeof(line), "insn_symbol: %" PRIu64 " %.2f%% %s\n", symbols[i].count, percent,
             symbols[i].name);
    qemu_plugin_outs(line);
  }
}

PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                      char** argv) {
  (void)info;
  for (int i = 0; i < argc; ++i) {
    if (strncmp(argv[i], "symbols=", 8) == 0) {
      char* end = NULL;
      const long wanted = strtol(argv[i] + 8, &end, 10);
      if (end == argv[i] + 8 || *end != '\0' || wanted < 0 || wanted > 100000) {
        fprintf(stderr, "insn_count: bad argument '%s' (symbols=N, N in [0, 100000])\n", argv[i]);
        return -1;
      }
      symbols_wanted = (int)wanted;
    } else {
      fprintf(stderr, "insn_count: unknown argument '%s'\n", argv[i]);
      return -1;
    }
  }
  if (symbols_wanted > 0) {
    // One slot stays free for the overflow entry at exit.
    symbols = calloc(kSymbolSlots + 1, sizeof(symbols[0]));
    if (symbols == NULL) return -1;
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, OnTranslate);
  qemu_plugin_register_atexit_cb(id, OnExit, NULL);
  return 0;
}
