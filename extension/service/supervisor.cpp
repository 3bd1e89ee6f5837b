/*
 * supervisor.cpp: the GPU service's background worker, which never touches
 * CUDA itself.  It forks the CUDA process (cuda_process.cpp) and restarts
 * it whenever it dies.
 *
 * The postmaster treats the death of one of its children by a signal as a
 * crash of the whole server: every session is cut off and the server
 * recovers.  A GPU driver that faults, or an out-of-memory kill of the
 * process holding a CUDA context, must not do that, so the process that
 * calls CUDA is this worker's child, not the postmaster's.  When it dies,
 * however it dies, this worker takes over the lock if it held it, fails the
 * requests it held (their clients get ERROR 38000), frees what no client
 * owns, recounts the tables, wakes every waiting client and forks a new one.
 *
 * It also does the shared-memory chores that need no GPU: broadcasting to
 * clients that wait for room (the CUDA process has no PGPROC), and taking
 * back what clients that vanished left behind.
 */
#include "service_shared.h"

#include "cuda_process.h"

extern "C" {
#include "miscadmin.h"
#include "port.h"
#include "postmaster/bgworker.h"
#include "postmaster/fork_process.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"
}

#include <signal.h>
#include <sys/wait.h>

namespace gpu_histogram {

/*
 * The postmaster looks the worker up by name (service.cpp's
 * bgw_function_name); C linkage keeps its symbol plain inside the namespace.
 */
extern "C" {
PGDLLEXPORT void gpu_histogram_service_main(Datum arg);
}

namespace {

pid_t cuda_pid = 0;
TimestampTz cuda_started_at = 0;
TimestampTz restart_at = 0;

/* A CUDA process that dies this soon after starting is not started again at once. */
constexpr int kShortLifeMs = 5000;
constexpr int kRestartDelayMs = 1000;

void handle_sigchld(SIGNAL_ARGS)
{
    int save_errno = errno;
    SetLatch(MyLatch);
    errno = save_errno;
}

/*
 * Repairs the tables after the CUDA process died: its lock (if it died
 * holding it) is taken over, everything it held fails, and the clients are
 * woken.  `failure`, if given, is what their errors will say.
 */
void repair_after(pid_t dead, const char *failure)
{
    uint32 expected = static_cast<uint32>(dead);
    if (dead == 0 || !pg_atomic_compare_exchange_u32(&gh_service->lock, &expected, static_cast<uint32>(MyProcPid)))
        service_lock();
    gh_service->state = SERVICE_DOWN;
    gh_service->pid = 0;
    pg_atomic_write_u32(&gh_service->sleeping, 0);
    service_fail_all_locked(failure);
    service_unlock();
    service_wake_clients();
}

void start_cuda_process(void)
{
    /* no signal handler of this process may run in the child before it has its own */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);
    pid_t supervisor = MyProcPid;
    pid_t pid = fork_process();
    if (pid == 0)
        cuda_process_main(supervisor);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (pid < 0) {
        ereport(LOG, (errmsg("gpu_histogram GPU service: could not fork the CUDA process: %m")));
        restart_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), kRestartDelayMs);
        return;
    }
    cuda_pid = pid;
    cuda_started_at = GetCurrentTimestamp();
}

/* Reaps the CUDA process if it has exited, repairs, and schedules the next one. */
void reap_cuda_process(void)
{
    if (cuda_pid == 0)
        return;
    int status = 0;
    pid_t r = waitpid(cuda_pid, &status, WNOHANG);
    if (r != cuda_pid)
        return;
    pid_t dead = cuda_pid;
    cuda_pid = 0;
    char why[256];
    if (WIFSIGNALED(status)) {
        snprintf(why, sizeof why, "the CUDA process (pid %d) was terminated by signal %d: %s", static_cast<int>(dead),
                 WTERMSIG(status), pg_strsignal(WTERMSIG(status)));
        repair_after(dead, why);
    } else {
        /* status 1: a fatal CUDA error, which it recorded itself; 0: it was told to exit */
        snprintf(why, sizeof why, "the CUDA process (pid %d) exited with status %d", static_cast<int>(dead),
                 WEXITSTATUS(status));
        repair_after(dead, NULL);
    }
    TimestampTz now = GetCurrentTimestamp();
    bool short_life = TimestampDifferenceExceeds(cuda_started_at, now, kShortLifeMs) == false;
    restart_at = short_life ? TimestampTzPlusMilliseconds(now, kRestartDelayMs) : now;
    ereport(LOG, (errmsg("gpu_histogram GPU service: %s; its GPU requests failed, starting a new one%s", why,
                         short_life ? " in a second" : "")));
}

