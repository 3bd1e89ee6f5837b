/*
 * status.h: the one result type every engine call returns.
 *
 * The engine never throws into its caller and never includes PostgreSQL; it
 * reports what happened as a Status, and the extension turns that into an
 * ereport after the engine call has returned.
 */
#ifndef GH_STATUS_H
#define GH_STATUS_H

#include <cstdint>

namespace gh {

enum class Status : int32_t {
    ok = 0,
    nan_value,       /* a value was NaN: width_bucket refuses it */
    not_built,       /* this build has no CUDA backend */
    no_device,       /* no driver, or no CUDA device visible */
    out_of_memory,   /* device or host memory exhausted */
    interrupted,     /* the caller asked to stop while we waited for the GPU */
    cuda_error,      /* any other CUDA failure; see last_cuda_error() */
    internal_error,  /* a bug: an exception or impossible state inside the engine */
};

/* A short lower-case description, for error messages. */
const char *status_text(Status s) noexcept;

} // namespace gh

#endif /* GH_STATUS_H */
