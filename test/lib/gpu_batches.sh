#!/usr/bin/env bash
# gpu_batches.sh: where the GPU service's batches went, for the benchmarks
# and checks that must show each GPU got its share (issue 29), sourced.
#
#   gpu_batches                "0:812 1:790", the batches binned on each usable
#                              GPU so far; empty where the server has none
#   gpu_batches_since BEFORE   "GPU batches since: 0 +20 1 +19" against an earlier
#                              gpu_batches, or "no usable GPU"
# The service counts a batch once it is submitted, on the device of the
# histogram it belongs to; a restart of the service starts the counts again.
gpu_batches() {
    psql -X -q -At -c "SELECT string_agg(ordinal || ':' || batches, ' ' ORDER BY ordinal)
                         FROM gpu_histogram_devices() WHERE status = 'usable'" 2>/dev/null || true
}
gpu_batches_since() {
    local now pair before_n out=""
    now=$(gpu_batches)
    if [ -z "$now" ]; then
        echo "no usable GPU"
        return
    fi
    for pair in $now; do
        before_n=$(tr ' ' '\n' <<<"$1" | sed -n "s/^${pair%%:*}://p")
        out+=" ${pair%%:*} +$((${pair#*:} - ${before_n:-0}))"
    done
    echo "GPU batches since:$out"
}
