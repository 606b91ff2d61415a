import AsyncLayer

/// In the tests, as in the library, `Mutex` is the Thread-Sanitizer-visible mutex: the standard
/// one is invisible to TSan on Linux, which would report every test's bookkeeping as a race.
typealias Mutex<Value: ~Copyable> = ThreadSanitizedMutex<Value>
