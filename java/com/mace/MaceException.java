package com.mace;

/**
 * A failed MACE call: the engine's status and its message. Every error of the
 * Java API is one of these, from a bad argument to a model that cannot be
 * loaded or a closed engine.
 */
public class MaceException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The engine's status codes (mace::MaceStatus::Code). */
  public enum Status {
    OK,
    INVALID_ARGS,
    OUT_OF_RESOURCES,
    UNSUPPORTED,
    RUNTIME_ERROR,
    /** A run stopped by its {@link Cancellation}. */
    CANCELLED,
    /** A run stopped by its timeout. */
    DEADLINE_EXCEEDED;

    static Status of(int code) {
      Status[] all = values();
      return code >= 0 && code < all.length ? all[code] : RUNTIME_ERROR;
    }
  }

  private final Status status;

  /** Called by the native library with the C API's code. */
  MaceException(int code, String message) {
    this(Status.of(code), message);
  }

  MaceException(Status status, String message) {
    super(status + ": " + message);
    this.status = status;
  }

  public Status getStatus() {
    return status;
  }
}
