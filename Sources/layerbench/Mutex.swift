import AsyncLayer

/// In the CLI, as in the library and its tests, `Mutex` is the Thread-Sanitizer-visible mutex: the
/// standard one is invisible to TSan on Linux, which would report every access under it as a race.
typealias Mutex<Value: ~Copyable> = ThreadSanitizedMutex<Value>
