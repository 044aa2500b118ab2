/* Ordering intrinsics: spu_sync (all earlier loads, stores and instruction fetches done),
 * spu_sync_c (the same, channel writes included) and spu_dsync (earlier loads and stores
 * done). On the host each is a full memory barrier, which orders at least as much. */
#ifndef SPU_INTRINSICS_CONTROL_H
#define SPU_INTRINSICS_CONTROL_H

#define spu_sync() __sync_synchronize()
#define spu_sync_c() __sync_synchronize()
#define spu_dsync() __sync_synchronize()

#endif
