/*
 * settings.h: the extension's GUCs, read by the aggregate code.
 */
#ifndef GH_SETTINGS_H
#define GH_SETTINGS_H

/* gpu_histogram.device */
enum DeviceMode {
    DEVICE_AUTO, /* the GPU for groups big enough to fill a batch, when one is usable */
    DEVICE_GPU,  /* always the GPU; an error if none is usable */
    DEVICE_CPU,  /* never touch CUDA */
};

extern int gh_device_mode;
extern int gh_batch_size;          /* values per GPU batch */
extern int gh_pinned_pool_mb;      /* bound on this backend's pinned batch buffers */

#endif /* GH_SETTINGS_H */
