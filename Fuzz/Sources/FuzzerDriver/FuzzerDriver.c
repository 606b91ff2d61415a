// Intentionally empty: the target exists for its header (SwiftPM needs one source file).
#include "FuzzerDriver.h"
