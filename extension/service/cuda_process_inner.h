/*
 * cuda_process_inner.h: what the CUDA process's files share, the process
 * split by concern: cuda_process.cpp (its life: the fork's undoing, the
 * loop, signals, fatal errors), cuda_start.cpp (CUDA's start on every
 * GPU) and cuda_requests.cpp (running the clients' requests).  Only these
 * files include it; the supervisor knows cuda_process.h alone.
 */
#ifndef GH_CUDA_PROCESS_INNER_H
#define GH_CUDA_PROCESS_INNER_H

#include "service_shared.h"

namespace gpu_histogram {

namespace cuda_proc {

/* cuda_process.cpp: the service's message for gpu_histogram_devices(), under the lock. */
void set_message(const char *text);

/* The supervisor broadcasts slot_freed for this process, which has no PGPROC to do it with. */
void ask_for_broadcast(void);

/* After freeing a slot or an entry. */
void wake_room_waiters(void);

/* Records CUDA's error for the clients and leaves; the supervisor starts another process. */
[[noreturn]] void exit_on_cuda_error(gh::Status s);

/* cuda_start.cpp: CUDA on every device, and the batch slots page-locked; false if there is no GPU. */
bool start_gpus(void);

/* Reads the devices' state (free memory among it) into the shared table. */
void refresh_devices(void);

/* cuda_requests.cpp: every slot's device twin on every device, [slot * kMaxDevices + device], made by start_gpus(). */
extern gh::BatchBuffer **batches;
/* The group-number part of each value slot (service_slot_groups) as a buffer of its own, made with it. */
extern gh::BatchBuffer **group_batches;

/* This process's tables for the requests, in TopMemoryContext. */
void requests_init(void);

/* Runs every queued request, oldest first (order: room for every slot); true if there was any. */
bool run_queue(int32 *order);

/* Gives back the slots whose batches the GPU has copied, and answers the reads that have arrived. */
void retire_batches(void);

/* Frees the device histograms whose owners closed them. */
void close_histograms(void);

/* How many batches and reads are on the GPUs now. */
int in_flight_count(void);

} // namespace cuda_proc

} // namespace gpu_histogram

#endif /* GH_CUDA_PROCESS_INNER_H */
