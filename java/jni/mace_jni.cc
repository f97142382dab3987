// The native half of the Java API (java/com/mace): one JNI function per
// method of com.mace.NativeMace, each a thin call of the C API
// (mace/public/mace_c.h). A failed call throws com.mace.MaceException with
// the C API's code and message; nothing here aborts the JVM, and no C++
// exception reaches it.
#include <jni.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "mace/public/mace_c.h"

namespace {

const char kExceptionClass[] = "com/mace/MaceException";

// Throws MaceException(code, message) unless an exception is pending.
void Throw(JNIEnv* env, int code, const std::string& message) {
  if (env->ExceptionCheck()) return;
  jclass type = env->FindClass(kExceptionClass);
  if (type == nullptr) return;  // NoClassDefFoundError is pending.
  jmethodID constructor = env->GetMethodID(type, "<init>", "(ILjava/lang/String;)V");
  jstring text = env->NewStringUTF(message.c_str());
  if (constructor != nullptr && text != nullptr) {
    jobject error = env->NewObject(type, constructor, static_cast<jint>(code), text);
    if (error != nullptr) env->Throw(static_cast<jthrowable>(error));
  }
  env->DeleteLocalRef(type);
}

// Turns a C API status into a pending exception; true when it is OK.
bool Check(JNIEnv* env, MaceCStatus status) {
  if (status == MACE_C_OK) return true;
  const char* message = mace_c_last_error();
  Throw(env, status, message != nullptr && *message != '\0' ? message : "unknown error");
  return false;
}

bool InvalidArgs(JNIEnv* env, const std::string& message) {
  Throw(env, MACE_C_INVALID_ARGS, message);
  return false;
}

// A Java string as modified UTF-8 for the call's duration; null stays null.
class Utf8 {
 public:
  Utf8(JNIEnv* env, jstring text) : env_(env), text_(text) {
    if (text != nullptr) chars_ = env->GetStringUTFChars(text, nullptr);
  }
  ~Utf8() {
    if (chars_ != nullptr) env_->ReleaseStringUTFChars(text_, chars_);
  }
  Utf8(const Utf8&) = delete;
  Utf8& operator=(const Utf8&) = delete;
  // False (with an exception pending) when a non-null string could not be read.
  bool ok() const { return text_ == nullptr || chars_ != nullptr; }
  const char* get() const { return chars_; }