/* On the supervisor's exit: the CUDA process goes with it, and leaves nothing behind. */
void stop_cuda_process(int, Datum)
{
    if (cuda_pid > 0) {
        (void)kill(cuda_pid, SIGKILL);
        while (waitpid(cuda_pid, NULL, 0) < 0 && errno == EINTR)
            ;
        repair_after(cuda_pid, NULL);
        cuda_pid = 0;
    }
    service_lock();
    gh_service->supervisor_latch = NULL;
    service_unlock();
}

bool process_gone(pid_t pid)
{
    return kill(pid, 0) != 0 && errno == ESRCH;
}

/*
 * Takes back what clients that vanished without cleaning up left (they
 * always clean up on exit; this covers what cannot be foreseen).  The pids
 * are checked outside the lock, and an entry is taken back only if the same
 * owner still holds it.
 */
void reclaim_orphans(void)
{
    bool freed = false;
    for (int i = 0; i < service_all_slots(); i++) {
        ServiceSlot *slot = &gh_service_slots[i];
        service_lock();
        bool held = slot->state == SLOT_FILLING || slot->state == SLOT_DONE;
        pid_t owner = slot->owner;
        service_unlock();
        if (!held || !process_gone(owner))
            continue;
        service_lock();
        if ((slot->state == SLOT_FILLING || slot->state == SLOT_DONE) && slot->owner == owner) {
            slot->state = SLOT_FREE;
            gh_service->slots_in_use--;
            freed = true;
        }
        service_unlock();
    }
    bool closed = false;
    for (int i = 0; i < gh_service->nhistograms; i++) {
        ServiceHistogram *h = &gh_service_histograms[i];
        service_lock();
        bool open = h->state == HIST_OPEN;
        pid_t owner = h->owner;
        uint64 serial = h->serial;
        service_unlock();
        if (!open || !process_gone(owner))
            continue;
        service_lock();
        if (h->state == HIST_OPEN && h->serial == serial) {
            h->state = HIST_CLOSING;
            gh_service->histograms_closing++;
            closed = true;
        }
        service_unlock();
    }
    if (freed)
        ConditionVariableBroadcast(&gh_service->slot_freed);
    if (closed)
        service_wake();
}

/* What the postmaster and administrators ask of the loop: exit, or reload the configuration. */
void handle_signals(void)
{
    CHECK_FOR_INTERRUPTS();
    if (ShutdownRequestPending)
        proc_exit(1); /* 1, not 0: a SIGTERM outside a server shutdown makes the postmaster start it again */
    if (ConfigReloadPending) {
        ConfigReloadPending = false;
        ProcessConfigFile(PGC_SIGHUP);
    }
}

} // namespace

void gpu_histogram_service_main(Datum)
{
    pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    pqsignal(SIGCHLD, handle_sigchld);
    BackgroundWorkerUnblockSignals();

    service_lock();
    gh_service->supervisor_latch = MyLatch;
    service_unlock();
    /* what a previous incarnation left, if it was killed */
    repair_after(0, NULL);
    before_shmem_exit(stop_cuda_process, 0);

    TimestampTz last_sweep = GetCurrentTimestamp();
    for (;;) {
        ResetLatch(MyLatch);
        handle_signals();
        reap_cuda_process();
        TimestampTz now = GetCurrentTimestamp();
        if (cuda_pid == 0 && now >= restart_at)
            start_cuda_process();
        if (pg_atomic_exchange_u32(&gh_service->broadcast_wanted, 0) != 0)
            ConditionVariableBroadcast(&gh_service->slot_freed);
        if (TimestampDifferenceExceeds(last_sweep, now, 1000)) {
            reclaim_orphans();
            last_sweep = now;
        }
        long timeout = 1000;
        if (cuda_pid == 0) {
            long secs;
            int usecs;
            TimestampDifference(now, restart_at, &secs, &usecs);
            timeout = Max(1L, Min(1000L, secs * 1000 + usecs / 1000));
        }
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, timeout, PG_WAIT_EXTENSION);
    }
}

} // namespace gpu_histogram
