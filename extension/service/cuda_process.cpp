/*
 * cuda_process.cpp: the CUDA process, the only process of the server that
 * touches CUDA.  The supervisor (supervisor.cpp) forks it; the postmaster
 * does not know it exists, so its death by any signal (a fault in the GPU
 * driver, an out-of-memory kill, an administrator's kill -9) costs only the
 * GPU requests in flight, never the server.
 *
 * It starts a context on every GPU, page-locks the shared batch slots, and
 * then loops: run the queued requests in the order they were queued (copy
 * and bin a batch, load thresholds, read counters back), give slots back as
 * soon as the GPU has copied them, and free the histograms their owners
 * closed.  A grouped batch (many groups' histograms as one array of cells)
 * carries its group numbers in the same slot, behind its values.  This
 * file is the process's life; its start is cuda_start.cpp's, and the
 * requests cuda_requests.cpp's.
 *
 * A CUDA error other than running out of memory may leave the context
 * unusable, so it records the error and exits with status 1; the supervisor
 * fails what it held and starts a fresh one.
 *
 * Being a fork of the supervisor, it shares its PGPROC, latch and exit
 * callbacks.  It drops the callbacks and the PGPROC, and so uses nothing
 * that needs one: no condition variable and no latch of its own.  Clients
 * ring its doorbell (service_wake); it sets the latches of clients whose
 * reads are done, and asks the supervisor to broadcast to those waiting
 * for room.
 */
#include "cuda_process_inner.h"

#include "cuda_process.h"

extern "C" {
#include "storage/ipc.h"
#include "storage/pg_shmem.h"
#include "storage/proc.h"
#include "storage/proclist.h"
#include "utils/ps_status.h"
}

#include <signal.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <time.h>
#include <unistd.h>

