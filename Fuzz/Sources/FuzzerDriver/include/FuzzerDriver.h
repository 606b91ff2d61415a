// libFuzzer's driver (in the toolchain's libclang_rt.fuzzer, linked by `-sanitize=fuzzer`).
//
// SwiftPM renames an executable's entry point (`<module>_main`) and points `main` at it, so a
// target cannot leave `main` to libFuzzer; each fuzzer's `main.swift` calls the driver instead.
#ifndef FUZZER_DRIVER_H
#define FUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
