/*
 * cuda_process.h: the CUDA process's one entry point, called by the
 * supervisor in the child it has just forked.
 */
#ifndef GH_CUDA_PROCESS_H
#define GH_CUDA_PROCESS_H

#include <sys/types.h>

namespace gpu_histogram {

/* Runs the CUDA process; never returns (it ends with _exit). */
[[noreturn]] void cuda_process_main(pid_t supervisor);

} // namespace gpu_histogram

#endif /* GH_CUDA_PROCESS_H */
