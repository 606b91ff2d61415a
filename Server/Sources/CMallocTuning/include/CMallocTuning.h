#ifndef ASYNCLAYER_SERVER_MALLOC_TUNING_H
#define ASYNCLAYER_SERVER_MALLOC_TUNING_H

/// glibc's mallopt(M_MMAP_THRESHOLD / M_TRIM_THRESHOLD) for the server executable: <malloc.h> is not
/// part of Swift's Glibc module. Each returns 0 when glibc refused the value, 1 otherwise (another C
/// library: nothing is set).
int asynclayer_server_set_mmap_threshold(long bytes);
int asynclayer_server_set_trim_threshold(long bytes);

#endif
