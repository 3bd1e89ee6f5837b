/*
 * service.h: the GPU service's one door to the rest of the extension.
 *
 * When gpu_histogram is in shared_preload_libraries, gpu_service_init()
 * (called from _PG_init) defines the service's settings, asks for its shared
 * memory and registers the background worker that owns every GPU of the
 * server.  Loaded any other way, it does nothing, and there is no GPU path:
 * every value is binned on the CPU.  What clients may do with the service
 * is in service_client.h.
 */
#ifndef GH_SERVICE_H
#define GH_SERVICE_H

namespace gpu_histogram {

void gpu_service_init(void);

} // namespace gpu_histogram

#endif /* GH_SERVICE_H */
