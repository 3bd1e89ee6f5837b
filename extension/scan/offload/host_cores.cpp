/*
 * host_cores.cpp: the load average read for host_cores.h.
 */
#include "host_cores.h"

#include "../../pg_headers.h"

#include <cstdio>
#include <unistd.h>

extern "C" {
#include "storage/fd.h"
}

namespace gpu_histogram {

bool host_has_idle_core()
{
    static long cores = 0;
    if (cores <= 0)
        cores = sysconf(_SC_NPROCESSORS_ONLN);
    FILE *f = AllocateFile("/proc/loadavg", "r");
    if (f == NULL)
        return true;
    double avg[3];
    long running = 0, total = 0;
    int got = fscanf(f, "%lf %lf %lf %ld/%ld", &avg[0], &avg[1], &avg[2], &running, &total);
    FreeFile(f);
    return got != 5 || cores <= 0 || running <= cores;
}

} // namespace gpu_histogram
