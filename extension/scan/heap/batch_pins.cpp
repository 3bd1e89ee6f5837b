/*
 * batch_pins.cpp: pins held by a batch of pages, outside the buffer
 * manager's per-backend books (batch_pins.h says why).
 *
 * Both changes to the shared state are made under the buffer header lock,
 * as PinBuffer_Locked() and UnpinBuffer()'s cleanup-waiter check do; the
 * lock is one compare-and-swap on a descriptor line this backend has just
 * written, so it costs what the lock-free loops in bufmgr.c cost.
 */
#include "batch_pins.h"

extern "C" {
#include "storage/buf_internals.h"
#include "storage/ipc.h"
#include "storage/proc.h"
}

namespace gpu_histogram {

namespace {

BatchPinList *tracked;
bool exit_hook_registered;

/* A FATAL exit frees the executor's memory too; this catches whatever a missed path would leave pinned. */
void drop_tracked_at_exit(int, Datum)
{
    for (BatchPinList *l = tracked; l != NULL; l = l->next) {
        for (int i = 0; i < *l->count; i++)
            if (BufferIsValid((*l->buffers)[i])) /* a probe (page_gpu.h) holds no pin */
                batch_pin_drop((*l->buffers)[i]);
        *l->count = 0;
    }
    tracked = NULL;
}

} // namespace

void batch_pin_add(Buffer buffer)
{
    Assert(BufferIsValid(buffer) && !BufferIsLocal(buffer));
    BufferDesc *desc = GetBufferDescriptor(buffer - 1);
    /* the ordinary pin the caller holds keeps the buffer's identity: no tag check needed */
    uint32 state = LockBufHdr(desc);
    UnlockBufHdr(desc, state + BUF_REFCOUNT_ONE);
}

void batch_pin_drop(Buffer buffer)
{
    BufferDesc *desc = GetBufferDescriptor(buffer - 1);
    uint32 state = LockBufHdr(desc);
    Assert(BUF_STATE_GET_REFCOUNT(state) > 0);
    state -= BUF_REFCOUNT_ONE;
    /* LockBufferForCleanup() waits, holding a pin of its own, until it is the last */
    if ((state & BM_PIN_COUNT_WAITER) && BUF_STATE_GET_REFCOUNT(state) == 1) {
        int waiter = desc->wait_backend_pgprocno;
        UnlockBufHdr(desc, state & ~BM_PIN_COUNT_WAITER);
        ProcSendSignal(waiter);
        return;
    }
    UnlockBufHdr(desc, state);
}

void batch_pins_track(BatchPinList *list)
{
    if (!exit_hook_registered) {
        /* before shared memory detaches, and before the abort that frees the executor's memory */
        before_shmem_exit(drop_tracked_at_exit, 0);
        exit_hook_registered = true;
    }
    list->next = tracked;
    tracked = list;
}

void batch_pins_untrack(BatchPinList *list)
{
    for (BatchPinList **l = &tracked; *l != NULL; l = &(*l)->next)
        if (*l == list) {
            *l = list->next;
            return;
        }
}

} // namespace gpu_histogram
