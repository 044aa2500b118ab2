"""The Cell SDK front: its compilers (toolchain.py) for C programs written against libspe2 on
the PPE and spu_mfcio.h with the SPU intrinsics on the SPEs; their C sources are ``sdk/``."""
