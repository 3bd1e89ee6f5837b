/*
 * host_cores.h: whether this host has a core to spare, for the page
 * batches' stealing (page_batches.cpp).
 */
#ifndef GH_SCAN_HOST_CORES_H
#define GH_SCAN_HOST_CORES_H

namespace gpu_histogram {

/*
 * Whether a core would otherwise idle while this process waits for the
 * GPU: no more processes runnable than there are cores (/proc/loadavg's
 * running count, this one included).  Stealing only pays then, and only
 * in a parallel scan, where the participants together outrun the GPU's
 * link: with 8 workers on 16 cores it took a fifth of the pages and the
 * scan went from 80 to 59-62 ms on the H100.  A lone scan keeps pace with
 * the link (119 ms either way), so there it only spent the host's time
 * (81 ms of CPU became 118).  Under 64 pgbench clients on those 16 cores,
 * where every core is busy, a page the host steals is one the GPU would
 * have read for a tenth of the host's time: waiting gave 234 transactions
 * a second against 219.  Where the count cannot be read, it steals.
 */
bool host_has_idle_core();

} // namespace gpu_histogram

#endif /* GH_SCAN_HOST_CORES_H */