 private:
  JNIEnv* env_;
  jstring text_;
  const char* chars_ = nullptr;
};

MaceCConfig* AsConfig(jlong handle) { return reinterpret_cast<MaceCConfig*>(handle); }
MaceCEngine* AsEngine(jlong handle) { return reinterpret_cast<MaceCEngine*>(handle); }

bool NeedEngine(JNIEnv* env, jlong handle) {
  return handle != 0 || InvalidArgs(env, "null engine handle");
}

bool NeedConfig(JNIEnv* env, jlong handle) {
  return handle != 0 || InvalidArgs(env, "null config handle");
}

bool ReadShape(JNIEnv* env, jlongArray shape, std::vector<int64_t>* dims) {
  if (shape == nullptr) return InvalidArgs(env, "the shape is null");
  dims->resize(env->GetArrayLength(shape));
  if (!dims->empty()) {
    env->GetLongArrayRegion(shape, 0, static_cast<jsize>(dims->size()),
                            reinterpret_cast<jlong*>(dims->data()));
  }
  return !env->ExceptionCheck();
}

jlongArray NewLongArray(JNIEnv* env, const int64_t* values, size_t count) {
  jlongArray array = env->NewLongArray(static_cast<jsize>(count));
  if (array != nullptr && count > 0) {
    env->SetLongArrayRegion(array, 0, static_cast<jsize>(count),
                            reinterpret_cast<const jlong*>(values));
  }
  return array;
}

using NameAt = MaceCStatus (*)(const MaceCEngine*, size_t, const char**);
using Count = MaceCStatus (*)(const MaceCEngine*, size_t*);

jobjectArray Names(JNIEnv* env, jlong handle, Count count_fn, NameAt name_fn) {
  if (!NeedEngine(env, handle)) return nullptr;
  size_t count = 0;
  if (!Check(env, count_fn(AsEngine(handle), &count))) return nullptr;
  jclass string_class = env->FindClass("java/lang/String");
  if (string_class == nullptr) return nullptr;
  jobjectArray names = env->NewObjectArray(static_cast<jsize>(count), string_class, nullptr);
  env->DeleteLocalRef(string_class);
  for (size_t i = 0; names != nullptr && i < count; ++i) {
    const char* name = nullptr;
    if (!Check(env, name_fn(AsEngine(handle), i, &name))) return nullptr;
    jstring text = env->NewStringUTF(name);
    if (text == nullptr) return nullptr;
    env->SetObjectArrayElement(names, static_cast<jsize>(i), text);
    env->DeleteLocalRef(text);
  }
  return names;
}

struct Output {
  MaceCDataType type = MACE_C_FLOAT32;
  const int64_t* dims = nullptr;
  size_t rank = 0;
  const void* data = nullptr;
  size_t bytes = 0;
};

bool GetOutput(JNIEnv* env, jlong handle, jstring name, Output* out) {
  if (!NeedEngine(env, handle)) return false;
  if (name == nullptr) return InvalidArgs(env, "the output name is null");
  Utf8 text(env, name);
  if (!text.ok()) return false;
  return Check(env, mace_c_engine_get_output(AsEngine(handle), text.get(), &out->type,
                                             &out->dims, &out->rank, &out->data, &out->bytes));
}

bool NeedType(JNIEnv* env, const Output& out, MaceCDataType want, jstring name) {
  if (out.type == want) return true;
  Utf8 text(env, name);
  return InvalidArgs(env, std::string("output '") + (text.get() ? text.get() : "") + "' is " +
                              mace_c_data_type_name(out.type) + ", not " +
                              mace_c_data_type_name(want));
}

// [offset, offset + length) must lie inside an array of `size` elements.
bool InRange(JNIEnv* env, jint offset, jint length, jsize size) {
  if (offset < 0 || length < 0 || static_cast<int64_t>(offset) + length > size) {
    return InvalidArgs(env, "offset " + std::to_string(offset) + " and length " +
                                std::to_string(length) + " do not fit an array of " +
                                std::to_string(size));
  }
  return true;
}

// The byte range [offset, offset + length) of a direct buffer whose
// elements have `element_size` bytes, or null with an exception pending.
uint8_t* DirectRange(JNIEnv* env, jobject buffer, jlong offset, jlong length, jlong element_size,
                     const char* what) {
  if (buffer == nullptr) {
    InvalidArgs(env, std::string(what) + " is null");
    return nullptr;
  }
  auto* base = static_cast<uint8_t*>(env->GetDirectBufferAddress(buffer));
  jlong capacity = env->GetDirectBufferCapacity(buffer);
  if (base == nullptr || capacity < 0) {
    InvalidArgs(env, std::string(what) + " is not a direct buffer");
    return nullptr;
  }
  // The capacity is in elements, the range in bytes.
  if (offset < 0 || length < 0 || offset > capacity * element_size ||
      length > capacity * element_size - offset) {
    InvalidArgs(env, std::string(what) + ": bytes [" + std::to_string(offset) + ", " +
                         std::to_string(offset + length) + ") are outside the buffer");
    return nullptr;
  }
  return base + offset;
}

using ShapeFn = MaceCStatus (*)(const MaceCEngine*, const char*, const int64_t**, size_t*);

jlongArray InputShape(JNIEnv* env, jlong engine, jstring name, ShapeFn shape_fn) {
  if (!NeedEngine(env, engine)) return nullptr;
  if (name == nullptr) {
    InvalidArgs(env, "the input name is null");
    return nullptr;
  }
  Utf8 text(env, name);
  if (!text.ok()) return nullptr;
  const int64_t* dims = nullptr;
  size_t rank = 0;
  if (!Check(env, shape_fn(AsEngine(engine), text.get(), &dims, &rank))) return nullptr;
  return NewLongArray(env, dims, rank);
}

// The length of a Java array, 0 for null (refused by SetInputArray).
jint Length(JNIEnv* env, jarray array) { return array == nullptr ? 0 : env->GetArrayLength(array); }

// Sets an input from elements [offset, offset + length) of a Java array of
// `type`'s elements.
template <typename JArray, typename T>
void SetInputArray(JNIEnv* env, jlong engine, jstring name, jlongArray shape, JArray data,
                   jint offset, jint length, MaceCDataType type,
                   void (JNIEnv::*get)(JArray, jsize, jsize, T*)) {
  if (!NeedEngine(env, engine)) return;
  if (name == nullptr || data == nullptr) {
    InvalidArgs(env, name == nullptr ? "the input name is null" : "the input data is null");
    return;
  }
  std::vector<int64_t> dims;
  if (!ReadShape(env, shape, &dims)) return;
  if (!InRange(env, offset, length, env->GetArrayLength(data))) return;
  Utf8 text(env, name);
  if (!text.ok()) return;
  std::vector<T> values(length);
  (env->*get)(data, offset, length, values.data());
  if (env->ExceptionCheck()) return;
  Check(env, mace_c_engine_set_input(AsEngine(engine), text.get(), type, dims.data(), dims.size(),
                                     values.data(), values.size() * sizeof(T)));
}

// A typed output as a new Java array, or null with an exception pending.
template <typename JArray, typename T>
JArray OutputArray(JNIEnv* env, jlong engine, jstring name, MaceCDataType type,
                   JArray (JNIEnv::*make)(jsize),
                   void (JNIEnv::*set)(JArray, jsize, jsize, const T*)) {
  Output out;
  if (!GetOutput(env, engine, name, &out) || !NeedType(env, out, type, name)) return nullptr;
  const jsize count = static_cast<jsize>(out.bytes / sizeof(T));
  JArray array = (env->*make)(count);
  if (array != nullptr && count > 0) (env->*set)(array, 0, count, static_cast<const T*>(out.data));
  return array;
}

}  // namespace

