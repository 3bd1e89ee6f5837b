/*
 * gpu_binning.h: when and how a group's values go to the GPU.
 *
 * The policy (gpu_histogram.device, the batch size, the bound on pinned
 * memory) and the glue between a HistogramState and the engine's CUDA
 * backend.  Each function calls the engine, releases what it must, and only
 * then turns a failed Status into an ERROR.
 */
#ifndef GH_GPU_BINNING_H
#define GH_GPU_BINNING_H

#include "histogram_state.h"

/* device = 'gpu': raises an error now if no GPU is usable by this backend. */
void gpu_binning_require_device(void);

/*
 * A full CPU chunk: moves the group onto the GPU if the policy says so and a
 * lease is free (the chunk then continues in pinned memory), or bins the
 * chunk on the GPU directly in device = 'gpu'.  Returns false if the caller
 * should bin the chunk on the CPU.
 */
bool gpu_binning_take_chunk(HistogramState *st);

/* A full pinned batch: submits it and starts filling the next one. */
void gpu_binning_batch_full(HistogramState *st);

/* Submits what is pending and reads the device counters back into counts. */
void gpu_binning_flush(HistogramState *st);

/* Device histograms held by groups of this backend now. */
extern int gh_active_leases;

#endif /* GH_GPU_BINNING_H */