namespace gpu_histogram {

namespace cuda_proc {

namespace {

uint32 applied_fail_request;
uint32 applied_crash_request;

/* SIGURG rings the doorbell, SIGTERM asks it to exit: both blocked, and taken by sigtimedwait. */
sigset_t wait_signals;
bool terminate_requested = false;

bool shutdown_requested(void)
{
    if (terminate_requested)
        return true;
    sigset_t pending;
    if (sigpending(&pending) == 0 && sigismember(&pending, SIGTERM))
        terminate_requested = true;
    return terminate_requested;
}

/* Leaves without running anything of the supervisor's: what it held is the supervisor's to repair. */
[[noreturn]] void leave(int status);
void leave(int status)
{
    _exit(status);
}

} // namespace

void set_message(const char *text)
{
    service_lock();
    strlcpy(gh_service->message, text, sizeof gh_service->message);
    service_unlock();
}

void ask_for_broadcast(void)
{
    if (pg_atomic_exchange_u32(&gh_service->broadcast_wanted, 1) == 0 && gh_service->supervisor_latch != NULL)
        SetLatch(gh_service->supervisor_latch);
}

void wake_room_waiters(void)
{
    pg_memory_barrier();
    /* a waiter joins the list before it looks at the tables again: an empty list means nobody missed this */
    if (!proclist_is_empty(&gh_service->slot_freed.wakeup))
        ask_for_broadcast();
}

void exit_on_cuda_error(gh::Status s)
{
    char text[300];
    snprintf(text, sizeof text, "%s: %s", gh::status_text(s), gh::gpu_last_error());
    ereport(LOG, (errmsg("gpu_histogram CUDA process: fatal CUDA error, restarting: %s", text)));
    service_lock();
    strlcpy(gh_service->last_failure, text, sizeof gh_service->last_failure);
    service_unlock();
    leave(1);
}

namespace {

/*
 * Testing (gpu_histogram.debug_crash_cuda_process): dies as a faulting
 * driver would, at the worst moment, holding the lock every client needs.
 */
void apply_crash_injection(void)
{
    service_lock();
    bool wanted = gh_service->crash_request != applied_crash_request;
    if (!wanted) {
        service_unlock();
        return;
    }
    ereport(LOG, (errmsg("gpu_histogram CUDA process: crashing on purpose, holding the service's lock "
                         "(gpu_histogram.debug_crash_cuda_process)")));
    (void)raise(SIGSEGV);
    leave(1); /* not reached */
}

void apply_fail_injection(void)
{
    service_lock();
    uint32 request = gh_service->fail_request;
    int32 calls = gh_service->fail_calls;
    service_unlock();
    if (request != applied_fail_request) {
        applied_fail_request = request;
        gh::gpu_fail_after(calls);
    }
}

/*
 * Waits up to timeout_us for the doorbell or SIGTERM.  Announcing the sleep
 * and then reading the doorbell, against a client's ringing it and then
 * reading `sleeping`, with a full barrier in between on both sides: either
 * this process sees the ring, or the client sees it asleep and signals it.
 */
/* How often the process looks at batches in flight (serve() says why). */
constexpr long kInFlightLookUs = 20;

void wait_for_work(long timeout_us)
{
    pg_atomic_write_u32(&gh_service->sleeping, 1);
    pg_memory_barrier();
    if (pg_atomic_read_u32(&gh_service->doorbell) == 0 && !shutdown_requested()) {
        struct timespec timeout = {timeout_us / 1000000L, (timeout_us % 1000000L) * 1000L};
        if (sigtimedwait(&wait_signals, NULL, &timeout) == SIGTERM)
            terminate_requested = true;
    }
    pg_atomic_write_u32(&gh_service->sleeping, 0);
}

/* An administrator's SIGTERM (or the supervisor's): leave; the supervisor starts another. */
void handle_signals(void)
{
    if (shutdown_requested())
        leave(0);
}

void serve(void)
{
    int32 *order = static_cast<int32 *>(palloc(sizeof(int32) * service_all_slots()));
    TimestampTz last_idle_work = GetCurrentTimestamp();
    for (;;) {
        /* cleared before looking at the queue: a request queued from now on rings again */
        (void)pg_atomic_exchange_u32(&gh_service->doorbell, 0);
        handle_signals();
        apply_crash_injection();
        apply_fail_injection();
        bool worked = run_queue(order);
        retire_batches();
        close_histograms();
        if (worked)
            continue;
        TimestampTz now = GetCurrentTimestamp();
        /* an injected failure is meant for a client's request: idle work would use it up */
        if (TimestampDifferenceExceeds(last_idle_work, now, 1000) && !gh::gpu_fail_pending()) {
            /* idle for a second: freed histograms' memory goes back, and free memory is read afresh */
            if (in_flight_count() == 0) {
                gh::Status s = gh::gpu_trim_memory();
                if (s != gh::Status::ok)
                    exit_on_cuda_error(s);
            }
            refresh_devices();
            last_idle_work = now;
        }
        /*
         * Batches in flight: look again soon, their slots (and a page
         * batch's pins) are wanted back, and their scans wait.  A page
         * batch read over PCIe takes the GPU about 0.4 ms, and auto keeps
         * only a few queued, so a 1 ms look left the GPU idle between
         * them.  A batch of 8,192 probes read from the page cache takes it
         * far less, and a serial scan of 100M cached rows sends 78 such
         * batches one after another: with a look every 100 us it took 19
         * to 20 ms on the H100 host, with 20 us 12 to 16 (8 workers: 10 ms
         * either way).  The timer slack lets a sleep be that short
         * (become_cuda_process); the looks cost this process a little more
         * of a core, and only while batches are in flight.
         */
        wait_for_work(in_flight_count() > 0 ? kInFlightLookUs : 1000000);
    }
}

/* Waits for SIGTERM: there is no GPU, and clients know it from the state. */
[[noreturn]] void idle(void);
void idle(void)
{
    for (;;) {
        handle_signals();
        apply_crash_injection();
        wait_for_work(10000000);
        (void)pg_atomic_exchange_u32(&gh_service->doorbell, 0);
    }
}

/*
 * What a fork of the supervisor must undo before it is a process of its
 * own: its pid, its exit callbacks and PGPROC (the supervisor's), its signal
 * handlers, and its fate (it dies with the supervisor).
 */
void become_cuda_process(pid_t supervisor)
{
    MyProcPid = getpid();
    (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* Linux stretches a sleep by up to 50 us by default: too much for kInFlightLookUs */
    (void)prctl(PR_SET_TIMERSLACK, 1000UL);
    if (getppid() != supervisor)
        leave(1); /* the supervisor died before the line above */
    on_exit_reset();
    /*
     * A postmaster refuses to start on a data directory whose System V
     * segment still has a process attached, and a CUDA process can take a
     * moment to die after an immediate shutdown.  With the default
     * shared_memory_type (mmap) that segment is only the interlock:
     * everything this process uses is in the anonymous mapping.
     */
    if (shared_memory_type == SHMEM_TYPE_MMAP && UsedShmemSegAddr != NULL)
        (void)shmdt(UsedShmemSegAddr);
    MyProc = NULL;
    MyLatch = NULL;
    init_ps_display("gpu_histogram CUDA process");

    sigemptyset(&wait_signals);
    sigaddset(&wait_signals, SIGURG);
    sigaddset(&wait_signals, SIGTERM);
    int ignored[] = {SIGHUP, SIGINT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM};
    for (int sig : ignored)
        pqsignal(sig, SIG_IGN);
    int defaults[] = {SIGQUIT, SIGCHLD, SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
    for (int sig : defaults)
        pqsignal(sig, SIG_DFL);
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGURG);
    sigaddset(&mask, SIGTERM);
    sigprocmask(SIG_SETMASK, &mask, NULL); /* CUDA's threads inherit it: the signals wait for sigtimedwait */
}

} // namespace

} // namespace cuda_proc

using namespace cuda_proc;

void cuda_process_main(pid_t supervisor)
{
    become_cuda_process(supervisor);

    /* an ERROR (out of memory, say) ends this process, never the supervisor's loop */
    sigjmp_buf on_error;
    if (sigsetjmp(on_error, 1) != 0) {
        EmitErrorReport();
        leave(1);
    }
    PG_exception_stack = &on_error;

    service_lock();
    gh_service->starts++;
    gh_service->state = SERVICE_STARTING;
    gh_service->start_status = static_cast<int32>(gh::Status::ok);
    gh_service->pid = MyProcPid;
    gh_service->pool_registered = false;
    gh_service->page_cache_entries = 0;
    applied_fail_request = gh_service->fail_request;
    applied_crash_request = gh_service->crash_request;
    service_unlock();

    requests_init();

    /*
     * Every kernel loaded now rather than at its first use: no query pays for
     * it, and the service's device memory no longer depends on which kinds of
     * histogram it has seen (an administrator's own setting wins).
     */
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    bool gpus = start_gpus();
    service_lock();
    gh_service->state = gpus ? SERVICE_UP : SERVICE_NO_GPU;
    service_unlock();
    ask_for_broadcast(); /* device = 'gpu' sessions wait for the start */
    if (gpus)
        serve();
    idle();
}

} // namespace gpu_histogram
