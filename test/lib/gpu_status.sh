#!/usr/bin/env bash
# gpu_status.sh: whether the server's backends can use a GPU, for the GPU
# checks that also run without one (sourced).
#
#   gh_gpu_status [SECONDS]   prints 'usable', or the status line of
#                             gpu_histogram_devices() that says why not
#
# A server that has just started is still starting its GPU service (its
# state is 'down' until the supervisor starts the CUDA process, then
# 'starting'), and its devices then read "no GPU".  A check that looked
# once ran its CPU path on a GPU host and passed, so this waits, up to
# SECONDS (default 60), until the service is up or has found no GPU.
gh_gpu_status() {
    local state
    for _ in $(seq 1 "${1:-60}"); do
        state=$(psql -X -q -At -c "SELECT service_state FROM gpu_histogram_stats()")
        [ "$state" = starting ] || [ "$state" = down ] || break
        sleep 1
    done
    psql -X -q -At -c "SELECT coalesce(min(status), 'none') FROM gpu_histogram_devices()"
}