extern "C" {

JNIEXPORT jstring JNICALL Java_com_mace_NativeMace_version(JNIEnv* env, jclass) {
  return env->NewStringUTF(mace_c_version());
}

JNIEXPORT jlong JNICALL Java_com_mace_NativeMace_configCreate(JNIEnv* env, jclass, jint device) {
  MaceCConfig* config = nullptr;
  if (!Check(env, mace_c_config_create(static_cast<MaceCDevice>(device), &config))) return 0;
  return reinterpret_cast<jlong>(config);
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_configDestroy(JNIEnv*, jclass, jlong config) {
  mace_c_config_destroy(AsConfig(config));
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_configSetCpuThreads(JNIEnv* env, jclass,
                                                                    jlong config, jint threads,
                                                                    jint affinity) {
  if (!NeedConfig(env, config)) return;
  Check(env, mace_c_config_set_cpu_threads(AsConfig(config), threads, affinity));
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_configSetGpuHints(JNIEnv* env, jclass,
                                                                  jlong config, jint perf,
                                                                  jint priority) {
  if (!NeedConfig(env, config)) return;
  Check(env, mace_c_config_set_gpu_hints(AsConfig(config), perf, priority));
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_configSetGpuDataType(JNIEnv* env, jclass,
                                                                     jlong config,
                                                                     jint data_type) {
  if (!NeedConfig(env, config)) return;
  Check(env, mace_c_config_set_gpu_data_type(AsConfig(config), data_type));
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_configSetOpenclDeviceFallback(
    JNIEnv* env, jclass, jlong config, jboolean allow) {
  if (!NeedConfig(env, config)) return;
  Check(env, mace_c_config_set_opencl_device_fallback(AsConfig(config), allow ? 1 : 0));
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_configSetOpenclCacheFile(JNIEnv* env, jclass,
                                                                         jlong config,
                                                                         jstring path) {
  if (!NeedConfig(env, config)) return;
  Utf8 text(env, path);
  if (!text.ok()) return;
  Check(env, mace_c_config_set_opencl_cache_file(AsConfig(config), text.get()));
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_configSetCpuKernelFamily(JNIEnv* env, jclass,
                                                                         jlong config,
                                                                         jstring family) {
  if (!NeedConfig(env, config)) return;
  if (family == nullptr) {
    InvalidArgs(env, "the kernel family is null");
    return;
  }
  Utf8 text(env, family);
  if (!text.ok()) return;
  Check(env, mace_c_config_set_cpu_kernel_family(AsConfig(config), text.get()));
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_configSetHexagonOptions(
    JNIEnv* env, jclass, jlong config, jstring emulator_path, jstring image_path,
    jlong call_timeout_ms) {
  if (!NeedConfig(env, config)) return;
  Utf8 emulator(env, emulator_path);
  if (!emulator.ok()) return;
  Utf8 image(env, image_path);
  if (!image.ok()) return;
  Check(env, mace_c_config_set_hexagon_options(AsConfig(config), emulator.get(), image.get(),
                                               static_cast<int64_t>(call_timeout_ms)));
}

JNIEXPORT jlong JNICALL Java_com_mace_NativeMace_engineCreateFromFiles(JNIEnv* env, jclass,
                                                                       jstring graph,
                                                                       jstring weights,
                                                                       jlong config) {
  if (!NeedConfig(env, config)) return 0;
  if (graph == nullptr || weights == nullptr) {
    InvalidArgs(env, "a model path is null");
    return 0;
  }
  Utf8 graph_path(env, graph);
  Utf8 weights_path(env, weights);
  if (!graph_path.ok() || !weights_path.ok()) return 0;
  MaceCEngine* engine = nullptr;
  if (!Check(env, mace_c_engine_create_from_files(graph_path.get(), weights_path.get(),
                                                  AsConfig(config), &engine))) {
    return 0;
  }
  return reinterpret_cast<jlong>(engine);
}

JNIEXPORT jlong JNICALL Java_com_mace_NativeMace_engineCreateFromDirect(
    JNIEnv* env, jclass, jobject graph, jlong graph_offset, jlong graph_size, jobject weights,
    jlong weights_offset, jlong weights_size, jlong config) {
  if (!NeedConfig(env, config)) return 0;
  const uint8_t* graph_bytes = DirectRange(env, graph, graph_offset, graph_size, 1, "the graph");
  if (graph_bytes == nullptr) return 0;
  const uint8_t* weights_bytes = nullptr;
  if (weights != nullptr || weights_size != 0) {
    weights_bytes = DirectRange(env, weights, weights_offset, weights_size, 1,
                                 "the weights");
    if (weights_bytes == nullptr) return 0;
  }
  MaceCEngine* engine = nullptr;
  if (!Check(env, mace_c_engine_create_from_buffers(
                      graph_bytes, static_cast<size_t>(graph_size), weights_bytes,
                      static_cast<size_t>(weights_size), AsConfig(config), &engine))) {
    return 0;
  }
  return reinterpret_cast<jlong>(engine);
}

JNIEXPORT jlong JNICALL Java_com_mace_NativeMace_engineCreateFromArrays(JNIEnv* env, jclass,
                                                                        jbyteArray graph,
                                                                        jbyteArray weights,
                                                                        jlong config) {
  if (!NeedConfig(env, config)) return 0;
  if (graph == nullptr || weights == nullptr) {
    InvalidArgs(env, "a model buffer is null");
    return 0;
  }
  // Copies, so no JVM lock is held while the engine builds.
  std::vector<jbyte> graph_bytes(env->GetArrayLength(graph));
  std::vector<jbyte> weights_bytes(env->GetArrayLength(weights));
  env->GetByteArrayRegion(graph, 0, static_cast<jsize>(graph_bytes.size()), graph_bytes.data());
  env->GetByteArrayRegion(weights, 0, static_cast<jsize>(weights_bytes.size()),
                          weights_bytes.data());
  if (env->ExceptionCheck()) return 0;
  MaceCEngine* engine = nullptr;
  if (!Check(env, mace_c_engine_create_from_buffers(
                      graph_bytes.data(), graph_bytes.size(),
                      weights_bytes.empty() ? nullptr : weights_bytes.data(),
                      weights_bytes.size(), AsConfig(config), &engine))) {
    return 0;
  }
  return reinterpret_cast<jlong>(engine);
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_engineDestroy(JNIEnv*, jclass, jlong engine) {
  mace_c_engine_destroy(AsEngine(engine));
}

JNIEXPORT jobjectArray JNICALL Java_com_mace_NativeMace_inputNames(JNIEnv* env, jclass,
                                                                   jlong engine) {
  return Names(env, engine, mace_c_engine_input_count, mace_c_engine_input_name);
}

JNIEXPORT jobjectArray JNICALL Java_com_mace_NativeMace_outputNames(JNIEnv* env, jclass,
                                                                    jlong engine) {
  return Names(env, engine, mace_c_engine_output_count, mace_c_engine_output_name);
}

JNIEXPORT jlongArray JNICALL Java_com_mace_NativeMace_inputShape(JNIEnv* env, jclass,
                                                                 jlong engine, jstring name) {
  return InputShape(env, engine, name, mace_c_engine_input_shape);
}

JNIEXPORT jlongArray JNICALL Java_com_mace_NativeMace_inputMaxShape(JNIEnv* env, jclass,
                                                                    jlong engine, jstring name) {
  return InputShape(env, engine, name, mace_c_engine_input_max_shape);
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_setInputLongs(JNIEnv* env, jclass, jlong engine,
                                                              jstring name, jlongArray shape,
                                                              jlongArray data) {
  SetInputArray<jlongArray, jlong>(env, engine, name, shape, data, 0, Length(env, data), MACE_C_INT64,
                                   &JNIEnv::GetLongArrayRegion);
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_setInputInts(JNIEnv* env, jclass, jlong engine,
                                                             jstring name, jlongArray shape,
                                                             jintArray data) {
  SetInputArray<jintArray, jint>(env, engine, name, shape, data, 0, Length(env, data), MACE_C_INT32,
                                 &JNIEnv::GetIntArrayRegion);
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_setInputBooleans(JNIEnv* env, jclass,
                                                                 jlong engine, jstring name,
                                                                 jlongArray shape,
                                                                 jbooleanArray data) {
  // jboolean is one byte holding 0 or 1: the bytes of a MACE bool tensor.
  SetInputArray<jbooleanArray, jboolean>(env, engine, name, shape, data, 0, Length(env, data), MACE_C_BOOL,
                                         &JNIEnv::GetBooleanArrayRegion);
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_setInputArray(JNIEnv* env, jclass, jlong engine,
                                                              jstring name, jlongArray shape,
                                                              jfloatArray data, jint offset,
                                                              jint length) {
  SetInputArray<jfloatArray, jfloat>(env, engine, name, shape, data, offset, length,
                                     MACE_C_FLOAT32, &JNIEnv::GetFloatArrayRegion);
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_setInputDirect(JNIEnv* env, jclass, jlong engine,
                                                               jstring name, jlongArray shape,
                                                               jobject data, jlong byte_offset,
                                                               jlong byte_length) {
  if (!NeedEngine(env, engine)) return;
  if (name == nullptr) {
    InvalidArgs(env, "the input name is null");
    return;
  }
  std::vector<int64_t> dims;
  if (!ReadShape(env, shape, &dims)) return;
  const uint8_t* bytes = DirectRange(env, data, byte_offset, byte_length, 4,
                                        "the input data");
  if (bytes == nullptr) return;
  Utf8 text(env, name);
  if (!text.ok()) return;
  Check(env, mace_c_engine_set_input(AsEngine(engine), text.get(), MACE_C_FLOAT32, dims.data(),
                                     dims.size(), bytes, static_cast<size_t>(byte_length)));
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_clearInputs(JNIEnv* env, jclass,
                                                             jlong engine) {
  if (!NeedEngine(env, engine)) return;
  Check(env, mace_c_engine_clear_inputs(AsEngine(engine)));
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_run(JNIEnv* env, jclass, jlong engine) {
  if (!NeedEngine(env, engine)) return;
  Check(env, mace_c_engine_run(AsEngine(engine)));
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_runWithOptions(JNIEnv* env, jclass, jlong engine,
                                                               jlong timeout_us,
                                                               jlong cancellation) {
  if (!NeedEngine(env, engine)) return;
  Check(env, mace_c_engine_run_with_options(
                 AsEngine(engine), timeout_us,
                 reinterpret_cast<const MaceCCancellation*>(cancellation)));
}

JNIEXPORT jlong JNICALL Java_com_mace_NativeMace_contextCreate(JNIEnv* env, jclass, jint threads,
                                                               jint affinity) {
  MaceCContext* context = nullptr;
  if (!Check(env, mace_c_context_create(threads, affinity, &context))) return 0;
  return reinterpret_cast<jlong>(context);
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_contextDestroy(JNIEnv*, jclass, jlong context) {
  mace_c_context_destroy(reinterpret_cast<MaceCContext*>(context));
}

JNIEXPORT jint JNICALL Java_com_mace_NativeMace_contextNumThreads(JNIEnv* env, jclass,
                                                                  jlong context) {
  int threads = 0;
  Check(env, mace_c_context_num_threads(reinterpret_cast<MaceCContext*>(context), &threads));
  return threads;
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_configSetContext(JNIEnv* env, jclass,
                                                                 jlong config, jlong context) {
  if (!NeedConfig(env, config)) return;
  Check(env, mace_c_config_set_context(AsConfig(config), reinterpret_cast<MaceCContext*>(context)));
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_configSetSequentialGroup(JNIEnv* env, jclass,
                                                                         jlong config,
                                                                         jint group) {
  if (!NeedConfig(env, config)) return;
  Check(env, mace_c_config_set_sequential_group(AsConfig(config), group));
}

JNIEXPORT jlong JNICALL Java_com_mace_NativeMace_contextArenaBytes(JNIEnv* env, jclass,
                                                                   jlong context) {
  int64_t bytes = 0;
  Check(env, mace_c_context_arena_bytes(reinterpret_cast<MaceCContext*>(context), &bytes));
  return bytes;
}

JNIEXPORT jlong JNICALL Java_com_mace_NativeMace_cancellationCreate(JNIEnv* env, jclass) {
  MaceCCancellation* cancellation = nullptr;
  if (!Check(env, mace_c_cancellation_create(&cancellation))) return 0;
  return reinterpret_cast<jlong>(cancellation);
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_cancellationDestroy(JNIEnv*, jclass,
                                                                    jlong cancellation) {
  mace_c_cancellation_destroy(reinterpret_cast<MaceCCancellation*>(cancellation));
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_cancellationSet(JNIEnv* env, jclass,
                                                                jlong cancellation,
                                                                jboolean cancelled) {
  auto* flag = reinterpret_cast<MaceCCancellation*>(cancellation);
  Check(env, cancelled ? mace_c_cancellation_cancel(flag) : mace_c_cancellation_reset(flag));
}

JNIEXPORT jint JNICALL Java_com_mace_NativeMace_outputType(JNIEnv* env, jclass, jlong engine,
                                                           jstring name) {
  Output out;
  if (!GetOutput(env, engine, name, &out)) return -1;
  return static_cast<jint>(out.type);
}

JNIEXPORT jlongArray JNICALL Java_com_mace_NativeMace_outputShape(JNIEnv* env, jclass,
                                                                  jlong engine, jstring name) {
  Output out;
  if (!GetOutput(env, engine, name, &out)) return nullptr;
  return NewLongArray(env, out.dims, out.rank);
}

JNIEXPORT jfloatArray JNICALL Java_com_mace_NativeMace_outputFloats(JNIEnv* env, jclass,
                                                                    jlong engine, jstring name) {
  Output out;
  if (!GetOutput(env, engine, name, &out) || !NeedType(env, out, MACE_C_FLOAT32, name)) {
    return nullptr;
  }
  jsize count = static_cast<jsize>(out.bytes / sizeof(float));
  jfloatArray array = env->NewFloatArray(count);
  if (array != nullptr && count > 0) {
    env->SetFloatArrayRegion(array, 0, count, static_cast<const jfloat*>(out.data));
  }
  return array;
}

JNIEXPORT jintArray JNICALL Java_com_mace_NativeMace_outputInts(JNIEnv* env, jclass,
                                                                jlong engine, jstring name) {
  Output out;
  if (!GetOutput(env, engine, name, &out) || !NeedType(env, out, MACE_C_INT32, name)) {
    return nullptr;
  }
  jsize count = static_cast<jsize>(out.bytes / sizeof(int32_t));
  jintArray array = env->NewIntArray(count);
  if (array != nullptr && count > 0) {
    env->SetIntArrayRegion(array, 0, count, static_cast<const jint*>(out.data));
  }
  return array;
}

JNIEXPORT jlongArray JNICALL Java_com_mace_NativeMace_outputLongs(JNIEnv* env, jclass,
                                                                  jlong engine, jstring name) {
  return OutputArray<jlongArray, jlong>(env, engine, name, MACE_C_INT64, &JNIEnv::NewLongArray,
                                        &JNIEnv::SetLongArrayRegion);
}

JNIEXPORT jbooleanArray JNICALL Java_com_mace_NativeMace_outputBooleans(JNIEnv* env, jclass,
                                                                        jlong engine,
                                                                        jstring name) {
  return OutputArray<jbooleanArray, jboolean>(env, engine, name, MACE_C_BOOL,
                                              &JNIEnv::NewBooleanArray,
                                              &JNIEnv::SetBooleanArrayRegion);
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_outputToDirect(JNIEnv* env, jclass,
                                                               jlong engine, jstring name,
                                                               jobject dst, jlong byte_offset,
                                                               jlong byte_capacity) {
  Output out;
  if (!GetOutput(env, engine, name, &out) || !NeedType(env, out, MACE_C_FLOAT32, name)) return;
  uint8_t* bytes = DirectRange(env, dst, byte_offset, byte_capacity, 4,
                                "the output buffer");
  if (bytes == nullptr) return;
  if (static_cast<size_t>(byte_capacity) < out.bytes) {
    InvalidArgs(env, "the output buffer has room for " + std::to_string(byte_capacity / 4) +
                         " floats, the output has " + std::to_string(out.bytes / 4));
    return;
  }
  std::memcpy(bytes, out.data, out.bytes);
}

JNIEXPORT jstring JNICALL Java_com_mace_NativeMace_memoryReportJson(JNIEnv* env, jclass,
                                                                    jlong engine) {
  if (!NeedEngine(env, engine)) return nullptr;
  const char* json = nullptr;
  if (!Check(env, mace_c_engine_memory_report_json(AsEngine(engine), &json))) return nullptr;
  return env->NewStringUTF(json);
}

JNIEXPORT void JNICALL Java_com_mace_NativeMace_resetState(JNIEnv* env, jclass, jlong engine) {
  if (!NeedEngine(env, engine)) return;
  Check(env, mace_c_engine_reset_state(AsEngine(engine)));
}

}  // extern "C"
